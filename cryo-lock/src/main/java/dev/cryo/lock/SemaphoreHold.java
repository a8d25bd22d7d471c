package dev.cryo.lock;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * One taken {@link FolderSemaphore}, as its taker holds it: the folder's descriptor (to work in the
 * folder it took, whatever is later put at the folder's name) and the lockfile's descriptor (so that
 * the release is a check, an unlink and a close, with no path resolved again).
 *
 * <p>Made by {@link FolderSemaphore#take}, through one of the take's publications: a file of its
 * own ({@link OwnLockfile}: written into a temporary and linked, or the claim's file adopted), a
 * link of its process's record ({@link RecordLink}), or a spare folder renamed to the folder's name
 * with either in it ({@link SparePublication}). This class keeps the hold's contract and state,
 * and the release.
 *
 * <p>{@link #release} gives the semaphore back through these descriptors with the guarantees of
 * {@link LockFile#removeOwn}: under the lockfile's JVM guard and its kernel record lock (taken once,
 * without waiting: a remover of another process at work on the same file makes the release wait for
 * it, up to the same patience), the bytes are read through the held descriptor and must be this
 * hold's record, and the name must still designate the held file; only then is the name unlinked,
 * relative to the folder. A descriptor closed by an interrupt is opened again relative to the
 * folder, so that an interrupted thread still releases (and keeps its interrupt flag,
 * {@link Uninterruptible}).
 *
 * <p>A hold taken with {@link HolderRecords} has no file of its own: its lockfile is a link of its
 * process's record for the holder name. Its release ({@link RecordLink#removeOnce}) takes the
 * kernel record lock through the record's descriptor (kept open while the record's holds last),
 * checks by one look that the name still designates the record as published (inode, length and
 * modification time, no byte read) and unlinks the name, which frees no inode.
 *
 * <p>Thread-safe: {@link #release}, {@link #abandon} and {@link #directory} may be called from any
 * thread; a release and an abandonment run one at a time, and a release runs once (a second call,
 * after a successful one, is refused as not held).
 */
public final class SemaphoreHold {

  /** The logger of the hold and of the take's publications that make it. */
  static final System.Logger LOG = System.getLogger(SemaphoreHold.class.getName());
  /** The lockfile's name, relative to the folder's descriptor. */
  static final Path LOCK_NAME = Path.of(FolderSemaphore.FILE_NAME);
  private static final Set<OpenOption> OPEN_HELD = Set.of(StandardOpenOption.READ,
      StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS);

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
  /** The record link this hold's lockfile is, or {@code null} for a file of its own. */
  private final RecordLink link;
  private boolean pinned; // guarded by this: whether this hold still counts in its record's pins

  /**
   * A hold of a file of its own whose bytes are {@code record}'s, and whose folder's own identity
   * is known already ({@code null}: looked up when needed).
   */
  SemaphoreHold(Path folder, SecureDirectoryStream<Path> directory, FileChannel channel,
      Object fileKey, LockRecord record, Object folderKey) {
    this(folder, directory, channel, fileKey, record, record.toBytes(), folderKey, List.of());
  }

  /**
   * A hold of a file of its own whose record's bytes, as published, are at hand already (not
   * copied), of a folder that came from a spare carrying the emptied files {@code carried} (none
   * when it was not a spare).
   */
  SemaphoreHold(Path folder, SecureDirectoryStream<Path> directory, FileChannel channel,
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
    this.link = null;
  }

  /** A hold whose lockfile is {@code link}, its record pinned once for this hold. */
  SemaphoreHold(Path folder, SecureDirectoryStream<Path> directory, RecordLink link,
      Object folderKey, List<String> carried) {
    this.carried = List.copyOf(carried);
    this.folder = folder;
    this.directory = directory;
    this.channel = null;
    this.fileKey = link.published.fileKey;
    this.record = link.published.record;
    this.recordBytes = link.published.bytes;
    this.folderKey = folderKey;
    this.link = link;
    this.pinned = true;
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

  /**
   * One guarded attempt: lock, check the bytes and the name, unlink relative to the folder; for a
   * linked hold, its {@link RecordLink}'s attempt.
   */
  private LockFile.Removal removeOnce() throws IOException {
    if (link != null) {
      return link.removeOnce(this);
    }
    FileChannel held = channel;
    if (held == null || !held.isOpen()) {
      try {
        held = openLockIn(directory);
      } catch (NoSuchFileException e) {
        return LockFile.Removal.ABSENT;
      }
      channel = held;
    }
    FileLock osLock = LockFile.tryLock(held); // null: another process's, or this JVM's (stripe)
    if (osLock == null) {
      return LockFile.Removal.CONTENDED;
    }
    try {
      if (!LockFile.holdsExactly(held, recordBytes)) {
        return LockFile.Removal.CHANGED;
      }
      Object now;
      try {
        now = lockAttributesIn(directory).fileKey();
      } catch (NoSuchFileException e) {
        return LockFile.Removal.ABSENT;
      }
      if (!fileKey.equals(now)) {
        return LockFile.Removal.CHANGED;
      }
      return unlinkChecked();
    } finally {
      if (osLock.isValid()) {
        osLock.release();
      }
    }
  }

  /**
   * The end of a release's attempt, once the record and the name are checked under the kernel
   * record lock: the folder moved to a spare name when the release recycles it, then the
   * lockfile's name unlinked relative to the folder (the folder put back at its name when that
   * fails). Called by {@link #removeOnce} and a {@link RecordLink}'s, under this hold's monitor.
   */
  LockFile.Removal unlinkChecked() throws IOException {
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
   *
   * <p>Under the hold's monitor, as {@link #release}: a release in progress on another thread ends
   * first (within its patience). A take of the same folder can succeed, and drop the hold it
   * replaces, while that hold's release is still at work: between the recycling rename to a spare
   * name and the unlink of the lockfile inside it, for one; the release then still has the
   * folder's descriptor to unlink through.
   */
  public synchronized void abandon() {
    closeChannel();
    unpin();
    closeDirectory();
  }

  /** Gives this hold's pin of its linked record back, once. */
  private void unpin() {
    if (link != null) {
      synchronized (this) {
        if (pinned) {
          pinned = false;
          link.published.unpin();
        }
      }
    }
  }

  // The lockfile in a folder's descriptor, and the refusals of a take: shared by the publications.

  /** The lockfile's attributes in {@code directory}, not followed. */
  static BasicFileAttributes lockAttributesIn(SecureDirectoryStream<Path> directory)
      throws IOException {
    return directory.getFileAttributeView(LOCK_NAME, BasicFileAttributeView.class,
        LinkOption.NOFOLLOW_LINKS).readAttributes();
  }

  /** The identity of the lockfile in {@code directory}, not followed; {@code null} when absent. */
  static Object lockKeyIn(SecureDirectoryStream<Path> directory) throws IOException {
    try {
      return lockAttributesIn(directory).fileKey();
    } catch (NoSuchFileException e) {
      return null;
    }
  }

  /** The lockfile in {@code directory}, opened read-write, never through a link. */
  static FileChannel openLockIn(SecureDirectoryStream<Path> directory) throws IOException {
    return (FileChannel) directory.newByteChannel(LOCK_NAME, OPEN_HELD);
  }

  /** Closes a folder's descriptor through which nothing was done. */
  static void closeQuietly(SecureDirectoryStream<Path> directory) {
    try {
      directory.close();
    } catch (IOException e) {
      // nothing was done through it
    }
  }

  /** Closes a lockfile's descriptor through which nothing was published. */
  static void closeQuietly(FileChannel channel) {
    try {
      channel.close();
    } catch (IOException e) {
      // nothing was published through it
    }
  }

  /** The refusal of a take whose folder's name is gone. */
  static LockValidationException disappeared(Path folder, Path lockPath, IOException e) {
    return new LockValidationException(LockException.Reason.DIRECTORY_DISAPPEARED, lockPath,
        "the directory " + folder + " disappeared while its lock was being acquired; nothing was"
            + " left behind: recreate it and retry", e);
  }

  /** The refusal of a take whose record landed in another folder than the one held. */
  static LockValidationException replaced(Path folder, Path lockPath) {
    return new LockValidationException(LockException.Reason.NOT_A_DIRECTORY, lockPath,
        "the folder " + folder + " was replaced while its semaphore was taken: the record"
            + " was linked somewhere else than the folder opened, and is left there (it"
            + " names this process, and goes once this process is gone); nothing was taken:"
            + " find who changes the freezer's folders");
  }

  /** The refusal of a take whose record the file system refused once it was written. */
  static LockValidationException publishFailed(Path lockPath, IOException e) {
    return new LockValidationException(LockException.Reason.IO_FAILURE, lockPath,
        "could not publish a record at " + lockPath + ": " + LockFile.describe(e)
            + "; the lock was not taken: check the directory's permissions and free space", e);
  }
}
