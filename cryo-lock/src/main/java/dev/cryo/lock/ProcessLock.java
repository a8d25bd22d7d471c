package dev.cryo.lock;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Predicate;

/**
 * An exclusive lock on a directory, shared by threads and processes, held as the file
 * {@code <directory>/.lock}.
 *
 * <pre>{@code
 * try (ProcessLock lock = ProcessLock.acquire(runDirectory, Duration.ofSeconds(5))) {
 *   // only one thread of one process on this machine is here
 * }
 * }</pre>
 *
 * <h2>Contract</h2>
 *
 * <ul>
 *   <li>{@link #acquire} waits up to the given duration; then it throws {@link LockBusyException}
 *       naming the holder. The directory is never created; a missing directory, a path that is not
 *       a directory and a directory that disappears during the acquisition are distinct
 *       {@link LockValidationException}s.
 *   <li>A holder is displaced only on proof of its death ({@link HolderVerdict}): a record from
 *       another host, or one that cannot be read, is held; a record that does not parse is
 *       reclaimed after a grace period of {@link #MALFORMED_GRACE} counted from its last change
 *       (a modification time ahead of this clock is believed up to {@link #MAX_CLOCK_SKEW}).
 *   <li>The same thread re-enters: each {@code acquire} returns a new handle and the lock is released
 *       when every handle is closed. Re-entry first checks that the record on disk is still ours.
 *       Another thread of this JVM waits, without spinning, until the deadline. Every spelling of a
 *       directory (relative, with {@code ..}, through a symbolic link) designates one lock.
 *   <li>Waiting across processes wakes on a file-change notification when the holder releases,
 *       with polling as the fallback.
 *   <li>{@link #close} removes the file only when its record is still ours (by token); a foreign
 *       record is left on disk. A held lock keeps its lockfile open (one descriptor per lockfile
 *       held, the one it published through), and checks and removes it through that descriptor:
 *       no open, no second read by name ({@link #isIntact} too). A removal the file system refuses keeps the lock registered and
 *       throws; closing again retries. Closing is idempotent and may happen on any thread.
 *   <li>At normal JVM exit every lock still held is released, except one shared with a companion
 *       that still runs ({@link #shareWith}), which stays held until the companion ends. After
 *       {@code kill -9} the record names a dead process, and the next acquirer reclaims it.
 *   <li>The temporaries a writer killed in the middle of its publication leaves beside the lockfile
 *       are removed by the next contended acquirer, and by an uncontended one at the first
 *       acquisition of the lockfile by its JVM and then at most once per
 *       {@link #CLEANING_INTERVAL}; those of live writers are kept. A claim whose temporary loses
 *       the race to the name keeps that temporary (never seen at the name) and writes its next
 *       record into it: at most one per lockfile and JVM, removed at exit.
 *   <li>An interrupt cuts short the waits only (a {@link LockBusyException} saying so); taking a
 *       free lock, re-entering and releasing work from an interrupted thread, whose interrupt flag
 *       stays set.
 * </ul>
 *
 * <p>Handles are thread-safe.
 */
public final class ProcessLock implements AutoCloseable {

  /** The lockfile's name inside the locked directory. */
  public static final String FILE_NAME = ".lock";

  /** How long a record that does not parse is respected, counted from its last change. */
  public static final Duration MALFORMED_GRACE = Duration.ofSeconds(2);

  /**
   * How far ahead of this machine's clock a lockfile's modification time may be and still be
   * believed: a file server's clock may run a little ahead. A time further ahead is no time a
   * writer set by writing (anybody who may write the file can set any time), so it does not delay
   * the reclaim of a record that does not parse. See {@link #malformedReclaimableAt}.
   */
  public static final Duration MAX_CLOCK_SKEW = Duration.ofSeconds(10);

  /**
   * How often, at most, an acquisition without contention lists the directory for the temporaries
   * of dead writers (the first acquisition of a lockfile by this JVM always does). A contended
   * acquisition lists it anyway. Listing on every acquisition would cost about half as much again
   * as the acquisition itself; temporaries are small and harmless until they pile up, so one look
   * per minute and lockfile bounds them without that cost.
   */
  static final Duration CLEANING_INTERVAL = Duration.ofMinutes(1);

