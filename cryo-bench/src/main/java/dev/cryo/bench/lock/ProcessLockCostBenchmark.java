package dev.cryo.bench.lock;

import dev.cryo.lock.LockFile;
import dev.cryo.lock.LockRecord;
import dev.cryo.lock.MalformedRecordException;
import dev.cryo.lock.ProcessIdentity;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.concurrent.TimeUnit;
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
 * Where an uncontended {@code ProcessLock} acquire + release spends the time that the
 * {@linkplain ProtocolFloor floor} does not: the work cryo does besides its protocol's file-system
 * calls, one piece per benchmark, in microseconds per call. Read beside
 * {@link UncontendedLockBenchmark}: how many times each piece runs per acquire + release is given
 * in each method's documentation.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class ProcessLockCostBenchmark {

  private static final SecureRandom RANDOM = new SecureRandom();

  private Path directory;
  private Path lockFile;
  private ProcessIdentity self;
  private String holder;
  private LockRecord record;
  private byte[] recordBytes;

  /** A directory two levels under {@code java.io.tmpdir}, as in the uncontended benchmark. */
  @Setup(Level.Trial)
  public void setUp() throws IOException {
    directory = Files.createDirectories(Files.createTempDirectory("cryo-bench-cost-")
        .resolve("cryo"));
    lockFile = directory.resolve(".lock");
    self = ProcessIdentity.current();
    holder = "java pid " + self.pid() + " thread " + Thread.currentThread().getName();
    record = LockRecord.fresh(self, holder);
    recordBytes = record.toBytes();
  }

  /** Removes the directories. */
  @TearDown(Level.Trial)
  public void tearDown() throws IOException {
    Files.delete(directory);
    Files.delete(directory.getParent());
  }

  /** {@code stat} of the directory: once per acquire (validation). */
  @Benchmark
  public BasicFileAttributes statDirectory() throws IOException {
    return Files.readAttributes(directory, BasicFileAttributes.class);
  }

  /** {@code toRealPath} of the directory: three times per acquire + release. */
  @Benchmark
  public Path realPath() throws IOException {
    return directory.toRealPath();
  }

  /** {@code LockFile.at}: canonicalises the directory again; twice per acquire + release. */
  @Benchmark
  public LockFile lockFileAt() {
    return LockFile.at(lockFile);
  }

  /** A fresh record (random token, clock, validation) and its bytes: once per acquire. */
  @Benchmark
  public byte[] freshRecord() {
    return LockRecord.fresh(self, holder).toBytes();
  }

  /**
   * Parsing a record: what a release did to compare tokens, before it compared bytes first; now
   * only when the bytes on disk are not our own.
   */
  @Benchmark
  public LockRecord parseRecord() throws MalformedRecordException {
    return LockRecord.parse(recordBytes);
  }

  /** A random side-file name (as {@code Publication.sibling}): twice per acquire + release. */
  @Benchmark
  public Path randomSiblingName() {
    byte[] random = new byte[8];
    RANDOM.nextBytes(random);
    return lockFile.resolveSibling(
        lockFile.getFileName() + ".cryo-tmp." + self.pid() + "." + HexFormat.of().formatHex(random));
  }

  /**
   * The bytes of our record again: once per release (compared with what is on disk before any
   * parse).
   */
  @Benchmark
  public byte[] recordBytes() {
    return record.toBytes();
  }
}
