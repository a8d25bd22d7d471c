package dev.cryo.lock;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributeView;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * One taken {@link FolderSemaphore}, as its taker holds it: the folder's descriptor (to work in the
 * folder it took, whatever is later put at the folder's name) and the lockfile's descriptor (so that
 * the release is a check, an unlink and a close, with no path resolved again).
 *
 * <p>Made by {@link FolderSemaphore#take}. {@link #release} gives the semaphore back through these
 * descriptors with the guarantees of {@link LockFile#removeOwn}: under the lockfile's JVM guard and
 * its kernel record lock (taken once, without waiting: a remover of another process at work on the
 * same file makes the release wait for it, up to the same patience), the bytes are read through
 * the held descriptor and must be this hold's record, and the name must still designate the held
 * file; only then is the name unlinked, relative to the folder. A descriptor closed by an interrupt
 * is opened again relative to the folder, so that an interrupted thread still releases (and keeps
 * its interrupt flag, {@link Uninterruptible}).
 *
 * <p>A hold taken with {@link HolderRecords} ({@link #publishLinked}) has no file of its own: its
 * lockfile is a link of its process's record for the holder name. Its release takes the kernel
 * record lock through the record's descriptor (kept open while the record's holds last), checks
 * by one look that the name still designates the record as published (inode, length and
 * modification time, no byte read) and unlinks the name, which frees no inode.
 *
 * <p>Thread-safe: {@link #release} and {@link #directory} may be called from any thread, and a
 * release runs once (a second call, after a successful one, is refused as not held).
 */
public final class SemaphoreHold {

  private static final System.Logger LOG = System.getLogger(SemaphoreHold.class.getName());
  private static final Path LOCK_NAME = Path.of(FolderSemaphore.FILE_NAME);
  private static final Set<java.nio.file.OpenOption> CREATE_PRIVATE = Set.of(
      StandardOpenOption.CREATE_NEW, StandardOpenOption.READ, StandardOpenOption.WRITE,
      LinkOption.NOFOLLOW_LINKS);
  private static final java.nio.file.attribute.FileAttribute<?> PRIVATE_FILE =
      java.nio.file.attribute.PosixFilePermissions.asFileAttribute(
          java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));

  private final Path folder;
  private final SecureDirectoryStream<Path> directory;
  private final LockRecord record;
  private final byte[] recordBytes;
  private final Object fileKey;
  private FileChannel channel; // guarded by this
  private boolean released; // guarded by this
  private Object folderKey; // guarded by this: the folder's device and inode, once known
  private Path recycledAs; // guarded by this: the spare name the folder was moved to by a release
  private SpareFolders recycleInto; // guarded by this: the pool the release in progress recycles into
  private Set<String> vouched = Set.of(); // guarded by this: the emptied files the release may carry
  private List<String> carriedOut = List.of(); // guarded by this: those the recycled folder carries
  private final List<String> carried;
  /** The record of {@link HolderRecords} this hold linked, or {@code null} for a file of its own. */
  private final HolderRecords.Published linked;
  private final HolderRecords records;
  private boolean pinned; // guarded by this: whether this hold still counts in its record's pins

  /**
   * A take that cannot link a record of {@link HolderRecords} (no records' directory, a record the
   * file system refuses to link again): the take goes the usual way. Thrown without a trace.
   */
  static final class Unlinkable extends Exception {
    private static final long serialVersionUID = 1L;
    static final Unlinkable INSTANCE = new Unlinkable();

    private Unlinkable() {
      super("the semaphore record cannot be linked", null, false, false);
    }
  }

  /** A hold whose folder's own identity is known already ({@code null}: looked up when needed). */
  SemaphoreHold(Path folder, SecureDirectoryStream<Path> directory, FileChannel channel,
      Object fileKey, LockRecord record, Object folderKey) {
    this(folder, directory, channel, fileKey, record, folderKey, List.of());
  }

  /** A hold of a folder that came from a spare carrying the emptied files {@code carried}. */
  SemaphoreHold(Path folder, SecureDirectoryStream<Path> directory, FileChannel channel,
      Object fileKey, LockRecord record, Object folderKey, List<String> carried) {
    this(folder, directory, channel, fileKey, record, record.toBytes(), folderKey, carried);
  }

  /** A hold whose record's bytes, as published, are at hand already (not copied). */
  private SemaphoreHold(Path folder, SecureDirectoryStream<Path> directory, FileChannel channel,
      Object fileKey, LockRecord record, byte[] recordBytes, Object folderKey,
      List<String> carried) {
    this.carried = List.copyOf(carried);
    this.folder = folder;
    this.directory = directory;
    this.channel = channel;
    this.fileKey = Objects.requireNonNull(fileKey, "fileKey");
    this.record = record;
    this.recordBytes = recordBytes;
    this.folderKey = folderKey;
    this.linked = null;
    this.records = null;
  }

  /** A hold whose lockfile is a link of {@code linked}, a record of {@code records}. */
  private SemaphoreHold(Path folder, SecureDirectoryStream<Path> directory,
      HolderRecords.Published linked, HolderRecords records, Object folderKey,
      List<String> carried) {
    this.carried = List.copyOf(carried);
    this.folder = folder;
    this.directory = directory;
    this.channel = null;
    this.fileKey = linked.fileKey;
    this.record = linked.record;
    this.recordBytes = linked.bytes;
    this.folderKey = folderKey;
    this.linked = linked;
    this.records = records;
    this.pinned = true;
  }

  /**
   * Publishes the record of {@code holder} kept by {@code records} as the folder's lockfile, by one
   * {@code link(2)} of the record's file to the lockfile's name (never replacing a lockfile; the
   * record was written whole before it was ever linked), then checked to be the file now at that
   * name in the folder held.
   *
   * @return the hold, or {@code null} when a lockfile is already there (nothing was left behind)
   * @throws Unlinkable when no record can be linked (the records' directory is unusable, the file
   *     system refuses another link): nothing was published, the caller takes the usual way
   * @throws LockValidationException {@link LockException.Reason#DIRECTORY_DISAPPEARED} when the
   *     folder's name is gone; {@link LockException.Reason#NOT_A_DIRECTORY} when the record landed
   *     in another folder than the one held (the link is left there: it names this process)
   */
  static SemaphoreHold publishLinked(Path folder, SecureDirectoryStream<Path> directory,
      Object folderKey, HolderRecords records, String holder)
      throws LockException, Unlinkable {
    Path lockPath = folder.resolve(FolderSemaphore.FILE_NAME);
    for (int attempt = 0; attempt < 2; attempt++) {
      HolderRecords.Published published = pinned(records, holder);
      if (published == null) {
        continue; // its file is gone from its name: a fresh one
      }
      boolean kept = false;
      try {
        try {
          Files.createLink(lockPath, published.path);
        } catch (FileAlreadyExistsException e) {
          return null;
        } catch (NoSuchFileException e) {
          if (published.isAtItsPlace()) {
            throw disappeared(folder, lockPath, e);
          }
          records.retire(published); // removed by hand, or wiped: a fresh one
          continue;
        } catch (IOException e) {
          records.retire(published); // too many links, or refused: a fresh one next time
          throw Unlinkable.INSTANCE;
        }
        SemaphoreHold hold = landedHold(folder, directory, folderKey, records, published);
        kept = hold != null;
        if (kept) {
          return hold;
        }
      } finally {
        if (!kept) {
          published.unpin();
        }
      }
    }
    throw Unlinkable.INSTANCE;
  }

  /**
   * The record of {@code holder}, its descriptor pinned for one more hold; {@code null} when its
   * file is gone from its name (it is retired).
   *
   * @throws Unlinkable when no record can be published or opened
   */
  private static HolderRecords.Published pinned(HolderRecords records, String holder)
      throws Unlinkable {
    HolderRecords.Published published;
    try {
      published = records.publishedFor(holder);
    } catch (IOException e) {
      LOG.log(Level.DEBUG, "no semaphore record in {0}: {1}", records.directory(), e);
      throw Unlinkable.INSTANCE;
    }
    try {
      published.pin();
      return published;
    } catch (IOException e) {
      records.retire(published);
      if (published.isAtItsPlace()) {
        throw Unlinkable.INSTANCE; // there, but refused
      }
      return null;
    }
  }

  /**
   * After the link: the hold when the record landed in the folder held; {@code null} when a
   * stranger's file at the record's name was linked instead (undone, the record retired).
   *
   * @throws LockValidationException when the link landed in another folder than the one held
   */
  private static SemaphoreHold landedHold(Path folder, SecureDirectoryStream<Path> directory,
      Object folderKey, HolderRecords records, HolderRecords.Published published)
      throws LockException {
    Path lockPath = folder.resolve(FolderSemaphore.FILE_NAME);
    Object landed;
    try {
      landed = lockKeyIn(directory);
    } catch (IOException e) {
      throw new LockValidationException(LockException.Reason.IO_FAILURE, lockPath,
          "linked the semaphore record at " + lockPath + " but could not look at it in the"
              + " folder held: " + LockFile.describe(e) + "; it stays until this process is"
              + " gone", e);
    }
    if (published.fileKey.equals(landed)) {
      return new SemaphoreHold(folder, directory, published, records, folderKey, List.of());
    }
    if (!published.isAtItsPlace()) {
      // Another file was put at the record's name, and that is what was linked: undone when it
      // still holds what was there, and a fresh record of our own taken instead.
      records.retire(published);
      unlinkStranger(lockPath);
      return null;
    }
    throw new LockValidationException(LockException.Reason.NOT_A_DIRECTORY, lockPath,
        "the folder " + folder + " was replaced while its semaphore was taken: the record"
            + " was linked somewhere else than the folder opened, and is left there (it"
            + " names this process, and goes once this process is gone); nothing was taken:"
            + " find who changes the freezer's folders");
  }

  /**
   * Removes the lockfile this take just linked from a stranger's file found at its record's name,
   * when it still holds the bytes read now (never a record somebody put there since).
   */
  private static void unlinkStranger(Path lockPath) {
    LockFile file = LockFile.ofCanonical(lockPath);
    LockReading reading = file.read();
    try {
      if (reading instanceof LockReading.Present present) {
        file.removeIf(present::sameBytes, java.time.Duration.ZERO);
      } else if (reading instanceof LockReading.Malformed malformed) {
        file.removeIf(malformed::sameBytes, java.time.Duration.ZERO);
      }
    } catch (IOException e) {
      LOG.log(Level.WARNING, "could not undo the link of a stranger''s file at {0}: {1}",
          lockPath, e);
    }
  }

  /**
   * Publishes {@code record} as the folder's lockfile, relative to the folder held: the record
   * written whole into a fresh temporary (exclusive create, 0600), hard-linked to the lockfile's
   * name, checked to be the file now at that name in the folder held (a link resolves the path
   * again, which the folder's descriptor must agree with), and the temporary's name removed. The
   * temporary's descriptor becomes the hold's.
   *
   * @return the hold, or {@code null} when a lockfile is already there (nothing was left behind)
   * @throws LockValidationException {@link LockException.Reason#DIRECTORY_DISAPPEARED} when the
   *     folder's name is gone; {@link LockException.Reason#NOT_A_DIRECTORY} when the record landed
   *     in another folder than the one held (the folder was swapped meanwhile);
   *     {@link LockException.Reason#IO_FAILURE} when the file system refused (nothing was
   *     published)
   */
  static SemaphoreHold publish(Path folder, SecureDirectoryStream<Path> directory,
      Object folderKey, LockRecord record) throws LockException {
    Path lockPath = folder.resolve(FolderSemaphore.FILE_NAME);
    Path temporary = Publication.sibling(lockPath, Publication.TEMPORARY_MARK).getFileName();
    FileChannel channel;
    Object key;
    byte[] bytes = record.toBytes();
    try {
      channel = Uninterruptible.call(() -> writeTemporary(directory, temporary, bytes));
    } catch (NoSuchFileException e) {
      throw disappeared(folder, lockPath, e);
    } catch (IOException e) {
      throw new LockValidationException(LockException.Reason.IO_FAILURE, lockPath,
          "could not publish a record at " + lockPath + ": " + LockFile.describe(e)
              + "; the lock was not taken and nothing was left behind: check the directory's"
              + " permissions and free space", e);
    }
    boolean kept = false;
    try {
      key = directory.getFileAttributeView(temporary, BasicFileAttributeView.class,
          LinkOption.NOFOLLOW_LINKS).readAttributes().fileKey();
      try {
        Files.createLink(lockPath, folder.resolve(temporary));
      } catch (FileAlreadyExistsException e) {
        return null;
      } catch (NoSuchFileException e) {
        throw disappeared(folder, lockPath, e);
      }
      Object landed = lockKeyIn(directory);
      if (!key.equals(landed)) {
        throw new LockValidationException(LockException.Reason.NOT_A_DIRECTORY, lockPath,
            "the folder " + folder + " was replaced while its semaphore was taken: the record"
                + " was linked somewhere else than the folder opened, and is left there (it"
                + " names this process, and goes once this process is gone); nothing was taken:"
                + " find who changes the freezer's folders");
      }
      kept = true;
      return new SemaphoreHold(folder, directory, channel, key, record, bytes, folderKey,
          List.of());
    } catch (IOException e) {
      throw new LockValidationException(LockException.Reason.IO_FAILURE, lockPath,
          "could not publish a record at " + lockPath + ": " + LockFile.describe(e)
              + "; the lock was not taken: check the directory's permissions and free space", e);
    } finally {
      try {
        directory.deleteFile(temporary);
      } catch (IOException e) {
        LOG.log(Level.WARNING, "could not remove the temporary {0} in {1}: {2} (it goes once"
            + " this process is gone)", temporary, folder, e);
      }
      if (!kept) {
        try {
          channel.close();
        } catch (IOException e) {
          // nothing was published through it
        }
      }
    }
  }

  /**
   * Publishes {@code record} by a spare folder of {@code spares}, for a folder found missing: the
   * record written whole into the spare's fresh lockfile (exclusive create, 0600; nobody reads a
   * spare), the spare renamed to the folder's name, then checked to be the directory now at that
   * name and to hold that lockfile. The spare's descriptor becomes the hold's folder descriptor.
   *
   * @return the hold, or {@code null} when the pool has no spare, the spare vanished, or the name
   *     was taken meanwhile (a folder with anything in it, a file, a link: the rename changed
   *     nothing); the caller then takes the usual way. The spare, when still usable, goes back to
   *     the pool.
   * @throws LockValidationException {@link LockException.Reason#NOT_A_DIRECTORY} when, right after
   *     the rename, something else than the spare stands at the folder's name (the folder was
   *     moved away with the record in it; nothing was taken)
   */
  static SemaphoreHold publishBySpare(Path folder, SpareFolders spares, LockRecord record)
      throws LockException {
    return publishBySpare(folder, spares, record, null, null);
  }

  /**
   * Publishes by a spare folder as {@link #publishBySpare(Path, SpareFolders, LockRecord)} does;
   * when {@code linked} is given, the spare's lockfile is a link of that record of {@code records}
   * (checked to have landed in the spare opened) instead of a file written for this hold.
   *
   * @param record the record to write, when {@code linked} is {@code null}
   */
  static SemaphoreHold publishBySpare(Path folder, SpareFolders spares, LockRecord record,
      HolderRecords.Published linked, HolderRecords records) throws LockException {
    SpareFolders.Spare spare = spares.poll();
    if (spare == null) {
      return null;
    }
    SecureDirectoryStream<Path> directory;
    FileChannel channel = null;
    byte[] bytes = linked == null ? record.toBytes() : linked.bytes;
    try {
      NoFollowDirectory.Opened opened = NoFollowDirectory.openKeyed(spare.path());
      directory = opened.directory();
      if (!spare.fileKey().equals(opened.fileKey())) {
        closeQuietly(directory);
        return null; // another directory under a spare's name: not ours to use
      }
    } catch (IOException e) {
      return null; // gone (a wipe, a hand): not a spare any more
    }
    Object key;
    if (linked != null) {
      key = linkIntoSpare(spare, directory, linked, records, spares);
      if (key == null) {
        closeQuietly(directory);
        return null;
      }
    } else {
      try {
        channel = Uninterruptible.call(() -> writeTemporary(directory, LOCK_NAME, bytes));
      } catch (IOException e) {
        closeQuietly(directory); // not empty of a lockfile, or refused: not a spare any more
        return null;
      }
      key = null;
    }
    boolean kept = false;
    try {
      if (key == null) {
        key = directory.getFileAttributeView(LOCK_NAME, BasicFileAttributeView.class,
            LinkOption.NOFOLLOW_LINKS).readAttributes().fileKey();
      }
      try {
        Files.move(spare.path(), folder, StandardCopyOption.ATOMIC_MOVE);
      } catch (IOException e) {
        // Something is at the name (a folder with anything in it, a file, a link), or the spare
        // vanished: nothing was moved. Back to the pool, emptied of the record nobody saw.
        if (channel != null) {
          channel.close();
        }
        try {
          directory.deleteFile(LOCK_NAME);
          spares.offer(spare);
        } catch (IOException gone) {
          // not a spare any more
        }
        return null;
      }
      Object named = LockFile.fileKeyAt(folder);
      Object landed = lockKeyIn(directory);
      if (!spare.fileKey().equals(named)) {
        throw new LockValidationException(LockException.Reason.NOT_A_DIRECTORY,
            folder.resolve(FolderSemaphore.FILE_NAME), "the folder " + folder + " was replaced"
                + " right after it was made: the record went with the folder made, and is left"
                + " there (it names this process, and goes once this process is gone); nothing"
                + " was taken: find who changes the freezer's folders");
      }
      if (!key.equals(landed)) {
        // The record was removed from the spare before it was renamed (by hand): the folder is
        // there without a lock, and the usual take takes it.
        return null;
      }
      kept = true;
      return linked != null
          ? new SemaphoreHold(folder, directory, linked, records, spare.fileKey(), spare.files())
          : new SemaphoreHold(folder, directory, channel, key, record, bytes, spare.fileKey(),
              spare.files());
    } catch (IOException e) {
      throw new LockValidationException(LockException.Reason.IO_FAILURE,
          folder.resolve(FolderSemaphore.FILE_NAME), "could not publish a record at "
              + folder.resolve(FolderSemaphore.FILE_NAME) + ": " + LockFile.describe(e)
              + "; the lock was not taken: check the directory's permissions and free space", e);
    } finally {
      if (!kept) {
        if (channel != null) {
          try {
            channel.close();
          } catch (IOException e) {
            // nothing was published through it
          }
        }
        if (linked != null) {
          linked.unpin();
        }
        closeQuietly(directory);
      }
    }
  }

  /**
   * Pins {@code linked} and links it as the spare's lockfile ({@link #linkPinnedIntoSpare}); the
   * pin is given back when that fails.
   */
  private static Object linkIntoSpare(SpareFolders.Spare spare,
      SecureDirectoryStream<Path> directory, HolderRecords.Published linked,
      HolderRecords records, SpareFolders spares) {
    try {
      linked.pin();
    } catch (IOException e) {
      records.retire(linked);
      spares.offer(spare);
      return null;
    }
    Object key = linkPinnedIntoSpare(spare, directory, linked, records, spares);
    if (key == null) {
      linked.unpin();
    }
    return key;
  }

  /**
   * Links {@code linked} as the spare's lockfile and checks it landed in the spare opened; nobody
   * reads a spare, so a link that did not land right is simply undone.
   *
   * @return the record's file key, or {@code null} when the spare cannot be used this way (it
   *     goes back to the pool when it is still a spare)
   */
  private static Object linkPinnedIntoSpare(SpareFolders.Spare spare,
      SecureDirectoryStream<Path> directory, HolderRecords.Published linked,
      HolderRecords records, SpareFolders spares) {
    try {
      Files.createLink(spare.path().resolve(LOCK_NAME), linked.path);
    } catch (FileAlreadyExistsException e) {
      return null; // not empty of a lockfile: not a spare any more
    } catch (IOException e) {
      if (!linked.isAtItsPlace()) {
        records.retire(linked);
      } else if (!(e instanceof NoSuchFileException)) {
        records.retire(linked); // too many links, or refused: a fresh one next time
      }
      return null; // the spare vanished, or the record cannot be linked: the usual take
    }
    try {
      Object landed = directory.getFileAttributeView(LOCK_NAME, BasicFileAttributeView.class,
          LinkOption.NOFOLLOW_LINKS).readAttributes().fileKey();
      if (linked.fileKey.equals(landed)) {
        return landed;
      }
    } catch (IOException e) {
      // gone: undone below
    }
    // Another file at the record's name (linked instead of ours), or another directory at the
    // spare's name: undo the link, relative to the spare opened when it landed there.
    if (!linked.isAtItsPlace()) {
      records.retire(linked);
    }
    try {
      directory.deleteFile(LOCK_NAME);
      spares.offer(spare);
    } catch (IOException e) {
      // not in the spare opened: the spare's name is somebody else's, not ours to touch
    }
    return null;
  }

  /** The identity of the lockfile in {@code directory}, not followed; {@code null} when absent. */
  private static Object lockKeyIn(SecureDirectoryStream<Path> directory) throws IOException {
    try {
      return directory.getFileAttributeView(LOCK_NAME, BasicFileAttributeView.class,
          LinkOption.NOFOLLOW_LINKS).readAttributes().fileKey();
    } catch (NoSuchFileException e) {
      return null;
    }
  }

  private static void closeQuietly(SecureDirectoryStream<Path> directory) {
    try {
      directory.close();
    } catch (IOException e) {
      // nothing was done through it
    }
  }

  /** A fresh temporary holding {@code content}, written whole; nothing is left when it fails. */
  private static FileChannel writeTemporary(SecureDirectoryStream<Path> directory, Path temporary,
      byte[] content) throws IOException {
    FileChannel channel = (FileChannel) directory.newByteChannel(temporary, CREATE_PRIVATE,
        PRIVATE_FILE);
    boolean complete = false;
    try {
      ByteBuffer buffer = ByteBuffer.wrap(content);
      while (buffer.hasRemaining()) {
        channel.write(buffer, buffer.position());
      }
      complete = true;
      return channel;
    } finally {
      if (!complete) {
        channel.close();
        try {
          directory.deleteFile(temporary);
        } catch (NoSuchFileException e) {
          // already gone
        }
      }
    }
  }

  /**
   * The hold of a lockfile the claim of {@link FolderSemaphore#tryTake} published by path: opened
   * relative to the folder held, and checked to hold {@code record}.
   *
   * @throws LockBusyException when what is there now is not {@code record} (broken and taken by
   *     another meanwhile)
   */
  static SemaphoreHold adopt(Path folder, SecureDirectoryStream<Path> directory,
      Object folderKey, LockRecord record) throws IOException, LockBusyException {
    Path lockPath = folder.resolve(FolderSemaphore.FILE_NAME);
    FileChannel channel;
    try {
      channel = Uninterruptible.call(() -> (FileChannel) directory.newByteChannel(LOCK_NAME,
          Set.of(StandardOpenOption.READ, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS)));
    } catch (NoSuchFileException e) {
      throw new LockBusyException(lockPath, null, "it was removed right after it was taken");
    }
    boolean kept = false;
    try {
      Object key = directory.getFileAttributeView(LOCK_NAME, BasicFileAttributeView.class,
          LinkOption.NOFOLLOW_LINKS).readAttributes().fileKey();
      byte[] bytes = Uninterruptible.call(() -> LockFile.readBounded(channel));
      if (!Claim.isOurs(bytes, record)) {
        throw new LockBusyException(lockPath, null, "another holder took it right after this one");
      }
      kept = true;
      return new SemaphoreHold(folder, directory, channel, key, record, folderKey);
    } finally {
      if (!kept) {
        channel.close();
      }
    }
  }

  private static LockValidationException disappeared(Path folder, Path lockPath,
      IOException e) {
    return new LockValidationException(LockException.Reason.DIRECTORY_DISAPPEARED, lockPath,
        "the directory " + folder + " disappeared while its lock was being acquired; nothing was"
            + " left behind: recreate it and retry", e);
  }

  /** The folder's path, as given to {@link FolderSemaphore#take}; for messages. */
  public Path folder() {
    return folder;
  }

  /**
   * The folder's descriptor: every file operation in the folder goes relative to it while the
   * semaphore is held. Closed by a successful {@link #release}; the caller never closes it, nor
   * lists through it (the release lists the folder through it, once).
   */
  public SecureDirectoryStream<Path> directory() {
    return directory;
  }

  /**
   * The emptied files the folder carried in when it was taken from a spare ({@link SpareFolders}:
   * names of its {@link SpareFolders#PREFIX} start, vouched for by the release that recycled it),
   * for the holder to reuse; empty when the folder was not a spare.
   */
  public List<String> carriedFiles() {
    return carried;
  }

  /** The record this hold published. */
  public LockRecord record() {
    return record;
  }

  /**
   * Whether {@code holder} is the name this hold was taken for, as the record keeps it (sanitised
   * and bounded).
   */
  public boolean isHeldBy(String holder) {
    return LockRecord.sanitize(Objects.requireNonNull(holder, "holder")).equals(record.holder());
  }

  /**
   * Gives the semaphore back, and then removes the folder when {@code keepFolder} is false and
   * nothing else is left in it (as {@link FolderSemaphore#release} does). A caller that knows the
   * folder holds more (it wrote parcels in it) passes {@code true} and saves the attempt.
   *
   * @throws LockValidationException with {@link LockException.Reason#HOLDER_MISMATCH} when the
   *     lockfile is no longer this hold's record (somebody broke or replaced it: nothing is
   *     removed), {@link LockException.Reason#RELEASE_REFUSED} when another remover kept it busy
   *     past the patience (the hold stays; release again) or the file system refused
   */
  public synchronized void release(boolean keepFolder) throws LockException {
    release(keepFolder, null);
  }

  /**
   * Gives the semaphore back as {@link #release(boolean)} does, and, when {@code keepFolder} is
   * false and the folder holds nothing but the lockfile, keeps the folder for a later take instead
   * of removing it: while the lock is still held (nobody takes the folder meanwhile), the folder is
   * renamed to a fresh spare name of {@code spares} (checked, before and after, to be the directory
   * held), the lockfile is removed inside it, and the spare goes to the pool. The folder's name is
   * free afterwards exactly as after a removal. A folder with anything else in it stays, as with
   * {@link #release(boolean)}.
   *
   * @param spares the pool of the folder's parent, or {@code null} for none
   * @throws LockValidationException as {@link #release(boolean)}
   */
  public synchronized void release(boolean keepFolder, SpareFolders spares) throws LockException {
    release(keepFolder, spares, Set.of());
  }

  /**
   * Gives the semaphore back as {@link #release(boolean, SpareFolders)} does, and lets the recycled
   * folder carry the emptied files the caller vouches for: when the folder holds nothing but the
   * lockfile and files of {@link SpareFolders#PREFIX} names, those named in {@code emptied} go
   * with the spare (for {@link #carriedFiles} of its next taker), and the others, which nobody
   * vouches for (what a crash between a dropper's rename and its emptying left), are removed first.
   * When the folder is not recycled, its spare files are removed with it as the usual release does.
   *
   * @param emptied the names of spare files in the folder that the caller emptied itself (or took
   *     in with {@link #carriedFiles} and left untouched)
   * @throws LockValidationException as {@link #release(boolean)}
   */
  public synchronized void release(boolean keepFolder, SpareFolders spares, Set<String> emptied)
      throws LockException {
    vouched = Objects.requireNonNull(emptied, "emptied");
    recycleInto = keepFolder || spares == null || !spares.keepsAny() ? null : spares;
    if (released) {
      throw new LockValidationException(LockException.Reason.HOLDER_MISMATCH, lockPath(),
          "the semaphore " + lockPath() + " was already released by this hold");
    }
    LockFile file = LockFile.ofCanonical(lockPath());
    LockFile.Removal outcome;
    try {
      outcome = file.removeHeld(ProcessLock.RELEASE_PATIENCE, this::removeOnce);
    } catch (IOException e) {
      throw new LockValidationException(LockException.Reason.RELEASE_REFUSED, lockPath(),
          "the file system refused to remove " + lockPath() + ": " + LockFile.describe(e)
              + "; the semaphore is still held: fix the cause and release again", e);
    }
    if (outcome == LockFile.Removal.CONTENDED) {
      throw new LockValidationException(LockException.Reason.RELEASE_REFUSED, lockPath(),
          "the semaphore " + lockPath() + " stayed busy with another remover during its release;"
              + " it is still held: release again");
    }
    released = true;
    closeChannel();
    unpin();
    try {
      if (outcome != LockFile.Removal.REMOVED) {
        throw new LockValidationException(LockException.Reason.HOLDER_MISMATCH, lockPath(),
            "release of " + folder + " by '" + record.holder() + "' refused: the semaphore is "
                + Claim.describe(file.read()) + " (" + outcome.name().toLowerCase(
                    java.util.Locale.ROOT) + " since it was taken); it was left as it is");
      }
      if (!keepFolder && recycledAs == null) {
        FolderSemaphore.removeFolderIfEmpty(folder, file);
      }
    } finally {
      closeDirectory(); // a late call through this hold fails: it never reaches the spare
      if (recycledAs != null) {
        recycleInto.offer(new SpareFolders.Spare(recycledAs, folderKey, carriedOut));
      }
    }
  }

  /**
   * Under the release's guard, the record and the name checked: moves the folder to a fresh spare
   * name when it holds nothing but the lockfile and its name still designates the directory held.
   * Anything else leaves it where it is, for the usual release.
   */
  private void moveToSpare() {
    try {
      // The held descriptor's own listing, read once (nothing else lists through it; a second
      // listing is refused with an IllegalStateException, and the folder then stays).
      List<String> carry = new ArrayList<>();
      List<String> strangers = new ArrayList<>();
      for (Path entry : directory) {
        String name = entry.getFileName().toString();
        if (LOCK_NAME.equals(entry.getFileName())) {
          continue;
        }
        if (!SpareFolders.isSpareName(name)) {
          return; // parcels, a note, a taker's temporary: the folder stays
        }
        (vouched.contains(name) ? carry : strangers).add(name);
      }
      for (String stranger : strangers) {
        try {
          directory.deleteFile(Path.of(stranger)); // nobody vouches for what it holds
        } catch (NoSuchFileException e) {
          // gone already
        }
      }
      if (folderKey == null) {
        folderKey = directory.getFileAttributeView(BasicFileAttributeView.class).readAttributes()
            .fileKey();
      }
      if (folderKey == null || !folderKey.equals(LockFile.fileKeyAt(folder))) {
        return; // another directory stands at the name: not ours to move
      }
      Path spare = recycleInto.freshName();
      Files.move(folder, spare, StandardCopyOption.ATOMIC_MOVE);
      if (folderKey.equals(LockFile.fileKeyAt(spare))) {
        recycledAs = spare;
        carriedOut = carry;
        return;
      }
      // Something else was moved (the name changed between the look and the rename): put it back.
      try {
        Files.move(spare, folder, StandardCopyOption.ATOMIC_MOVE);
      } catch (IOException e) {
        LOG.log(Level.WARNING, "a directory put at {0} during its release was moved to {1} and"
            + " could not be moved back: {2}", folder, spare, e);
      }
    } catch (IOException | RuntimeException e) {
      // The folder stays where it is: the usual release removes what it can.
    }
  }

  /** One guarded attempt: lock, check the bytes and the name, unlink relative to the folder. */
  private LockFile.Removal removeOnce() throws IOException {
    if (linked != null) {
      return removeLinkOnce();
    }
    FileChannel held = channel;
    if (held == null || !held.isOpen()) {
      try {
        held = (FileChannel) directory.newByteChannel(LOCK_NAME, Set.of(StandardOpenOption.READ,
            StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS));
      } catch (NoSuchFileException e) {
        return LockFile.Removal.ABSENT;
      }
      channel = held;
    }
    FileLock osLock;
    try {
      osLock = held.tryLock();
    } catch (OverlappingFileLockException e) {
      return LockFile.Removal.CONTENDED; // another channel of this JVM, outside the guard's stripe
    }
    if (osLock == null) {
      return LockFile.Removal.CONTENDED;
    }
    try {
      if (!LockFile.holdsExactly(held, recordBytes)) {
        return LockFile.Removal.CHANGED;
      }
      Object now;
      try {
        now = directory.getFileAttributeView(LOCK_NAME, BasicFileAttributeView.class,
            LinkOption.NOFOLLOW_LINKS).readAttributes().fileKey();
      } catch (NoSuchFileException e) {
        return LockFile.Removal.ABSENT;
      }
      if (!fileKey.equals(now)) {
        return LockFile.Removal.CHANGED;
      }
      if (recycleInto != null) {
        moveToSpare();
      }
      LockFile.removalProbe.beforeUnlink(lockPath());
      try {
        directory.deleteFile(LOCK_NAME);
      } catch (NoSuchFileException e) {
        return LockFile.Removal.ABSENT;
      } catch (IOException e) {
        putBack();
        throw e;
      }
      return LockFile.Removal.REMOVED;
    } finally {
      if (osLock.isValid()) {
        osLock.release();
      }
    }
  }

  /**
   * One guarded attempt for a hold whose lockfile is a link of a {@link HolderRecords} record:
   * under the record's JVM lock, the kernel record lock taken through the record's kept descriptor;
   * the name checked by one look to designate the record's file, as published (same inode, length
   * and modification time: a rewrite through any link changes the time); then unlinked relative to
   * the folder. No byte is read: the inode, kept open, cannot have been freed and reused. A kept
   * descriptor closed meanwhile (an interrupt) retires the record, and the check is made through
   * a descriptor opened relative to the folder, with the record's bytes.
   */
  private LockFile.Removal removeLinkOnce() throws IOException {
    linked.releasing.lock();
    try {
      FileChannel held = linked.channel();
      boolean own = false;
      if (held == null) {
        records.retire(linked); // its file is gone from its name: a fresh one for the next take
        try {
          held = (FileChannel) directory.newByteChannel(LOCK_NAME, Set.of(
              StandardOpenOption.READ, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS));
        } catch (NoSuchFileException e) {
          return LockFile.Removal.ABSENT;
        }
        own = true;
      }
      try {
        FileLock osLock;
        try {
          osLock = held.tryLock();
        } catch (OverlappingFileLockException e) {
          return LockFile.Removal.CONTENDED;
        }
        if (osLock == null) {
          return LockFile.Removal.CONTENDED;
        }
        try {
          java.nio.file.attribute.BasicFileAttributes now;
          try {
            now = directory.getFileAttributeView(LOCK_NAME, BasicFileAttributeView.class,
                LinkOption.NOFOLLOW_LINKS).readAttributes();
          } catch (NoSuchFileException e) {
            return LockFile.Removal.ABSENT;
          }
          if (!fileKey.equals(now.fileKey())) {
            return LockFile.Removal.CHANGED;
          }
          if (own ? !LockFile.holdsExactly(held, recordBytes) : !linked.isIntact(now)) {
            records.retire(linked); // rewritten through a link: nobody takes it again
            return LockFile.Removal.CHANGED;
          }
          if (recycleInto != null) {
            moveToSpare();
          }
          LockFile.removalProbe.beforeUnlink(lockPath());
          try {
            directory.deleteFile(LOCK_NAME);
          } catch (NoSuchFileException e) {
            return LockFile.Removal.ABSENT;
          } catch (IOException e) {
            putBack();
            throw e;
          }
          return LockFile.Removal.REMOVED;
        } finally {
          if (osLock.isValid()) {
            osLock.release();
          }
        }
      } finally {
        if (own) {
          held.close(); // under the record's lock: closing drops this process's locks of the file
        }
      }
    } finally {
      linked.releasing.unlock();
    }
  }

  /** Moves a folder moved to a spare name back to its name, when its lock could not be removed. */
  private void putBack() {
    if (recycledAs == null) {
      return;
    }
    try {
      Files.move(recycledAs, folder, StandardCopyOption.ATOMIC_MOVE);
      recycledAs = null;
    } catch (IOException e) {
      LOG.log(Level.WARNING, "the folder {0}, moved to {1} by a release that then failed, could"
          + " not be moved back: {2}", folder, recycledAs, e);
    }
  }

  private Path lockPath() {
    return folder.resolve(FolderSemaphore.FILE_NAME);
  }

  private void closeChannel() {
    try {
      if (channel != null) {
        channel.close();
      }
    } catch (IOException e) {
      LOG.log(Level.DEBUG, "closing the lockfile of {0}: {1}", folder, e);
    }
  }

  private void closeDirectory() {
    try {
      directory.close();
    } catch (IOException e) {
      LOG.log(Level.DEBUG, "closing the folder {0}: {1}", folder, e);
    }
  }

  /**
   * Drops both descriptors without releasing: for a hold whose record is no longer its own (broken
   * and taken again), or whose folder was removed whole. The lockfile, if still there, stays.
   */
  public void abandon() {
    closeChannel();
    unpin();
    closeDirectory();
  }

  /** Gives this hold's pin of its linked record back, once. */
  private void unpin() {
    if (linked != null) {
      synchronized (this) {
        if (pinned) {
          pinned = false;
          linked.unpin();
        }
      }
    }
  }
}
