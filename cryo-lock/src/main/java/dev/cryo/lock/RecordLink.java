package dev.cryo.lock;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.List;

/**
 * The lockfile of a {@link SemaphoreHold} taken with {@link HolderRecords}: a hard link of its
 * process's one record for the holder name at the folder's {@value FolderSemaphore#FILE_NAME},
 * instead of a file of its own ({@link OwnLockfile}), so that a take creates no inode and a release
 * frees none.
 *
 * <p>{@link #publish} links the record into the folder held (one {@code link(2)}, never replacing a
 * lockfile; the record was written whole before it was ever linked) and checks it landed there;
 * {@link #linkIntoSpare} links it into a spare folder for {@link SparePublication}. Each hold made
 * pins the record's descriptor once ({@link HolderRecords.Published#pin}); the hold gives its pin
 * back when it is released or abandoned. A record whose file left its name, or that cannot take
 * another link, is retired ({@link HolderRecords#retire}): the next take publishes a fresh one.
 *
 * <p>{@link #removeOnce} is the release's attempt: under the record's JVM lock
 * ({@link HolderRecords.Published#releasing}), the kernel record lock taken through the record's
 * kept descriptor, the name checked by one look to designate the record as published (inode, length
 * and modification time, no byte read), then unlinked relative to the folder
 * ({@link SemaphoreHold#unlinkChecked}).
 *
 * <p>Thread-safe: an instance is immutable (a record and the records that keep it); the
 * publications may run on any thread, and {@link #removeOnce} runs under its hold's monitor and
 * lockfile guard, as the hold's release calls it.
 */
final class RecordLink {

  private static final System.Logger LOG = SemaphoreHold.LOG;

  /** The record linked. */
  final HolderRecords.Published published;
  /** The records that keep it, which retire it. */
  final HolderRecords records;

  RecordLink(HolderRecords.Published published, HolderRecords records) {
    this.published = published;
    this.records = records;
  }

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
  static SemaphoreHold publish(Path folder, SecureDirectoryStream<Path> directory,
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
            throw SemaphoreHold.disappeared(folder, lockPath, e);
          }
          records.retire(published); // removed by hand, or wiped: a fresh one
          continue;
        } catch (IOException e) {
          records.retire(published); // too many links, or refused: a fresh one next time
          throw Unlinkable.INSTANCE;
        }
        SemaphoreHold hold = landedHold(folder, lockPath, directory, folderKey, records,
            published);
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
  private static SemaphoreHold landedHold(Path folder, Path lockPath,
      SecureDirectoryStream<Path> directory, Object folderKey, HolderRecords records,
      HolderRecords.Published published) throws LockException {
    Object landed;
    try {
      landed = SemaphoreHold.lockKeyIn(directory);
    } catch (IOException e) {
      throw new LockValidationException(LockException.Reason.IO_FAILURE, lockPath,
          "linked the semaphore record at " + lockPath + " but could not look at it in the"
              + " folder held: " + LockFile.describe(e) + "; it stays until this process is"
              + " gone", e);
    }
    if (published.fileKey.equals(landed)) {
      return new SemaphoreHold(folder, directory, new RecordLink(published, records), folderKey,
          List.of());
    }
    if (!published.isAtItsPlace()) {
      // Another file was put at the record's name, and that is what was linked: undone when it
      // still holds what was there, and a fresh record of our own taken instead.
      records.retire(published);
      unlinkStranger(lockPath);
      return null;
    }
    throw SemaphoreHold.replaced(folder, lockPath);
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
   * Pins {@code linked} and links it as the spare's lockfile ({@link #linkPinnedIntoSpare}); the
   * pin is given back when that fails.
   *
   * @return the record's file key, or {@code null} when the spare cannot be used this way (it
   *     goes back to the pool when it is still a spare)
   */
  static Object linkIntoSpare(SpareFolders.Spare spare, SecureDirectoryStream<Path> directory,
      HolderRecords.Published linked, HolderRecords records, SpareFolders spares) {
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
      Files.createLink(spare.path().resolve(SemaphoreHold.LOCK_NAME), linked.path);
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
      Object landed = SemaphoreHold.lockAttributesIn(directory).fileKey();
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
      directory.deleteFile(SemaphoreHold.LOCK_NAME);
      spares.offer(spare);
    } catch (IOException e) {
      // not in the spare opened: the spare's name is somebody else's, not ours to touch
    }
    return null;
  }

  /**
   * One guarded attempt of the release of {@code hold}, whose lockfile this is: under the record's
   * JVM lock, the kernel record lock taken through the record's kept descriptor; the name checked
   * by one look to designate the record's file, as published (same inode, length and modification
   * time: a rewrite through any link changes the time); then unlinked relative to the folder. No
   * byte is read: the inode, kept open, cannot have been freed and reused. A kept descriptor closed
   * meanwhile (an interrupt) that cannot be opened again at the record's name retires the record,
   * and the check is made through a descriptor opened relative to the folder, with the record's
   * bytes. Called under the hold's monitor and lockfile guard.
   */
  LockFile.Removal removeOnce(SemaphoreHold hold) throws IOException {
    SecureDirectoryStream<Path> directory = hold.directory();
    published.releasing.lock();
    try {
      FileChannel held = published.channel();
      boolean reopened = false;
      if (held == null) {
        records.retire(published); // its file is gone from its name: a fresh one for the next take
        try {
          held = SemaphoreHold.openLockIn(directory);
        } catch (NoSuchFileException e) {
          return LockFile.Removal.ABSENT;
        }
        reopened = true;
      }
      try {
        FileLock osLock = LockFile.tryLock(held);
        if (osLock == null) {
          return LockFile.Removal.CONTENDED;
        }
        try {
          BasicFileAttributes now;
          try {
            now = SemaphoreHold.lockAttributesIn(directory);
          } catch (NoSuchFileException e) {
            return LockFile.Removal.ABSENT;
          }
          if (!published.fileKey.equals(now.fileKey())) {
            return LockFile.Removal.CHANGED;
          }
          if (reopened ? !LockFile.holdsExactly(held, published.bytes) : !published.isIntact(now)) {
            records.retire(published); // rewritten through a link: nobody takes it again
            return LockFile.Removal.CHANGED;
          }
          return hold.unlinkChecked();
        } finally {
          if (osLock.isValid()) {
            osLock.release();
          }
        }
      } finally {
        if (reopened) {
          held.close(); // under the record's lock: closing drops this process's locks of the file
        }
      }
    } finally {
      published.releasing.unlock();
    }
  }
}