  /** How long a release waits for another remover (a reclaimer judging us) to step aside. */
  static final Duration RELEASE_PATIENCE = Duration.ofSeconds(10);

  private static final LazyLog LOG = new LazyLog(ProcessLock.class);
  private static final ConcurrentHashMap<Path, Slot> SLOTS = new ConcurrentHashMap<>();
  private static final Set<Slot> HELD = ConcurrentHashMap.newKeySet();
  /** A directory's identity (device and inode) → its real path when last resolved. */
  private static final ConcurrentHashMap<Object, Path> REAL_DIRECTORIES = new ConcurrentHashMap<>();
  /**
   * A real path resolved before → the identity of the directory it named: a caller that names the
   * directory by that real path (as most do, having resolved it once) is checked with one {@code
   * lstat} ({@link #stillDesignates}) instead of a {@code stat} and an {@code lstat}.
   */
  private static final ConcurrentHashMap<Path, Object> REAL_KEYS = new ConcurrentHashMap<>();

  static {
    Runtime.getRuntime().addShutdownHook(new Thread(ProcessLock::releaseAllAtExit,
        "cryo-lock-release-at-exit"));
  }

  private final Slot slot;
  private boolean closed; // guarded by slot.mutex

  private ProcessLock(Slot slot) {
    this.slot = slot;
  }

  /**
   * Acquires the lock of {@code directory}, waiting at most {@code wait}, with a holder name derived
   * from this thread.
   *
   * @see #acquire(Path, Duration, String)
   */
  public static ProcessLock acquire(Path directory, Duration wait) throws LockException {
    return acquire(directory, wait, "java pid " + ProcessHandle.current().pid()
        + " thread " + Thread.currentThread().getName());
  }

  /**
   * Acquires the lock of {@code directory}, waiting at most {@code wait}.
   *
   * @param directory an existing directory; never created
   * @param wait how long to wait for a live holder; zero or negative tries once (a provably dead
   *     holder is still reclaimed)
   * @param holder a free-text name written in the record for operators; bounded and sanitised
   * @return a handle; closing it releases this acquisition
   * @throws LockBusyException when the lock is still held at the deadline
   * @throws LockValidationException when the directory is missing, is not a directory, disappears,
   *     or holds something that is not a regular file at {@code .lock}
   */
  public static ProcessLock acquire(Path directory, Duration wait, String holder)
      throws LockException {
    Objects.requireNonNull(wait, "wait");
    Objects.requireNonNull(holder, "holder");
    long deadline = System.nanoTime() + Math.max(0, saturatedNanos(wait));
    Path lockFile = lockFileOf(directory);
    Slot slot = SLOTS.get(lockFile);
    if (slot == null) {
      slot = SLOTS.computeIfAbsent(lockFile, Slot::new);
    }
    ProcessLock reentered = enterSlot(slot, deadline);
    if (reentered != null) {
      return reentered;
    }
    boolean claimed = false;
    try {
      Claim.Claimed published = Claim.runKept(slot.file, holder, deadline, slot.spare);
      slot.mutex.lock();
      try {
        slot.depth = 1;
        slot.hold(published.record(), published.bytes());
        slot.kept = published.kept();
        HELD.add(slot);
      } finally {
        slot.mutex.unlock();
      }
      claimed = true;
      slot.cleanIfDue();
      return new ProcessLock(slot);
    } finally {
      if (!claimed) {
        slot.free();
      }
    }
  }

