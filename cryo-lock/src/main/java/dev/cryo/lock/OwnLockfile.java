package dev.cryo.lock;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Set;

/**
 * The lockfile of a {@link SemaphoreHold} that is a file of its own: a record written for this
 * hold alone, published relative to the folder held, whose descriptor the hold keeps (its release
 * reads the bytes through it and unlinks the name, {@link SemaphoreHold#release}).
 *
 * <p>{@link #publish} is the usual take's: the record written whole into a fresh temporary beside
 * the lockfile, hard-linked to the lockfile's name (never replacing one), checked to have landed in
 * the folder held, the temporary's name removed. {@link #adopt} makes the hold of the file that
 * {@link FolderSemaphore}'s claim published by path. {@link #writeTemporary} writes a fresh file
 * whole, for {@link #publish} and for the spare's lockfile of {@link SparePublication}.
 *
 * <p>Stateless and thread-safe: each call works through the folder's descriptor it is given, and
 * hands the lockfile's descriptor to the hold it answers (or closes it).
 */
final class OwnLockfile {

  private static final System.Logger LOG = SemaphoreHold.LOG;
  private static final Set<OpenOption> CREATE_PRIVATE = Set.of(
      StandardOpenOption.CREATE_NEW, StandardOpenOption.READ, StandardOpenOption.WRITE,
      LinkOption.NOFOLLOW_LINKS);
  private static final FileAttribute<?> PRIVATE_FILE =
      PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"));

  /**
   * A test seam, {@code null} in production: called by {@link #publish} once the temporary is
   * written whole, just before its link to the lockfile's name, told both by path.
   */
  static volatile Publication.LinkStep beforeLink;

  private OwnLockfile() {}

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
      throw SemaphoreHold.disappeared(folder, lockPath, e);
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
      Publication.LinkStep step = beforeLink;
      if (step != null) {
        step.reached(lockPath, folder.resolve(temporary));
      }
      try {
        Files.createLink(lockPath, folder.resolve(temporary));
      } catch (FileAlreadyExistsException e) {
        return null;
      } catch (NoSuchFileException e) {
        throw SemaphoreHold.disappeared(folder, lockPath, e);
      }
      Object landed = SemaphoreHold.lockKeyIn(directory);
      if (!key.equals(landed)) {
        throw SemaphoreHold.replaced(folder, lockPath);
      }
      kept = true;
      return new SemaphoreHold(folder, directory, channel, key, record, bytes, folderKey,
          List.of());
    } catch (LockException e) {
      throw e; // this take's own refusal (disappeared, replaced): its reason and message stand
    } catch (IOException e) {
      throw SemaphoreHold.publishFailed(lockPath, e);
    } finally {
      try {
        directory.deleteFile(temporary);
      } catch (IOException e) {
        LOG.log(Level.WARNING, "could not remove the temporary {0} in {1}: {2} (it goes once"
            + " this process is gone)", temporary, folder, e);
      }
      if (!kept) {
        SemaphoreHold.closeQuietly(channel);
      }
    }
  }

  /** A fresh file {@code name} holding {@code content}, written whole; nothing is left when it fails. */
  static FileChannel writeTemporary(SecureDirectoryStream<Path> directory, Path name,
      byte[] content) throws IOException {
    FileChannel channel = (FileChannel) directory.newByteChannel(name, CREATE_PRIVATE,
        PRIVATE_FILE);
    boolean complete = false;
    try {
      LockFile.writeWhole(channel, content);
      complete = true;
      return channel;
    } finally {
      if (!complete) {
        channel.close();
        try {
          directory.deleteFile(name);
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
      channel = Uninterruptible.call(() -> SemaphoreHold.openLockIn(directory));
    } catch (NoSuchFileException e) {
      throw new LockBusyException(lockPath, null, "it was removed right after it was taken");
    }
    boolean kept = false;
    try {
      Object key = SemaphoreHold.lockAttributesIn(directory).fileKey();
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
}
