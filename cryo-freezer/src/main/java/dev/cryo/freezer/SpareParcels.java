package dev.cryo.freezer;

import dev.cryo.lock.SemaphoreHold;
import dev.cryo.lock.SpareFolders;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.ClosedDirectoryStreamException;
import java.nio.file.LinkOption;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.StandardOpenOption;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The emptied parcel files one hold keeps in its user's folder for reuse, so that a freeze does not
 * create a file per parcel nor an adoption remove one: on ext4 an inode's allocation scans past
 * every inode freed in the last half minute, and a freezer frees several per user, so creating
 * parcels was the dearest part of a freeze (docs/benchmarks.md, the freezer section).
 *
 * <p>A spare is a file of the held folder named {@value SpareFolders#PREFIX}{@code parcel-N}: a
 * spare's name, which no parcel, lock or note has, so that the parcels' listings ({@code cryo
 * freezer ls}), the forcing and the wake never take it for a parcel, and which the sweep and every
 * removal of the folder remove with it. Spares travel with their folder: a release whose folder
 * holds nothing but its lock and spares recycles it as a spare folder carrying the spares this hold
 * vouches for ({@link #vouched}, {@link SemaphoreHold#release(boolean, SpareFolders, Set)}), and
 * the next take of a missing folder gets them ({@link SemaphoreHold#carriedFiles}). Working inside
 * the folder, relative to the hold's descriptor, no other directory is opened for them, and each
 * rename stays within one directory.
 *
 * <p>{@link #keep}, for a drop: the parcel is renamed to a spare name (its name is gone at once, as
 * by an unlink), then truncated to nothing, so that no user data stays on disk; a crash between the
 * two leaves a spare nobody vouches for, which the next recycling release removes, as does any
 * removal of the folder. {@link #place}, for a write: a spare is written whole, then renamed over
 * the parcel's name, so the parcel appears whole or not at all (a crash mid-write leaves a spare,
 * never a torn parcel). With no spare at hand, {@link #placeFresh} writes through a new file under
 * a spare's name the same way: a parcel already at the name is never emptied or written over
 * before its replacement is whole, so a refused write (a full disk) leaves it as it was. A spare
 * is opened without following a link and read-write (a FIFO never
 * blocks it); whatever is not a usable regular file (a link, a directory, a FIFO, a spare gone) is
 * never used: the caller then removes or writes the parcel by its name, as without spares. At most
 * {@value #CAPACITY} spares are kept per folder.
 *
 * <p>A spare is truncated when it is kept, never when it is reused: a file truncated to nothing
 * and then written is flushed at its close on ext4 (the "replace by truncate" heuristic), which
 * costs far more than the inode saved; truncated and closed while empty it is not.
 *
 * <p>Thread-safe (its methods hold its monitor); one per hold.
 */
final class SpareParcels {

  /** The most spares kept in one folder. */
  static final int CAPACITY = 8;

  /** The start of a spare's name in a folder. */
  static final String PREFIX = SpareFolders.PREFIX + "parcel-";

  private static final Set<OpenOption> EMPTY_IT = Set.of(StandardOpenOption.READ,
      StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING, LinkOption.NOFOLLOW_LINKS);
  private static final Set<OpenOption> REUSE = Set.of(StandardOpenOption.READ,
      StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS);
  private static final Set<OpenOption> CREATE = Set.of(StandardOpenOption.READ,
      StandardOpenOption.WRITE, StandardOpenOption.CREATE_NEW, LinkOption.NOFOLLOW_LINKS);
  private static final java.nio.file.attribute.FileAttribute<?> FILE_MODE =
      java.nio.file.attribute.PosixFilePermissions.asFileAttribute(
          java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
  private static final AtomicLong NAMES = new AtomicLong();

  private final ArrayDeque<String> spares; // guarded by this: the emptied spares in the folder

  /** The spares of a hold whose folder came in carrying {@code carried} (emptied, vouched for). */
  SpareParcels(List<String> carried) {
    this.spares = new ArrayDeque<>(carried.size() + 4);
    for (String name : carried) {
      if (name.startsWith(PREFIX)) {
        spares.add(name);
      }
    }
  }

  /**
   * Keeps the parcel {@code name} of {@code folder} as an empty spare in the same folder instead of
   * removing it.
   *
   * @return {@code true} when the parcel's name is gone from the folder and its file kept, emptied;
   *     {@code false} when nothing was changed (no room, nothing at the name, or something else
   *     than a regular file there): the caller removes it by its name as usual
   */
  synchronized boolean keep(SecureDirectoryStream<Path> folder, Path name) {
    if (spares.size() >= CAPACITY) {
      return false;
    }
    Path spare = Path.of(PREFIX + NAMES.incrementAndGet());
    try {
      folder.move(name, folder, spare);
    } catch (IOException | ClosedDirectoryStreamException e) {
      return false; // nothing at the name (the usual removal says so), or the hold is over
    }
    try {
      folder.newByteChannel(spare, EMPTY_IT).close();
    } catch (IOException | ClosedDirectoryStreamException e) {
      // A link, a directory or a socket was at the parcel's name: back where it was, for the usual
      // removal, which unlinks a link and refuses the rest as before.
      try {
        folder.move(spare, folder, name);
      } catch (IOException | ClosedDirectoryStreamException back) {
        // It stays under a spare's name, which nobody vouches for: the release removes it.
      }
      return false;
    }
    spares.addFirst(spare.toString());
    return true;
  }

  /**
   * Writes {@code bytes} as the parcel {@code name} of {@code folder} through one of its spares:
   * the spare written whole, then renamed over the name.
   *
   * @return {@code true} when the parcel is there, whole; {@code false} when no spare could be
   *     used, nothing at the name was changed, and the caller writes it by its name as usual
   */
  synchronized boolean place(SecureDirectoryStream<Path> folder, Path name, byte[] bytes) {
    String taken = spares.pollFirst();
    if (taken == null) {
      return false;
    }
    Path spare = Path.of(taken);
    FileChannel channel;
    try {
      channel = (FileChannel) folder.newByteChannel(spare, REUSE);
    } catch (IOException | ClosedDirectoryStreamException e) {
      remove(folder, spare); // not a regular file any more, or gone: not a spare
      return false;
    }
    try (channel) {
      ByteBuffer buffer = ByteBuffer.wrap(bytes);
      while (buffer.hasRemaining()) {
        channel.write(buffer, buffer.position());
      }
    } catch (IOException | ClosedDirectoryStreamException e) {
      remove(folder, spare); // a full disk, or a FIFO: what was written goes with it
      return false;
    }
    try {
      folder.move(spare, folder, name);
      return true;
    } catch (IOException | ClosedDirectoryStreamException e) {
      remove(folder, spare); // a directory is at the name, or the hold is over
      return false;
    }
  }

  /**
   * Writes {@code bytes} as the parcel {@code name} of {@code folder} through a new file under a
   * spare's name, made for this write: written whole, then renamed over the name. For a write with
   * no spare at hand; what is at the name stays as it was until the rename, so a refused write (a
   * full disk) or a crash mid-write leaves the earlier parcel whole.
   *
   * @throws IOException when the file could not be made or written (what was written of it is
   *     removed) or renamed: nothing at the name was changed
   */
  synchronized void placeFresh(SecureDirectoryStream<Path> folder, Path name, byte[] bytes)
      throws IOException {
    Path spare = null;
    FileChannel channel = null;
    for (int attempt = 0; channel == null; attempt++) {
      spare = Path.of(PREFIX + NAMES.incrementAndGet() + "-" + Long.toUnsignedString(
          java.util.concurrent.ThreadLocalRandom.current().nextLong(), 36));
      try {
        channel = (FileChannel) folder.newByteChannel(spare, CREATE, FILE_MODE);
      } catch (java.nio.file.FileAlreadyExistsException e) {
        if (attempt >= 3) {
          throw e;
        }
      } catch (ClosedDirectoryStreamException e) {
        throw new IOException("the folder's hold is over", e);
      }
    }
    try (FileChannel made = channel) {
      ByteBuffer buffer = ByteBuffer.wrap(bytes);
      while (buffer.hasRemaining()) {
        made.write(buffer, buffer.position());
      }
    } catch (IOException | ClosedDirectoryStreamException e) {
      remove(folder, spare); // a full disk: what was written goes with it
      throw e instanceof IOException io ? io : new IOException("the folder's hold is over", e);
    }
    try {
      folder.move(spare, folder, name);
    } catch (IOException | ClosedDirectoryStreamException e) {
      remove(folder, spare); // a directory is at the name, or the hold is over
      throw e instanceof IOException io ? io : new IOException("the folder's hold is over", e);
    }
  }

  /** How many spares are at hand. */
  synchronized int size() {
    return spares.size();
  }

  /** The names of the spares this hold emptied itself or took in untouched: what it vouches for. */
  synchronized Set<String> vouched() {
    return spares.isEmpty() ? Set.of() : Set.copyOf(spares);
  }

  private static void remove(SecureDirectoryStream<Path> folder, Path spare) {
    try {
      folder.deleteFile(spare);
    } catch (IOException | ClosedDirectoryStreamException e) {
      // gone already, or it goes with its folder
    }
  }
}