  /**
   * The lockfile {@link #acquire} takes for {@code directory}: {@code <real directory>/.lock}, the
   * directory resolved by the kernel (symbolic links followed, then {@code ..}: {@code link/..}
   * is the parent of the link's target), so that every spelling of one directory names one
   * lockfile. Reads nothing but the directory's attributes and creates nothing. The real path of a
   * directory (by device and inode) is remembered by the JVM, and used again while it still names
   * that directory itself, so that an acquisition resolves no path ({@link #stillDesignates}).
   *
   * @throws LockValidationException {@code DIRECTORY_MISSING}, {@code NOT_A_DIRECTORY}, or
   *     {@code IO_FAILURE} when the directory cannot be examined
   */
  public static Path lockFileOf(Path directory) throws LockValidationException {
    return validateDirectory(Objects.requireNonNull(directory, "directory")).resolve(FILE_NAME);
  }

  /** The lockfile, {@code <real directory>/.lock}. */
  public Path lockFile() {
    return slot.lockFile;
  }

  /** The record this lock published (with a companion once {@link #shareWith} was called). */
  public LockRecord record() {
    slot.mutex.lock();
    try {
      return slot.record;
    } finally {
      slot.mutex.unlock();
    }
  }

  /** Whether this handle is still open. */
  public boolean isOpen() {
    slot.mutex.lock();
    try {
      return !closed;
    } finally {
      slot.mutex.unlock();
    }
  }

  /**
   * Whether this handle is open and the lockfile still holds this lock's record (by token), read
   * now through its name: false when it is absent, holds another record, does not parse or cannot
   * be read. Nothing is changed either way. A check for holders that must stop working once their
   * lock was broken; callable on any thread.
   */
  public boolean isIntact() {
    LockRecord ours;
    byte[] oursBytes;
    Publication.Kept kept;
    slot.mutex.lock();
    try {
      if (closed) {
        return false;
      }
      ours = slot.record;
      oursBytes = slot.recordBytes;
      kept = slot.kept;
    } finally {
      slot.mutex.unlock();
    }
    if (kept != null) {
      Boolean intact = slot.file.holdsKept(kept, oursBytes);
      if (intact != null) {
        return intact;
      }
    }
    return slot.file.read() instanceof LockReading.Present present
        && (present.sameBytes(oursBytes)
            || Objects.equals(present.record().token(), ours.token()));
  }

  /**
   * Makes {@code process} a companion of this lock: the lock stays held while either this JVM or
   * that process lives, even if this JVM is killed or exits (the release at exit leaves a lock
   * whose companion still runs); {@link #close} still releases it. The record on disk is replaced atomically (same
   * token), and only while it is still ours. A process that is already gone is not named (it can keep
   * nothing held, and its pid could be reused): the record is then left as it is.
   *
   * @throws LockException when this handle is closed, or the record on disk is no longer ours
   */
  public void shareWith(ProcessHandle process) throws LockException {
    slot.mutex.lock();
    try {
      if (closed) {
        throw new IllegalStateException("this lock handle is closed");
      }
      OptionalLong started = ProcessTable.system().startOf(process.pid());
      if (started.isEmpty()) {
        return;
      }
      LockRecord shared = slot.record.withCompanion(process.pid(), started.getAsLong());
      LockFile.Removal outcome;
      try {
        outcome = slot.file.replaceIf(
            bytes -> Claim.isOurs(bytes, slot.record), shared, RELEASE_PATIENCE);
      } catch (IOException e) {
        throw new LockValidationException(LockException.Reason.IO_FAILURE, slot.lockFile,
            "could not rewrite " + slot.lockFile + " to name companion pid " + process.pid() + ": "
                + LockFile.describe(e) + "; the lock is still held under the old record", e);
      }
      if (outcome != LockFile.Removal.REMOVED) {
        throw new LockValidationException(LockException.Reason.LOCK_LOST, slot.lockFile,
            "the record in " + slot.lockFile + " is no longer ours (" + outcome.name().toLowerCase()
                + "); nothing was written: close this lock and acquire it again");
      }
      slot.hold(shared, shared.toBytes());
      slot.dropKept(); // the shared record is another file: released by name from now on
    } finally {
      slot.mutex.unlock();
    }
  }

