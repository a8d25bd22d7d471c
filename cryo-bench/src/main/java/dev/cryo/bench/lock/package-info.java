/**
 * The speed of {@code cryo-lock}, measured beside its anchors, and Lucene's own cross-process lock
 * check run against it.
 *
 * <ul>
 *   <li>{@link dev.cryo.bench.lock.UncontendedLockBenchmark} (JMH): uncontended acquire + release
 *       of {@link dev.cryo.lock.ProcessLock} beside Lucene's {@code NativeFSLockFactory} and
 *       {@code SimpleFSLockFactory} and beside {@link dev.cryo.bench.lock.ProtocolFloor}, the bare
 *       file-system calls of cryo's protocol; {@link dev.cryo.bench.lock.InterleavedRatio} measures
 *       the same ratios in alternating blocks for a busy machine, and
 *       {@link dev.cryo.bench.lock.ProcessLockCostBenchmark} prices each piece of work cryo does
 *       beyond the floor.
 *   <li>{@link dev.cryo.bench.lock.HandOffBench}: hand-off latency between contending child JVMs,
 *       beside {@link dev.cryo.bench.lock.SeedPollingLock}, a model of the seed's 100 ms polling
 *       lock.
 *   <li>{@link dev.cryo.bench.lock.RefusedObtainRatio}: the cost of a refused try against a
 *       live holder in another JVM, beside Lucene's two factories refused the same way.
 *   <li>{@link dev.cryo.bench.lock.CryoLockFactory}, a Lucene lock factory over
 *       {@code ProcessLock}, and {@link dev.cryo.bench.lock.LockStressRun}, which runs Lucene's
 *       {@code LockVerifyServer} and {@code LockStressTest} client JVMs against it.
 * </ul>
 *
 * <p>Rules: every figure is printed beside its anchor from the same run; the harnesses check what
 * they measure (mutual exclusion, the clock shared by processes) and fail instead of reporting a
 * figure they cannot trust; timings are never asserted in tests; Lucene is used only through its
 * published jar. {@code docs/benchmarks.md} keeps the latest figures and the commands that
 * reproduce them. Nothing here is shipped.
 */
package dev.cryo.bench.lock;
