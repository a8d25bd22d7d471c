package dev.cryo.bench.lock;

import dev.cryo.lock.LockRecord;
import dev.cryo.lock.ProcessIdentity;
import dev.cryo.lock.ProcessLock;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The floor of an uncontended {@link ProcessLock} acquire + release: the file-system calls of cryo's
 * own protocol, in the same order and through the same JDK calls, and nothing else.
 *
 * <p>Acquire (what the claim does when the lock is free):
 * <ol>
 *   <li>look at {@code .lock} ({@code Files.exists}: one {@code access(2)}, the claim's look
 *       before it writes);
 *   <li>open a temporary beside {@code .lock} with {@code CREATE_NEW, READ, WRITE,
 *       NOFOLLOW_LINKS} and mode 0600; write the record; read its link count and file key
 *       ({@code unix:nlink,fileKey}, one {@code lstat}); keep it open;
 *   <li>{@code link(temporary, .lock)};
 *   <li>delete the temporary.
 * </ol>
 *
 * <p>Release (what {@code LockFile.removeKept} does, the owner's release through the descriptor
 * its acquisition kept):
 * <ol>
 *   <li>{@code tryLock()} on the kept channel (an {@code fcntl} lock); read the content with one
 *       positional read of one byte more than the record;
 *   <li>{@code lstat(.lock)} and compare its file key with the kept one; delete {@code .lock};
 *   <li>release the {@code fcntl} lock and close the channel.
 * </ol>
 *
 * <p>Left out, because they are not calls of the protocol: validating the directory
 * ({@code stat}, {@code toRealPath}), canonicalising the lockfile's directory, the in-JVM slot and
 * guard, making a fresh record (random token, clock), formatting and parsing it, comparing tokens.
 * The record written is a real cryo record of the same size, made once. The temporary's name is
 * new for every call, as cryo's is (a file system does not treat a name it has just
 * seen removed like a fresh one), but counted instead of drawn at random. Not thread-safe: one
 * instance per thread and directory.
 */
public final class ProtocolFloor {

  private static final FileAttribute<?> PRIVATE_FILE =
      PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"));
  private static final Set<OpenOption> CREATE_PRIVATE = Set.of(StandardOpenOption.CREATE_NEW,
      StandardOpenOption.READ, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS);

  private final Path lockFile;
  private final String temporaryPrefix;
  private long serial;
  private final byte[] record;
  private FileChannel kept; // the published file, between an acquire and its release
  private Object keptKey;

  /**
   * A floor working in {@code directory} (which must exist), on {@code <directory>/.lock}.
   *
   * @param directory the directory; the same file names as {@link ProcessLock} are used
   */
  public ProtocolFloor(Path directory) {
    this.lockFile = directory.resolve(ProcessLock.FILE_NAME);
    long pid = ProcessHandle.current().pid();
    this.temporaryPrefix = ProcessLock.FILE_NAME + ".cryo-tmp." + pid + ".";
    this.record = LockRecord.fresh(ProcessIdentity.current(),
        "java pid " + pid + " thread " + Thread.currentThread().getName()).toBytes();
  }

  /** A name never used before by this floor: 16 hex digits, as long as cryo's random ones. */
  private String uniqueSuffix() {
    String hex = Long.toHexString(++serial);
    return "0000000000000000".substring(hex.length()) + hex;
  }

  /** The lockfile this floor publishes and removes. */
  public Path lockFile() {
    return lockFile;
  }

  /**
   * Publishes the record at {@code .lock}, as an uncontended acquire does.
   *
   * @return whether it was published (false: something was already there)
   */
  public boolean acquire() throws IOException {
    if (Files.exists(lockFile)) {
      return false;
    }
    Path temporary = lockFile.resolveSibling(temporaryPrefix + uniqueSuffix());
    FileChannel channel = FileChannel.open(temporary, CREATE_PRIVATE, PRIVATE_FILE);
    boolean published = false;
    try {
      ByteBuffer content = ByteBuffer.wrap(record);
      while (content.hasRemaining()) {
        channel.write(content);
      }
      Map<String, Object> attributes =
          Files.readAttributes(temporary, "unix:nlink,fileKey", LinkOption.NOFOLLOW_LINKS);
      if (!(attributes.get("nlink") instanceof Integer count) || count != 1) {
        throw new IOException("unexpected link count " + attributes + " of " + temporary);
      }
      try {
        Files.createLink(lockFile, temporary);
        published = true;
        kept = channel;
        keptKey = attributes.get("fileKey");
        return true;
      } catch (FileAlreadyExistsException e) {
        return false;
      }
    } finally {
      Files.deleteIfExists(temporary);
      if (!published) {
        channel.close();
      }
    }
  }

  /**
   * Removes {@code .lock} through the checked sequence of an owner's release, through the
   * descriptor the acquire kept.
   *
   * @return whether it was removed
   */
  public boolean release() throws IOException {
    FileChannel channel = kept;
    kept = null;
    if (channel == null) {
      return false; // nothing acquired
    }
    try (channel) {
      FileLock osLock = channel.tryLock();
      if (osLock == null) {
        return false;
      }
      ByteBuffer readBuffer = ByteBuffer.allocate(record.length + 1);
      while (readBuffer.hasRemaining()) {
        int read = channel.read(readBuffer, readBuffer.position());
        if (read < 0 || (read > 0 && readBuffer.position() >= record.length)) {
          break;
        }
      }
      if (readBuffer.position() != record.length) {
        return false;
      }
      Object now = Files.readAttributes(lockFile, BasicFileAttributes.class,
          LinkOption.NOFOLLOW_LINKS).fileKey();
      if (!Objects.equals(now, keptKey)) {
        return false;
      }
      Files.delete(lockFile);
      osLock.release();
      return true;
    }
  }
}