  /**
   * Releases this acquisition; the file goes with the last one. Idempotent, callable on any thread.
   *
   * @throws LockValidationException when the file system refuses to remove our lockfile: the lock
   *     then stays held and registered for release at exit, and closing again retries
   */
  @Override
  public void close() throws LockException {
    slot.mutex.lock();
    try {
      if (closed) {
        return;
      }
      if (slot.depth > 1) {
        slot.depth--;
        closed = true;
        return;
      }
      LockRecord ours = slot.record;
      byte[] oursBytes = slot.recordBytes;
      Predicate<byte[]> isOurs = bytes -> Claim.isOurs(bytes, ours, oursBytes);
      LockFile.Removal outcome;
      try {
        outcome = slot.kept != null
            ? slot.file.removeKept(slot.kept, oursBytes, isOurs, RELEASE_PATIENCE)
            : slot.file.removeOwn(isOurs, RELEASE_PATIENCE);
      } catch (IOException e) {
        throw new LockValidationException(LockException.Reason.RELEASE_REFUSED, slot.lockFile,
            "the file system refused to remove " + slot.lockFile + ": " + LockFile.describe(e)
                + "; the lock is still held and registered: fix the cause and close again", e);
      }
      if (outcome == LockFile.Removal.CONTENDED) {
        throw new LockValidationException(LockException.Reason.RELEASE_REFUSED, slot.lockFile,
            "another process kept " + slot.lockFile + " busy for " + RELEASE_PATIENCE
                + "; the lock is still held and registered: close again");
      }
      if (outcome == LockFile.Removal.CHANGED) {
        LOG.get().log(Level.WARNING, "released {0}: the file now holds another holder''s record,"
            + " which was left in place", slot.lockFile);
      }
      closed = true;
      slot.depth = 0;
      slot.owner = null;
      slot.hold(null, null);
      slot.kept = null; // closed by removeKept
      HELD.remove(slot);
      slot.changed.signalAll();
    } finally {
      slot.mutex.unlock();
    }
  }

  @Override
  public String toString() {
    return "ProcessLock[" + slot.lockFile + "]";
  }

  /** Claims the in-JVM slot; returns a handle on re-entry, or null when the file must be claimed. */
  private static ProcessLock enterSlot(Slot slot, long deadline) throws LockException {
    Thread me = Thread.currentThread();
    slot.mutex.lock();
    try {
      while (true) {
        if (slot.owner == null) {
          slot.owner = me;
          slot.depth = 0;
          return null;
        }
        if (slot.owner == me) {
          return reenter(slot);
        }
        long remaining = deadline - System.nanoTime();
        if (remaining <= 0) {
          throw new LockBusyException(slot.lockFile, slot.record,
              "by thread '" + slot.owner.getName() + "' of this process");
        }
        try {
          slot.changed.awaitNanos(remaining);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new LockBusyException(slot.lockFile, slot.record, "the wait was interrupted");
        }
      }
    } finally {
      slot.mutex.unlock();
    }
  }

  private static ProcessLock reenter(Slot slot) throws LockException {
    if (slot.depth == 0) {
      throw new IllegalStateException("re-entry while this thread's first acquisition is"
          + " incomplete: " + slot.lockFile);
    }
    LockReading onDisk = slot.file.read();
    if (onDisk instanceof LockReading.Present present) {
      if (Objects.equals(present.record().token(), slot.record.token())) {
        slot.depth++;
        return new ProcessLock(slot);
      }
      throw new LockBusyException(slot.lockFile, present.record(),
          "it replaced the record this thread held; re-entry refused");
    }
    throw new LockValidationException(LockException.Reason.LOCK_LOST, slot.lockFile,
        "this thread holds " + slot.lockFile + " in memory, but the file now reads as "
            + Claim.describe(onDisk) + "; re-entry refused: close every handle of this lock and"
            + " acquire it again");
  }

