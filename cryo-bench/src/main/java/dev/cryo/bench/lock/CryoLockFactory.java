package dev.cryo.bench.lock;

import dev.cryo.lock.LockBusyException;
import dev.cryo.lock.LockException;
import dev.cryo.lock.LockValidationException;
import dev.cryo.lock.LockFile;
import dev.cryo.lock.LockReading;
import dev.cryo.lock.ProcessLock;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.lucene.store.AlreadyClosedException;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.store.FSLockFactory;
import org.apache.lucene.store.Lock;
import org.apache.lucene.store.LockObtainFailedException;

/**
 * A Lucene {@link FSLockFactory} backed by cryo's {@link ProcessLock}, so that Lucene's own
 * {@code LockStressTest} and {@code LockVerifyServer} can check cryo's lock. Kept in cryo-bench:
 * it is a test adapter, not a way to lock a Lucene index.
 *
 * <h2>Mapping</h2>
 *
 * <ul>
 *   <li>Lucene names the lock file ({@code write.lock}); a {@code ProcessLock} always lives at
 *       {@code <directory>/.lock}. Each lock name therefore maps to its own sub-directory,
 *       {@code <FSDirectory path>/<name>.d/}, created on demand (with the FSDirectory's own path)
 *       at a JVM's first obtain of the name, its real path remembered (an obtain that finds it
 *       gone, or resolved elsewhere by cryo, creates and resolves it again), and never removed: removing it could pull the directory from under another process that
 *       is about to lock it. The lockfile is {@code <FSDirectory path>/<name>.d/.lock}. A lock name
 *       must be a plain file name (no separator, not {@code .} or {@code ..}).
 *   <li>{@link #obtainLock} tries once ({@code ProcessLock.acquire(dir, Duration.ZERO)}), so a
 *       provably dead holder is still reclaimed; a live holder is a
 *       {@link LockObtainFailedException}.
 *   <li>Lucene's locks are not re-entrant, while a {@code ProcessLock} re-enters on the same
 *       thread: a JVM-wide set of held paths (as Lucene's {@code NativeFSLockFactory} keeps)
 *       refuses a second obtain of a lock this JVM holds, from any thread and through any
 *       instance of this factory.
 *   <li>{@link Lock#ensureValid()} throws {@link AlreadyClosedException} when the lock was
 *       closed, or when the record on disk is no longer ours ({@link ProcessLock#isIntact()}).
 *   <li>{@link Lock#close()} releases the {@code ProcessLock}; when the file system refuses, the
 *       lock stays held and registered (cryo's rule) and closing again retries.
 * </ul>
 *
 * <p>When the system property {@value #STATISTICS_PROPERTY} names a file, the JVM writes there at
 * exit how many obtains succeeded, how many were refused because another process held the lock,
 * and how many because this JVM held it, so that a stress run can show that
 * its clients really contended.
 *
 * <p>{@code LockStressTest} finds a factory by class name, through a public static
 * {@link #INSTANCE} field or a public no-argument constructor of an {@code FSLockFactory}; both
 * exist. Instances are stateless and thread-safe.
 */
public final class CryoLockFactory extends FSLockFactory {

  /** The instance {@code LockStressTest} picks up by reflection. */
  public static final CryoLockFactory INSTANCE = new CryoLockFactory();

  /** Suffix of the sub-directory that holds the lock of one lock name. */
  public static final String DIRECTORY_SUFFIX = ".d";

  /** The system property naming the file of this JVM's obtain statistics. */
  public static final String STATISTICS_PROPERTY = "cryo.bench.lockStatistics";

  private static final Set<Path> HELD = ConcurrentHashMap.newKeySet();
  /** Lock directory as spelled from the FSDirectory's path → its real path, once created. */
  private static final ConcurrentHashMap<Path, Path> RESOLVED = new ConcurrentHashMap<>();
  /** Refusals of cryo that say a remembered real directory is gone: resolve it again. */
  private static final Set<LockException.Reason> REMEMBERED_AGAIN = EnumSet.of(
      LockException.Reason.DIRECTORY_MISSING, LockException.Reason.NOT_A_DIRECTORY,
      LockException.Reason.DIRECTORY_DISAPPEARED);
  private static final AtomicLong OBTAINED = new AtomicLong();
  private static final AtomicLong REFUSED = new AtomicLong();
  private static final AtomicLong REFUSED_HERE = new AtomicLong();

  static {
    String statistics = System.getProperty(STATISTICS_PROPERTY);
    if (statistics != null) {
      Runtime.getRuntime().addShutdownHook(new Thread(() -> {
        try {
          Files.writeString(Path.of(statistics),
              "obtained " + OBTAINED.get() + "\nrefused " + REFUSED.get()
                  + "\nrefusedHere " + REFUSED_HERE.get() + "\n");
        } catch (IOException e) {
          System.err.println("could not write " + statistics + ": " + e);
        }
      }, "cryo-lock-factory-statistics"));
    }
  }

  /** A factory; all instances share the JVM-wide set of held locks. */
  public CryoLockFactory() {}

