/**
 * The speed of {@code cryo-worker}'s worker on a real freezer in a temporary folder, with the
 * realistic user of the freezer benchmarks ({@link dev.cryo.bench.worker.RealisticTenant}), every
 * call an HTTP call served through the worker's application host to
 * {@link dev.cryo.bench.worker.BenchApplication}:
 *
 * <ul>
 *   <li>{@link dev.cryo.bench.worker.WorkerBenchmark} (JMH): the hand-over (frozen on worker A,
 *       woken on worker B by his next call), sampled for its median and p99; calls per second
 *       through the worker against the same store work done directly on the registry (the worker's
 *       own overhead); a burst of 50 concurrent calls on a frozen user until all are served;
 *   <li>{@link dev.cryo.bench.worker.HandOverBench}: the hand-over interleaved one to one with the
 *       anchor, Tomcat's {@code FileStore} swapping the equivalent session;
 *   <li>{@link dev.cryo.bench.worker.BurstBench}: the burst beside a single call's wake, and the
 *       parcels it decoded (one disk trip reads three);
 *   <li>{@link dev.cryo.bench.worker.QuitBench}: a worker's quit of the drain benchmark's demo
 *       users, its departures one at a time beside several at once, round after round.
 * </ul>
 *
 * <p>Every operation checks what it got back and fails otherwise; timings are never asserted in
 * tests. {@code docs/benchmarks.md} keeps the latest figures. Nothing here is shipped.
 */
package dev.cryo.bench.worker;
