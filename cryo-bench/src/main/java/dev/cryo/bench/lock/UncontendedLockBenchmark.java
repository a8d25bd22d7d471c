package dev.cryo.bench.lock;

import dev.cryo.bench.Scratch;
import dev.cryo.lock.ProcessLock;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.store.Lock;
import org.apache.lucene.store.NIOFSDirectory;
import org.apache.lucene.store.NativeFSLockFactory;
import org.apache.lucene.store.NoLockFactory;
import org.apache.lucene.store.SimpleFSLockFactory;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Uncontended acquire + release in one thread, per second: cryo's {@link ProcessLock} beside
 * Lucene's two file lock factories and beside the {@linkplain ProtocolFloor floor} of cryo's own
 * protocol, in one JMH run.
 *
 * <ul>
 *   <li>{@code cryoProcessLock}: {@code ProcessLock.acquire(dir, Duration.ZERO)} then {@code close()};
 *   <li>{@code floor}: the same file-system calls and nothing else ({@link ProtocolFloor});
 *   <li>{@code luceneNativeFS}: {@code NativeFSLockFactory.INSTANCE.obtainLock(dir, "write.lock")}
 *       then {@code close()} (an {@code fcntl} lock on a file that is never deleted);
 *   <li>{@code luceneSimpleFS}: the same with {@code SimpleFSLockFactory} (create the file, then
 *       check and delete it).
 * </ul>
 *
 * <p>Each benchmark works in its own fresh directory under {@code java.io.tmpdir} (pass
 * {@code -jvmArgsAppend -Djava.io.tmpdir=DIR} to measure another file system). The headline figures
 * are the ratios {@code cryoProcessLock / floor} and {@code cryoProcessLock / luceneNativeFS}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class UncontendedLockBenchmark {

  private Path root;
  private Path cryoDirectory;
  private ProtocolFloor floor;
  private FSDirectory nativeDirectory;
  private FSDirectory simpleDirectory;

  /** Makes one fresh directory per benchmark. */
  @Setup(Level.Trial)
  public void createDirectories() throws IOException {
    root = Files.createTempDirectory("cryo-bench-lock-");
    cryoDirectory = Files.createDirectory(root.resolve("cryo"));
    floor = new ProtocolFloor(Files.createDirectory(root.resolve("floor")));
    nativeDirectory = new NIOFSDirectory(Files.createDirectory(root.resolve("native")),
        NoLockFactory.INSTANCE);
    simpleDirectory = new NIOFSDirectory(Files.createDirectory(root.resolve("simple")),
        NoLockFactory.INSTANCE);
  }

  /** Removes the directories, and fails the run if a lock was left behind. */
  @TearDown(Level.Trial)
  public void removeDirectories() throws IOException {
    nativeDirectory.close();
    simpleDirectory.close();
    if (Files.exists(cryoDirectory.resolve(ProcessLock.FILE_NAME))
        || Files.exists(floor.lockFile())) {
      throw new IllegalStateException("a lockfile was left behind in " + root);
    }
    Scratch.delete(root);
  }

  /** cryo: acquire without waiting, release. */
  @Benchmark
  public void cryoProcessLock() throws IOException {
    ProcessLock.acquire(cryoDirectory, Duration.ZERO).close();
  }

  /** The file-system calls of cryo's protocol and nothing else. */
  @Benchmark
  public boolean floor() throws IOException {
    return floor.acquire() & floor.release();
  }

  /** Lucene's native lock: obtain, close. */
  @Benchmark
  public void luceneNativeFS() throws IOException {
    Lock lock = NativeFSLockFactory.INSTANCE.obtainLock(nativeDirectory, "write.lock");
    lock.close();
  }

  /** Lucene's simple lock: obtain, close. */
  @Benchmark
  public void luceneSimpleFS() throws IOException {
    Lock lock = SimpleFSLockFactory.INSTANCE.obtainLock(simpleDirectory, "write.lock");
    lock.close();
  }
}
