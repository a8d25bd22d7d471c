package dev.cryo.lock;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.StandardCopyOption;

/**
 * The take of a missing folder by a spare of {@link SpareFolders}: the spare's lockfile made while
 * nobody can read it (a record written for this hold, {@link OwnLockfile#writeTemporary}, or a
 * link of its process's record, {@link RecordLink#linkIntoSpare}), then the spare renamed to the
 * folder's name, so that the folder appears with its lock, whole, in one {@code rename(2)}. The
 * rename fails, changing nothing, when something is at the name by then; the spare then goes back
 * to the pool, emptied, and the caller takes the usual way.
 *
 * <p>Stateless and thread-safe: a spare polled from the pool is this call's alone (the pool's own
 * thread-safety), and the call works through the descriptor it opens on it.
 */
final class SparePublication {

  /**
   * A test seam, {@code null} in production: called by {@link #publish} right after the spare is
   * renamed to the folder's name, before the name is checked, told the folder and the spare's
   * former name.
   */
  static volatile Publication.LinkStep afterRename;

  private SparePublication() {}

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
  static SemaphoreHold publish(Path folder, SpareFolders spares, LockRecord record)
      throws LockException {
    return publish(folder, spares, record, null, null);
  }

  /**
   * Publishes by a spare folder as {@link #publish(Path, SpareFolders, LockRecord)} does; when
   * {@code linked} is given, the spare's lockfile is a link of that record of {@code records}
   * (checked to have landed in the spare opened) instead of a file written for this hold.
   *
   * @param record the record to write, when {@code linked} is {@code null}
   */
  static SemaphoreHold publish(Path folder, SpareFolders spares, LockRecord record,
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
        SemaphoreHold.closeQuietly(directory);
        return null; // another directory under a spare's name: not ours to use
      }
    } catch (IOException e) {
      return null; // gone (a wipe, a hand): not a spare any more
    }
    Object key;
    if (linked != null) {
      key = RecordLink.linkIntoSpare(spare, directory, linked, records, spares);
      if (key == null) {
        SemaphoreHold.closeQuietly(directory);
        return null;
      }
    } else {
      try {
        channel = Uninterruptible.call(() -> OwnLockfile.writeTemporary(directory,
            SemaphoreHold.LOCK_NAME, bytes));
      } catch (IOException e) {
        // not empty of a lockfile, or refused: not a spare any more
        SemaphoreHold.closeQuietly(directory);
        return null;
      }
      key = null;
    }
    boolean kept = false;
    try {
      if (key == null) {
        key = SemaphoreHold.lockAttributesIn(directory).fileKey();
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
          directory.deleteFile(SemaphoreHold.LOCK_NAME);
          spares.offer(spare);
        } catch (IOException gone) {
          // not a spare any more
        }
        return null;
      }
      Publication.LinkStep step = afterRename;
      if (step != null) {
        step.reached(folder, spare.path());
      }
      Object named = LockFile.fileKeyAt(folder);
      Object landed = SemaphoreHold.lockKeyIn(directory);
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
          ? new SemaphoreHold(folder, directory, new RecordLink(linked, records),
              spare.fileKey(), spare.files())
          : new SemaphoreHold(folder, directory, channel, key, record, bytes, spare.fileKey(),
              spare.files());
    } catch (LockException e) {
      throw e; // this take's own refusal (the folder replaced): its reason and message stand
    } catch (IOException e) {
      throw SemaphoreHold.publishFailed(folder.resolve(FolderSemaphore.FILE_NAME), e);
    } finally {
      if (!kept) {
        if (channel != null) {
          SemaphoreHold.closeQuietly(channel);
        }
        if (linked != null) {
          linked.unpin();
        }
        SemaphoreHold.closeQuietly(directory);
      }
    }
  }
}
