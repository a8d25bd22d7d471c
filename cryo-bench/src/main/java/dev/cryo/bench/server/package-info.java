/**
 * The speed of {@code cryo-server}'s worker, in one JMH class
 * ({@link dev.cryo.bench.server.WorkerBenchmark}), on a real freezer in a temporary folder:
 *
 * <ul>
 *   <li>the hand-over of the realistic user of the freezer benchmarks (frozen on worker A, woken on
 *       worker B by his next call), sampled, for its median and p99;
 *   <li>calls per second through the worker against the same store work done directly on the
 *       registry: the worker's own overhead;
 *   <li>a burst of 50 concurrent calls on a frozen user: how long until all 50 are served.
 * </ul>
 *
 * <p>Every operation checks what it got back and fails otherwise; timings are never asserted in
 * tests. {@code docs/benchmarks.md} keeps the latest figures. Nothing here is shipped.
 */
package dev.cryo.bench.server;
