package dev.cryo.lock;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.Set;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Predicate;

/**
 * One lockfile on disk: reading it, publishing a record there, and removing it safely.
 *
 * <h2>Why removal is guarded</h2>
 *
 * <p>Removing a lockfile by name is racy: between a remover's last look and its {@code unlink}, the
 * file it judged may have been removed by somebody else and a live holder's fresh record put in its
 * place, which the unlink would then delete. {@link #removeIf} closes that window. The remover
 * hard-links the current file to a private name (so it knows exactly which file it holds), takes an
 * operating-system lock on that file (released by the kernel if the remover dies), checks the content
 * through its own descriptor, checks that the lockfile's name still designates the same file
 * (device and inode, by {@code stat}, which opens nothing), and only then unlinks the name. Every
 * remover of a lockfile (a reclaimer, an owner releasing, an operator breaking) goes through this
 * method, so none can unlink a file another remover has already replaced: the second one finds the
 * name pointing elsewhere and stops.
 *
 * <p>Within one JVM, closing any descriptor of a file drops every operating-system lock the process
 * holds on it; a per-path JVM guard therefore serialises this class's operations on one lockfile.
 * The guard is held for one attempt only (a few system calls, the operating-system lock tried
 * once): an operation that waits for another process's lock pauses between attempts without it,
 * so that it never holds up the unrelated lockfiles that share its guard stripe. Instances are
 * immutable and thread-safe.
 */
public final class LockFile {

  /** What {@link #removeIf} did. */
  public enum Removal {
    /** The file was what the caller expected and is now removed. */
    REMOVED,
    /** Nothing was there. */
    ABSENT,
    /** Something else is there now: it was left alone. */
    CHANGED,
    /** Another remover is at work on the same file: try again later. */
    CONTENDED
  }

  /** A test seam: called after every check of {@link #removeIf} and just before the unlink. */
  interface RemovalProbe {
    void beforeUnlink(Path lockFile);
  }

  static volatile RemovalProbe removalProbe = lockFile -> { };

  /** A test seam: called when a read-write open was refused, before anything else is tried. */
  interface ReadOnlyProbe {
    void refusedReadWrite(Path lockFile) throws IOException;
  }

  static volatile ReadOnlyProbe readOnlyProbe = lockFile -> { };

  private static final ReentrantLock[] GUARDS = new ReentrantLock[64];

  static {
    for (int i = 0; i < GUARDS.length; i++) {
      GUARDS[i] = new ReentrantLock();
    }
  }

  private final Path path;

  private LockFile(Path path) {
    this.path = path;
  }

  /** The lockfile at {@code path} (not touched by this call). */
  public static LockFile at(Path path) {
    Path name = Objects.requireNonNull(path.getFileName(), "a lockfile path needs a file name");
    Path absolute = path.toAbsolutePath().normalize();
    try {
      // One spelling per file, so that aliases of a directory share one JVM guard.
      return new LockFile(absolute.getParent().toRealPath().resolve(name));
    } catch (IOException e) {
      return new LockFile(absolute);
    }
  }

  /**
   * The lockfile at {@code path}, which is already canonical (absolute, its directory a real path):
   * the same as {@link #at} without resolving the directory again.
   */
  static LockFile ofCanonical(Path path) {
    return new LockFile(path);
  }

  /** The lockfile's path. */
  public Path path() {
    return path;
  }

  /**
   * Publishes {@code record} here unless a lockfile is already present. Once linked the record is
   * published: a temporary that could not be removed afterwards is logged, never thrown.
   *
   * @return whether the record was published
   * @throws NoSuchFileException when the directory does not exist
   * @throws IOException when nothing was published
   */
  public boolean tryPublish(LockRecord record) throws IOException {
    return Publication.publishExclusive(path, record.toBytes(), Publication.Durability.VOLATILE);
  }

  /**
   * Publishes {@code bytes} (a whole record) here unless a lockfile is already present, as {@link
   * #tryPublish} does, and keeps the published file open for its owner: {@link #holdsKept} and
   * {@link #removeKept} then check and remove it through that descriptor. The owner closes it
   * through {@link #closeKept} only, never directly (see the class documentation: a descriptor of
   * a lockfile is closed under its guard). A temporary that loses the race to the name is kept in
   * {@code spare} for the next try ({@link Publication.Spare}).
   *
   * @return the published file, or {@code null} when a lockfile is already present
   * @throws NoSuchFileException when the directory does not exist
   * @throws IOException when nothing was published
   */
  Publication.Kept publishKept(byte[] bytes, Publication.Spare spare) throws IOException {
    return Publication.publishKept(path, bytes, spare);
  }