  private static Path validateDirectory(Path directory) throws LockValidationException {
    Object remembered = REAL_KEYS.get(directory);
    if (remembered != null && stillDesignates(directory, remembered)) {
      return directory; // a real path resolved before, still that directory: one lstat
    }
    Path lockFile = directory.resolve(FILE_NAME);
    BasicFileAttributes attributes;
    try {
      attributes = Files.readAttributes(directory, BasicFileAttributes.class);
    } catch (NoSuchFileException e) {
      throw new LockValidationException(LockException.Reason.DIRECTORY_MISSING, lockFile,
          "the lock directory " + directory + " does not exist; nothing was created: create it,"
              + " or name an existing directory", e);
    } catch (IOException e) {
      throw new LockValidationException(LockException.Reason.IO_FAILURE, lockFile,
          "cannot examine the lock directory " + directory + ": " + LockFile.describe(e), e);
    }
    if (!attributes.isDirectory()) {
      throw new LockValidationException(LockException.Reason.NOT_A_DIRECTORY, lockFile,
          "the lock directory path " + directory + " is not a directory; nothing was changed:"
              + " name a directory", new NotDirectoryException(directory.toString()));
    }
    Object key = attributes.fileKey();
    Path known = key == null ? null : REAL_DIRECTORIES.get(key);
    if (known != null && stillDesignates(known, key)) {
      return known;
    }
    try {
      Path real = directory.toRealPath();
      if (key != null) {
        REAL_DIRECTORIES.put(key, real);
        REAL_KEYS.put(real, key);
      }
      return real;
    } catch (IOException e) {
      throw new LockValidationException(LockException.Reason.DIRECTORY_DISAPPEARED, lockFile,
          "the lock directory " + directory + " disappeared while the lock was being acquired;"
              + " nothing was left behind: recreate it and retry", e);
    }
  }

