package dev.cryo.bench.freezer;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.catalina.session.StandardSession;
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
 * One realistic user ({@link RealisticUser}) frozen and adopted, per second, one thread, three
 * contenders in one JMH run:
 *
 * <ul>
 *   <li>{@code cryo}: {@link CryoFreezeAdopt} — semaphore, three parcels written, semaphore
 *       released; semaphore, three parcels read and dropped, semaphore released;
 *   <li>{@code tomcatFileStore}: {@link TomcatFileStoreSwap} — Tomcat's {@code FileStore} saves,
 *       loads and removes an equivalent {@code StandardSession};
 *   <li>{@code floor}: {@link FileFloor} — cryo's parcel bytes written, read and removed with bare
 *       file calls, folder made and removed.
 * </ul>
 *
 * <p>Each contender works in its own fresh directory under {@code java.io.tmpdir}. The headline
 * figures are the ratios {@code cryo / tomcatFileStore} (target ≥ 2) and {@code floor / cryo}
 * (target ≤ 2).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class FreezeAdoptBenchmark {

  private Path root;
  private CryoFreezeAdopt cryo;
  private TomcatFileStoreSwap tomcat;
  private StandardSession session;
  private FileFloor floor;

  /** Makes one fresh directory per contender. */
  @Setup(Level.Trial)
  public void setUp() throws Exception {
    root = Files.createTempDirectory("cryo-bench-freezer-");
    cryo = new CryoFreezeAdopt(root.resolve("cryo"));
    tomcat = new TomcatFileStoreSwap(root.resolve("tomcat"));
    session = tomcat.session("0123456789ABCDEF0123456789ABCDEF");
    List<byte[]> parcels = cryo.parcelBytes();
    floor = new FileFloor(Files.createDirectory(root.resolve("floor")), parcels);
  }

  /** Removes the directories, and fails the run if a contender left something behind. */
  @TearDown(Level.Trial)
  public void tearDown() throws IOException {
    try (Stream<Path> all = Files.walk(root)) {
      List<Path> paths = all.sorted(Comparator.reverseOrder()).toList();
      List<Path> left = paths.stream().filter(Files::isRegularFile).toList();
      for (Path path : paths) {
        Files.delete(path);
      }
      if (!left.isEmpty()) {
        throw new IllegalStateException("files were left behind: " + left);
      }
    }
  }

  /** cryo: freeze, then adopt. */
  @Benchmark
  public int cryo() throws Exception {
    return cryo.freezeAndAdopt("user@example.org");
  }

  /** Tomcat: save, load, remove. */
  @Benchmark
  public int tomcatFileStore() throws Exception {
    return tomcat.saveLoadRemove(session);
  }

  /** Bare file calls on the same bytes. */
  @Benchmark
  public long floor() throws IOException {
    return floor.writeReadRemove("user");
  }
}