  /**
   * Whether the lockfile's name still designates {@code kept}, the file its owner published, and
   * that file still holds exactly {@code oursBytes}: one {@code lstat} and one positional read,
   * under this file's guard. {@code null} when that cannot be told from the descriptor (it was
   * closed, by an interrupt for instance, or the name designates another file): the caller then
   * reads the lockfile by name.
   */
  Boolean holdsKept(Publication.Kept kept, byte[] oursBytes) {
    ReentrantLock guard = guard();
    guard.lock();
    try {
      return Uninterruptible.call(() -> {
        Object now = fileKeyAt(path);
        if (now == null) {
          return Boolean.FALSE;
        }
        if (!kept.fileKey().equals(now) || !kept.channel().isOpen()) {
          return null;
        }
        try {
          return holdsExactly(kept.channel(), oursBytes) ? Boolean.TRUE : null;
        } catch (ClosedByInterruptException e) {
          throw e; // repeated whole by Uninterruptible, which keeps the interrupt
        } catch (ClosedChannelException e) {
          return null;
        }
      });
    } catch (IOException e) {
      return null;
    } finally {
      guard.unlock();
    }
  }

  /**
   * The owner's release, as {@link #removeOwn}, through {@code kept}, the descriptor of the file
   * the owner published: under the guard, the file's record lock is taken through it, its bytes
   * read through it must satisfy {@code ours}, and the name must still designate it (one {@code
   * lstat}); then the name is unlinked. Bytes that are exactly {@code oursBytes} (the record as
   * published) are told by one positional read, without {@code ours}. No open, and no look before the lock: the look after it is
   * the one that counts. When the descriptor was closed meanwhile (an interrupt closes a channel),
   * or the name designates another file, the attempt is {@link #removeOwn}'s, by name. The
   * descriptor is closed (under the guard) once the outcome is anything but {@link
   * Removal#CONTENDED}, or the file system refused: a later call retries.
   */
  Removal removeKept(Publication.Kept kept, byte[] oursBytes, Predicate<byte[]> ours,
      Duration patience) throws IOException {
    return patiently(patience, () -> {
      Removal outcome = kept.channel().isOpen() ? removeKeptGuarded(kept, oursBytes, ours) : null;
      if (outcome == null) {
        outcome = removeOwnGuarded(ours);
      }
      if (outcome != Removal.CONTENDED) {
        kept.channel().close();
      }
      return outcome;
    });
  }

  /** One attempt of {@link #removeKept} through the descriptor; {@code null}: try by name. */
  private Removal removeKeptGuarded(Publication.Kept kept, byte[] oursBytes,
      Predicate<byte[]> ours) throws IOException {
    FileChannel channel = kept.channel();
    FileLock osLock;
    try {
      osLock = tryLock(channel);
    } catch (ClosedByInterruptException e) {
      throw e;
    } catch (ClosedChannelException e) {
      return null;
    }
    if (osLock == null) {
      return Removal.CONTENDED;
    }
    try {
      if (!holdsExactly(channel, oursBytes) && !ours.test(readBounded(channel))) {
        return Removal.CHANGED;
      }
      // another file at the name (a copy of ours?): null, judged by name, as before
      return unlinkIfStill(kept.fileKey(), null);
    } finally {
      if (osLock.isValid()) {
        osLock.release();
      }
    }
  }

  /** Closes a descriptor of {@link #publishKept} without removing anything, under the guard. */
  void closeKept(Publication.Kept kept) {
    ReentrantLock guard = guard();
    guard.lock();
    try {
      kept.channel().close();
    } catch (IOException e) {
      // closed all the same
    } finally {
      guard.unlock();
    }
  }