  /**
   * Whether the real path {@code known}, resolved for the directory {@code key} (device and inode)
   * earlier, still names that directory itself (not a link to it): one {@code stat} instead of
   * resolving the path again, which costs a system call per component. A directory has one name in
   * its parent (no hard links) and a live inode one identity, so every spelling of a directory
   * still finds the one lockfile path, as by {@link Path#toRealPath}; a directory moved, removed
   * or replaced meanwhile no longer agrees, and is resolved again.
   */
  private static boolean stillDesignates(Path known, Object key) {
    try {
      BasicFileAttributes now =
          Files.readAttributes(known, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
      return now.isDirectory() && key.equals(now.fileKey());
    } catch (IOException e) {
      return false;
    }
  }

  private static long saturatedNanos(Duration wait) {
    try {
      return Math.min(wait.toNanos(), TimeUnit.DAYS.toNanos(365));
    } catch (ArithmeticException e) {
      return wait.isNegative() ? 0 : TimeUnit.DAYS.toNanos(365);
    }
  }

  private static void releaseAllAtExit() {
    for (Slot slot : SLOTS.values()) {
      slot.spare.discard();
    }
    for (Slot slot : HELD) {
      LockRecord ours = slot.record;
      if (ours == null) {
        continue;
      }
      if (companionAlive(ours)) {
        // shareWith's promise: held while the companion lives. The record names it, and becomes
        // reclaimable when it ends (both processes then provably gone).
        LOG.get().log(Level.INFO, "left {0} held at exit: its companion pid {1} still runs",
            slot.lockFile, ours.companionPid());
        continue;
      }
      try {
        slot.file.removeOwn(bytes -> Claim.isOurs(bytes, ours), Duration.ZERO);
      } catch (IOException | RuntimeException e) {
        LOG.get().log(Level.WARNING, "could not release {0} at exit: {1}", slot.lockFile, e);
      }
    }
  }

  /** Whether {@code record} names a companion that is still the same live process. */
  private static boolean companionAlive(LockRecord record) {
    if (record.companionPid() <= 0) {
      return false;
    }
    OptionalLong start = ProcessTable.system().startOf(record.companionPid());
    return start.isPresent() && (record.companionStart() < 0 || start.getAsLong() < 0
        || start.getAsLong() == record.companionStart());
  }

  /**
   * Package view for tests: closes the descriptor this lock keeps of its lockfile, as an interrupt
   * arriving during a read through it does; the lockfile stays.
   */
  void closeKeptDescriptor() throws IOException {
    slot.mutex.lock();
    try {
      if (slot.kept != null) {
        slot.kept.channel().close();
      }
    } finally {
      slot.mutex.unlock();
    }
  }

  /** Package view for tests: the record currently held for {@code lockFile} by this JVM, if any. */
  static LockRecord heldRecord(Path lockFile) {
    Slot slot = SLOTS.get(lockFile);
    return slot == null ? null : slot.record;
  }

  /** The in-JVM state of one lockfile: which thread owns it, how deep, under which record. */
  private static final class Slot {
    final Path lockFile;
    final LockFile file; // lockFile is canonical already: no need to resolve it on every use
    final ReentrantLock mutex = new ReentrantLock();
    final Condition changed = mutex.newCondition();
    Thread owner; // guarded by mutex
    int depth; // guarded by mutex
    volatile LockRecord record; // written under mutex, with recordBytes (hold)
    volatile byte[] recordBytes; // record.toBytes(), what the release expects to find; never changed
    /**
     * The file this slot's owner published, still open, while it is the record held: its
     * release and {@link ProcessLock#isIntact} go through it ({@link LockFile#removeKept}). Null
     * when not held, or once the record on disk was replaced ({@link #shareWith}). Guarded by
     * mutex; closed only through {@link LockFile}, under its guard.
     */
    Publication.Kept kept;
    /** The temporary of this slot's last claim that lost the race to the name, if any. */
    final Publication.Spare spare = new Publication.Spare();
    private long cleanedAt; // System.nanoTime() of the last cleaning; guarded by mutex
    private boolean cleaned; // guarded by mutex

    Slot(Path lockFile) {
      this.lockFile = lockFile;
      this.file = LockFile.ofCanonical(lockFile);
    }

    /**
     * Removes the temporaries of dead writers beside the lockfile, at the first acquisition and
     * then at most once per {@link #CLEANING_INTERVAL}; called by the owner, right after its claim.
     */
    void cleanIfDue() {
      long now = System.nanoTime();
      mutex.lock();
      try {
        if (cleaned && now - cleanedAt < CLEANING_INTERVAL.toNanos()) {
          return;
        }
        cleaned = true;
        cleanedAt = now;
      } finally {
        mutex.unlock();
      }
      try {
        Publication.removeAbandoned(lockFile.getParent(), FILE_NAME, ProcessTable.system());
      } catch (IOException e) {
        LOG.get().log(Level.DEBUG, "could not clean abandoned temporaries beside {0}: {1}",
            lockFile, e);
      }
    }

    /** Records {@code held} (null: none) as this slot's record, with its bytes; under mutex. */
    void hold(LockRecord held, byte[] heldBytes) {
      recordBytes = heldBytes;
      record = held;
    }

    /** Closes the kept file, if any, without removing anything; under mutex. */
    void dropKept() {
      if (kept != null) {
        file.closeKept(kept);
        kept = null;
      }
    }

    void free() {
      mutex.lock();
      try {
        owner = null;
        depth = 0;
        hold(null, null);
        dropKept();
        changed.signalAll();
      } finally {
        mutex.unlock();
      }
    }
  }

  /** Whether a malformed record last changed at {@code modified} has outlived its grace period. */
  static boolean graceOver(Instant modified) {
    Instant now = Instant.now();
    return !now.isBefore(malformedReclaimableAt(modified, now));
  }

  /**
   * When a record that does not parse, last modified at {@code modified}, becomes reclaimable, as
   * judged at {@code now}: {@link #MALFORMED_GRACE} after its modification, or at once ({@code now})
   * when the modification time lies more than {@link #MAX_CLOCK_SKEW} ahead of {@code now}. Never
   * later than {@code now + MAX_CLOCK_SKEW + MALFORMED_GRACE}, whatever the file says; never
   * overflows.
   */
  public static Instant malformedReclaimableAt(Instant modified, Instant now) {
    Objects.requireNonNull(modified, "modified");
    Objects.requireNonNull(now, "now");
    if (modified.isAfter(now.plus(MAX_CLOCK_SKEW))) {
      return now;
    }
    return modified.plus(MALFORMED_GRACE);
  }
}