  /** The directory whose {@code .lock} is the lock named {@code lockName} in {@code directory}. */
  public static Path lockDirectory(Path directory, String lockName) {
    Objects.requireNonNull(lockName, "lockName");
    if (lockName.isEmpty() || lockName.equals(".") || lockName.equals("..")
        || lockName.indexOf('/') >= 0 || lockName.indexOf('\0') >= 0) {
      throw new IllegalArgumentException("a lock name must be a plain file name: '" + lockName
          + "'");
    }
    return directory.resolve(lockName + DIRECTORY_SUFFIX);
  }

  @Override
  protected Lock obtainFSLock(FSDirectory dir, String lockName) throws IOException {
    Path spelled = lockDirectory(dir.getDirectory(), lockName);
    Path known = RESOLVED.get(spelled);
    if (known != null) {
      Lock lock = obtainIn(known, lockName, spelled);
      if (lock != null) {
        return lock;
      }
    }
    // First obtain of this name in this JVM, or the directory known was gone or is no longer
    // the real directory: create and resolve it again, as Lucene's native factory does each time.
    Path lockDirectory = Files.createDirectories(spelled).toRealPath();
    RESOLVED.put(spelled, lockDirectory);
    Lock lock = obtainIn(lockDirectory, lockName, null);
    if (lock == null) {
      throw new LockObtainFailedException("Lock directory " + lockDirectory + " changed while it"
          + " was locked; nothing is held: retry");
    }
    return lock;
  }

  /**
   * Obtains the lock of {@code lockDirectory}, a real path; null when {@code known} is the spelled
   * directory the real path was remembered for and it no longer leads there (missing, or cryo
   * resolved another real directory): the caller resolves it again.
   */
  private static Lock obtainIn(Path lockDirectory, String lockName, Path known)
      throws IOException {
    if (!HELD.add(lockDirectory)) {
      REFUSED_HERE.incrementAndGet();
      throw new LockObtainFailedException("Lock held by this virtual machine: " + lockDirectory);
    }
    boolean obtained = false;
    try {
      ProcessLock lock = ProcessLock.acquire(lockDirectory, Duration.ZERO, "lucene " + lockName);
      if (known != null && !lock.lockFile().getParent().equals(lockDirectory)) {
        lock.close(); // the remembered real path now leads elsewhere: it is not this key's lock
        RESOLVED.remove(known, lockDirectory);
        return null;
      }
      obtained = true;
      OBTAINED.incrementAndGet();
      return new CryoLock(lock, lockDirectory);
    } catch (LockBusyException e) {
      REFUSED.incrementAndGet();
      throw new Refused(e);
    } catch (LockValidationException e) {
      if (known == null || !REMEMBERED_AGAIN.contains(e.reason())) {
        throw e;
      }
      RESOLVED.remove(known, lockDirectory);
      return null;
    } finally {
      if (!obtained) {
        HELD.remove(lockDirectory);
      }
    }
  }

  /**
   * A refusal because another process holds the lock: Lucene's wording, naming cryo's refusal
   * (holder and verdict) as the cause; the message is worded when it is first asked for, since a
   * contender is refused again and again and seldom reads it.
   */
  private static final class Refused extends LockObtainFailedException {
    private final LockBusyException busy;

    Refused(LockBusyException busy) {
      super("Lock held by another program", busy);
      this.busy = busy;
    }

    @Override
    public String getMessage() {
      return "Lock held by another program: " + busy.getMessage();
    }
  }

  /** One obtained lock: a {@link ProcessLock} and the key of the JVM-wide set. */
  private static final class CryoLock extends Lock {
    private final ProcessLock lock;
    private final Path key;
    private final String token;
    private volatile boolean closed;

    CryoLock(ProcessLock lock, Path key) {
      this.lock = lock;
      this.key = key;
      this.token = lock.record().token();
    }

    @Override
    public void ensureValid() throws IOException {
      if (closed) {
        throw new AlreadyClosedException("Lock instance already released: " + this);
      }
      if (!HELD.contains(key)) {
        throw new AlreadyClosedException("Lock path unexpectedly cleared from map: " + this);
      }
      if (!lock.isIntact()) {
        LockReading onDisk = LockFile.at(lock.lockFile()).read();
        throw new AlreadyClosedException("Lock record on disk is no longer ours (the lockfile is "
            + describe(onDisk) + "): " + this);
      }
    }

    @Override
    public synchronized void close() throws IOException {
      if (closed) {
        return;
      }
      lock.close();
      closed = true;
      HELD.remove(key);
    }

    private static String describe(LockReading reading) {
      return switch (reading) {
        case LockReading.Absent absent -> "absent";
        case LockReading.Present present -> "held by " + present.record().describe();
        case LockReading.Malformed malformed -> "malformed: " + malformed.problem();
        case LockReading.NotRegular notRegular -> notRegular.kind();
        case LockReading.Unreadable unreadable -> "unreadable: " + unreadable.problem();
      };
    }

    @Override
    public String toString() {
      return "CryoLock(" + lock.lockFile() + ", token " + token + ")";
    }
  }
}