  /**
   * The device and inode at {@code path}, not following a link; {@code null} when nothing is there.
   */
  static Object fileKeyAt(Path path) throws IOException {
    try {
      return Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS)
          .fileKey();
    } catch (NoSuchFileException e) {
      return null;
    }
  }

  /**
   * The end of a guarded removal, the lock of the file taken and its content judged ours: unlinks
   * the name when it still names the file {@code key} identifies.
   *
   * @return {@link Removal#REMOVED}; {@link Removal#ABSENT} when nothing is at the name any more;
   *     {@code otherwise} when another file is there (or {@code key} is unknown)
   */
  private Removal unlinkIfStill(Object key, Removal otherwise) throws IOException {
    Object now = fileKeyAt(path);
    if (now == null) {
      return Removal.ABSENT;
    }
    if (key == null || !key.equals(now)) {
      return otherwise;
    }
    removalProbe.beforeUnlink(path);
    try {
      Files.delete(path);
    } catch (NoSuchFileException e) {
      return Removal.ABSENT;
    }
    return Removal.REMOVED;
  }

  /**
   * Whether {@code channel}'s file holds exactly {@code expected}: a positional read of one byte
   * more than expected, whose short answer is the file's end. {@link SemaphoreHold} checks its own
   * record with it too.
   */
  static boolean holdsExactly(FileChannel channel, byte[] expected) throws IOException {
    ByteBuffer buffer = ByteBuffer.allocate(expected.length + 1);
    while (buffer.hasRemaining()) {
      int read = channel.read(buffer, buffer.position());
      if (read < 0 || (read > 0 && buffer.position() >= expected.length)) {
        break;
      }
    }
    return buffer.position() == expected.length
        && Arrays.equals(buffer.array(), 0, expected.length, expected, 0, expected.length);
  }

  /**
   * Whether nothing is at the lockfile's name: one {@code access(2)}, which opens nothing and
   * throws nothing. A shortcut for a claimer that looks before it writes, never a judgement: a
   * dangling symbolic link, or a name this process may not look up, also reads as vacant, and the
   * publication that follows meets what is there.
   */
  boolean isVacant() {
    return !Files.exists(path);
  }

  /** Reads what is at the lockfile's path; see {@link LockReading} for the shapes. */
  public LockReading read() {
    ReentrantLock guard = guard();
    guard.lock();
    try {
      return readUnguarded(path);
    } finally {
      guard.unlock();
    }
  }

  /**
   * Removes the lockfile if its exact content still satisfies {@code expected}, never removing a file
   * put there after the caller's judgement (see the class documentation).
   *
   * @param expected a test on the exact bytes of the file, made under the guard
   * @param patience how long to wait for another remover of the same file; zero tries once
   */
  public Removal removeIf(Predicate<byte[]> expected, Duration patience)
      throws IOException {
    return actIf(expected, patience, () -> Files.delete(path));
  }

  /**
   * Removes the lockfile if it still holds a record of the caller's own acquisition: the owner's
   * release, with one descriptor and no aside link.
   *
   * <p>Sound only because a whole record carries a token that names one acquisition, so at most one
   * file ever holds bytes that {@code ours} accepts, and that file never comes back to the name once
   * removed. The lockfile's name is looked at ({@code stat}), the file opened and locked as in {@link
   * #removeIf}, its bytes checked through the descriptor, and the name looked at again: when it still
   * designates the same device and inode, that is the open file (alive, so its inode number cannot be
   * reused), and no other remover can unlink it while this one holds its lock.
   *
   * @param ours a test on the exact bytes that accepts only records with the caller's own token (a
   *     bare pid, which any process could have written, must be refused). A test that accepts a
   *     few acquisitions of the caller, as {@link FolderSemaphore}'s pid and holder name do, is
   *     sound as long as the caller never holds two of them at once
   * @param patience how long to wait for another remover of the same file; zero tries once
   */
  public Removal removeOwn(Predicate<byte[]> ours, Duration patience) throws IOException {
    return patiently(patience, () -> removeOwnGuarded(ours));
  }

  /**
   * Runs a removal that holds its own descriptor of this lockfile ({@link SemaphoreHold}) with the
   * same guard and patience as {@link #removeOwn}: {@code attempt} runs under this file's JVM guard,
   * is repeated while it answers {@link Removal#CONTENDED} until {@code patience} has passed, and
   * pauses between attempts without the guard.
   */
  Removal removeHeld(Duration patience, Uninterruptible.Work<Removal> attempt) throws IOException {
    return patiently(patience, attempt);
  }

  /**
   * Runs {@code attempt} under this file's JVM guard until it is not {@link Removal#CONTENDED} or
   * {@code patience} has passed, pausing between attempts without the guard: a wait for another
   * process (a reclaimer holding the file's record lock) never holds up the other lockfiles of the
   * guard's stripe, nor this one's readers. Each attempt takes the record lock once, without
   * waiting. Interrupts neither end the wait nor break the attempts ({@link Uninterruptible}).
   */
  private Removal patiently(Duration patience, Uninterruptible.Work<Removal> attempt)
      throws IOException {
    long deadline = System.nanoTime() + patience.toNanos();
    ReentrantLock guard = guard();
    return Uninterruptible.call(() -> {
      long pause = 1;
      while (true) {
        Removal outcome;
        guard.lock();
        try {
          outcome = attempt.run();
        } finally {
          guard.unlock();
        }
        if (outcome != Removal.CONTENDED || System.nanoTime() - deadline >= 0) {
          return outcome;
        }
        Uninterruptible.sleep(Math.min(pause,
            Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()))));
        pause = Math.min(pause * 2, 20);
      }
    });
  }

  private Removal removeOwnGuarded(Predicate<byte[]> ours) throws IOException {
    {
      Object before;
      try {
        BasicFileAttributes attributes =
            Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        if (!attributes.isRegularFile()) {
          return Removal.CHANGED;
        }
        before = attributes.fileKey();
      } catch (NoSuchFileException e) {
        return Removal.ABSENT;
      }
      ReentrantLock own = HolderRecords.releasingOf(before); // see readUnguarded
      if (own != null) {
        own.lock();
      }
      try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ,
          StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS)) {
        if (tryLock(channel) == null) {
          return Removal.CONTENDED;
        }
        if (!ours.test(readBounded(channel))) {
          return Removal.CHANGED;
        }
        return unlinkIfStill(before, Removal.CHANGED);
      } catch (NoSuchFileException e) {
        return Removal.ABSENT;
      } finally {
        if (own != null) {
          own.unlock();
        }
      }
    }
  }

  /**
   * Replaces the lockfile with {@code record} in one atomic rename if its exact content still
   * satisfies {@code expected}, with the same guard as {@link #removeIf}.
   *
   * @return {@link Removal#REMOVED} when the old content was replaced, else what stopped it
   */
  Removal replaceIf(Predicate<byte[]> expected, LockRecord record, Duration patience)
      throws IOException {
    byte[] content = record.toBytes();
    return actIf(expected, patience,
        () -> Publication.replace(path, content, Publication.Durability.VOLATILE));
  }

  private interface Action {
    void run() throws IOException;
  }

  private Removal actIf(Predicate<byte[]> expected, Duration patience, Action action)
      throws IOException {
    return patiently(patience, () -> actGuarded(expected, action));
  }

  private Removal actGuarded(Predicate<byte[]> expected, Action action) throws IOException {
    Path aside = Publication.sibling(path, Publication.ASIDE_MARK);
    try {
      Files.createLink(aside, path);
    } catch (NoSuchFileException e) {
      return Removal.ABSENT;
    } catch (FileSystemException e) {
      // link(2) refuses a directory: whatever sits there is not a lockfile, and it stays.
      if (Files.isDirectory(path, LinkOption.NOFOLLOW_LINKS)) {
        return Removal.CHANGED;
      }
      throw e;
    }
    try {
      BasicFileAttributes asideAttributes =
          Files.readAttributes(aside, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
      if (!asideAttributes.isRegularFile()) {
        return Removal.CHANGED;
      }
      try (FileChannel channel = FileChannel.open(aside, StandardOpenOption.READ,
          StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS)) {
        FileLock osLock = tryLock(channel);
        if (osLock == null) {
          return Removal.CONTENDED;
        }
        byte[] bytes = readBounded(channel);
        if (!expected.test(bytes)) {
          return Removal.CHANGED;
        }
        Object current = fileKeyAt(path);
        if (current == null) {
          return Removal.ABSENT;
        }
        if (!Objects.equals(current, asideAttributes.fileKey())) {
          return Removal.CHANGED;
        }
        removalProbe.beforeUnlink(path);
        try {
          action.run();
        } catch (NoSuchFileException e) {
          return Removal.ABSENT;
        }
        return Removal.REMOVED;
      }
    } finally {
      Files.deleteIfExists(aside);
    }
  }

  /**
   * The record lock of {@code channel}'s file, taken once without waiting, or null when another
   * process (or channel) has it; {@link SemaphoreHold}'s releases take it this way too.
   */
  static FileLock tryLock(FileChannel channel) throws IOException {
    try {
      return channel.tryLock();
    } catch (OverlappingFileLockException e) {
      // Another channel of this JVM holds it (only possible through another LockFile instance, or
      // a hold, outside the guard's stripe, which shares no state): the same as another process.
      return null;
    }
  }

  static LockReading readUnguarded(Path path) {
    BasicFileAttributes attributes;
    try {
      attributes = Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
    } catch (NoSuchFileException e) {
      return new LockReading.Absent();
    } catch (IOException e) {
      return new LockReading.Unreadable(describe(e));
    }
    if (!attributes.isRegularFile()) {
      return new LockReading.NotRegular(kindOf(path, attributes));
    }
    byte[] bytes;
    // A record of this process linked at several names: its descriptor is closed under the
    // record's lock, as its releases lock it (closing any descriptor drops the process's locks).
    ReentrantLock own = HolderRecords.releasingOf(attributes.fileKey());
    if (own != null) {
      own.lock();
    }
    try {
      bytes = Uninterruptible.call(() -> {
        try (FileChannel channel = openForReading(path)) {
          return readBounded(channel);
        }
      });
    } catch (NoSuchFileException e) {
      return new LockReading.Absent();
    } catch (NotRegularFileException e) {
      return new LockReading.NotRegular(e.getMessage());
    } catch (IOException e) {
      return new LockReading.Unreadable(describe(e));
    } finally {
      if (own != null) {
        own.unlock();
      }
    }
    Instant modified = attributes.lastModifiedTime().toInstant();
    if (bytes.length > LockRecord.MAX_BYTES) {
      return new LockReading.Malformed(
          "the file is larger than " + LockRecord.MAX_BYTES + " bytes", bytes, modified);
    }
    try {
      return new LockReading.Present(parseRemembered(bytes), bytes, modified);
    } catch (MalformedRecordException e) {
      return new LockReading.Malformed(e.getMessage(), bytes, modified);
    }
  }

  /** The last record parsed by {@link #parseRemembered}, with the exact bytes it came from. */
  private record Parsed(byte[] bytes, LockRecord record) {}

  private static volatile Parsed lastParsed;

  /**
   * {@link LockRecord#parse}, remembering the last record parsed: a contender that tries again and
   * again while one holder keeps the lock reads the same bytes each time, and parsing them (UTF-8,
   * fields, validation) is most of a refused try's own work. Sound because a record is a pure,
   * immutable function of its bytes, compared whole.
   */
  private static LockRecord parseRemembered(byte[] bytes) throws MalformedRecordException {
    Parsed last = lastParsed;
    if (last != null && Arrays.equals(last.bytes(), bytes)) {
      return last.record();
    }
    LockRecord record = LockRecord.parse(bytes);
    lastParsed = new Parsed(bytes.clone(), record);
    return record;
  }

  /**
   * Opens a file that was a regular file a moment ago without ever blocking: read-write first (a
   * FIFO swapped in meanwhile then opens without waiting for a writer, and fails the seek probe);
   * read-only, when we may not write it, only if nobody but this user or root can swap something
   * into its directory ({@link DirectoryTrust}), since a read-only open of a FIFO would wait for a
   * writer. Otherwise the file reads as unreadable (the lock counts as held), and says why.
   *
   * <p>Why the read-write open failed is never read from the exception's message, which the C
   * library words in the reader's language and the JDK in its own: the exception's type tells what
   * the JDK types ({@link NoSuchFileException}, {@link AccessDeniedException}), and a look at what
   * is there now tells the rest. A name that is no longer a regular file (a symbolic link under
   * {@code O_NOFOLLOW} gives {@code ELOOP}, which the JDK reports as a plain {@link IOException}) is
   * reported as what it is; for a regular file that cannot be opened read-write (a read-only mount,
   * an immutable file, another user's file) the safe read-only open is tried, whatever the cause.
   */
  private static FileChannel openForReading(Path path) throws IOException {
    FileChannel channel;
    try {
      channel = FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE,
          LinkOption.NOFOLLOW_LINKS);
    } catch (NoSuchFileException e) {
      throw e;
    } catch (AccessDeniedException | java.nio.file.ReadOnlyFileSystemException e) {
      readOnlyProbe.refusedReadWrite(path);
      channel = openReadOnlyIfSafe(path, "this process may not write it, or its file system is"
          + " read-only");
    } catch (IOException e) {
      BasicFileAttributes now;
      try {
        now = Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
      } catch (NoSuchFileException gone) {
        throw gone;
      }
      if (!now.isRegularFile()) {
        throw new NotRegularFileException(kindOf(path, now));
      }
      readOnlyProbe.refusedReadWrite(path);
      channel = openReadOnlyIfSafe(path, "the file system refused: " + describe(e));
    }
    try {
      channel.position(0);
    } catch (ClosedByInterruptException e) {
      throw e; // an interrupt arrived meanwhile: the caller repeats the whole read
    } catch (IOException e) {
      channel.close();
      throw new NotRegularFileException("a FIFO or other unseekable file");
    }
    return channel;
  }

  /** The read-only open of {@link #openForReading}, relative to the directory it judged. */
  private static FileChannel openReadOnlyIfSafe(Path path, String why) throws IOException {
    Path directory = path.getParent();
    try (DirectoryStream<Path> stream = DirectoryListing.open(directory)) {
      if (stream instanceof SecureDirectoryStream<Path> secure
          && DirectoryTrust.onlyThisUserOrRootMayChange(secure, directory)
          && secure.newByteChannel(path.getFileName(), Set.of(StandardOpenOption.READ,
              LinkOption.NOFOLLOW_LINKS)) instanceof FileChannel channel) {
        return channel;
      }
    }
    throw new IOException(path + " cannot be opened read-write (" + why + "), and it is not"
        + " opened read-only because users other than this one and root may change " + directory
        + " (a FIFO swapped in would block the reader): let this user write it, or keep the"
        + " directory to this user or root");
  }

  /**
   * Writes {@code content} whole from the file's start, by positional writes (the descriptor's
   * position is not used): a semaphore's record, written for a hold or for {@link HolderRecords}.
   */
  static void writeWhole(FileChannel channel, byte[] content) throws IOException {
    ByteBuffer buffer = ByteBuffer.wrap(content);
    while (buffer.hasRemaining()) {
      channel.write(buffer, buffer.position());
    }
  }

  /** Reads a record from its start: at most one byte past the longest record, whatever the file's length. */
  static byte[] readBounded(FileChannel channel) throws IOException {
    ByteBuffer buffer = ByteBuffer.allocate(LockRecord.MAX_BYTES + 1);
    long position = 0;
    while (buffer.hasRemaining()) {
      int read = channel.read(buffer, position);
      if (read < 0) {
        break;
      }
      position += read;
    }
    return Arrays.copyOf(buffer.array(), buffer.position());
  }

  /** What an entry that is not a regular file is, in words. */
  static String kindOf(Path path, BasicFileAttributes attributes) {
    if (attributes.isSymbolicLink()) {
      return "a symbolic link";
    }
    if (attributes.isDirectory()) {
      return "a directory";
    }
    try {
      Object mode = Files.getAttribute(path, "unix:mode", LinkOption.NOFOLLOW_LINKS);
      if (mode instanceof Integer bits) {
        return switch (bits & 0170000) {
          case 0010000 -> "a FIFO";
          case 0140000 -> "a socket";
          case 0020000 -> "a character device";
          case 0060000 -> "a block device";
          default -> "a special file";
        };
      }
    } catch (IOException | UnsupportedOperationException e) {
      // fall through
    }
    return "a special file";
  }

  static String describe(IOException e) {
    String message = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    if (e instanceof AccessDeniedException) {
      return "permission denied: " + message;
    }
    return message;
  }

  private ReentrantLock guard() {
    return GUARDS[stripeOf(path)];
  }

  /** The guard stripe of {@code path}. */
  static int stripeOf(Path path) {
    return Math.floorMod(path.hashCode(), GUARDS.length);
  }

  /** Thrown inside this class when a file turns out not to be regular once opened. */
  private static final class NotRegularFileException extends IOException {
    NotRegularFileException(String kind) {
      super(kind);
    }
  }
}
