package dev.cryo.freezer;

import dev.cryo.lock.NoFollowDirectory;
import dev.cryo.lock.SpareFolders;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.ClosedDirectoryStreamException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayDeque;
import java.util.HexFormat;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Emptied parcel files kept for reuse, so that a freeze does not create a file per parcel nor an
 * adoption remove one: on ext4 an inode's allocation scans past every inode freed in the last
 * half minute, and a freezer frees several per user, so creating parcels was the dearest part of
 * a freeze (docs/benchmarks.md, the freezer section).
 *
 * <p>The spares live in one private (0700) directory at the root, named {@value
 * SpareFolders#PREFIX}{@code PID.parcels-HEX}: a spare's name, which no folder key has, so that
 * {@link Freezer#folderKeys}, the sweep and {@code cryo freezer ls} never take it for a user, and
 * which the sweep removes, with what is in it, once its process is gone
 * ({@link SpareFolders#removeAbandoned}). It is made at the first drop. No descriptor of it is kept
 * between holds (a pool never holds a file system busy): a hold opens it at its first drop or
 * write through a spare ({@link #open}) and closes it when it ends.
 *
 * <p>{@link #keep}, for a drop under the user's semaphore: the parcel is renamed into the spares'
 * directory (its name in the folder is gone at once, as by an unlink), then truncated to nothing,
 * so that no user data stays on disk. {@link #place}, for a write under the semaphore: a spare is
 * written whole, then renamed to the parcel's name, so the parcel appears whole or not at all
 * (a crash mid-write leaves a spare, never a torn parcel). A spare is opened without following a
 * link and read-write (a FIFO never blocks it); whatever is not a usable regular file (a link, a
 * directory, a FIFO, a spare gone) is never used: the caller then removes or writes the parcel by
 * its name, as without spares. At most {@value #CAPACITY} spares are kept.
 *
 * <p>A spare is truncated when it is kept, never when it is reused: a file truncated to nothing
 * and then written is flushed at its close on ext4 (the "replace by truncate" heuristic), which
 * costs far more than the inode saved; truncated and closed while empty it is not.
 *
 * <p>Thread-safe. The root is fixed until {@link #discard} or {@link #forget}, which a caller whose
 * root moves or is emptied calls first; the next {@link #open} makes a new directory under
 * {@link #moveTo}'s root.
 */
final class SpareParcels {

  /** The most spares kept. */
  static final int CAPACITY = 64;

  /** The part of the spares' directory name after the process id. */
  static final String MARK = ".parcels-";

  private static final long PID = ProcessHandle.current().pid();
  private static final Set<OpenOption> EMPTY_IT = Set.of(StandardOpenOption.READ,
      StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING, LinkOption.NOFOLLOW_LINKS);
  private static final Set<OpenOption> REUSE = Set.of(StandardOpenOption.READ,
      StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS);

  private final AtomicLong names = new AtomicLong();
  private final ArrayDeque<Path> spares = new ArrayDeque<>(); // guarded by this
  private volatile Path root;
  private Path path; // guarded by this: the spares' directory, once made

  /** No directory yet: it is made at the first {@link #open}. */
  SpareParcels(Path root) {
    this.root = root;
  }

  /**
   * The spares' directory, opened for one hold (made, 0700, when it is not there yet), never
   * through a link; the caller closes it when the hold ends.
   *
   * @return the directory, or {@code null} when it cannot be made or opened (then every drop
   *     removes and every write creates, as without spares)
   */
  SecureDirectoryStream<Path> open() {
    synchronized (this) {
      if (path != null) {
        try {
          return NoFollowDirectory.open(path);
        } catch (IOException e) {
          // gone (a wipe by somebody else, a hand) or replaced: a new one, with no spares
          path = null;
          spares.clear();
        }
      }
      Path made = root.resolve(SpareFolders.PREFIX + PID + MARK
          + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextLong()));
      try {
        Files.createDirectory(made, PosixFilePermissions.asFileAttribute(
            PosixFilePermissions.fromString("rwx------")));
        SecureDirectoryStream<Path> directory = NoFollowDirectory.open(made);
        path = made;
        return directory;
      } catch (IOException e) {
        return null;
      }
    }
  }

  /**
   * Keeps the parcel {@code name} of {@code folder} as an empty spare in {@code pool} (what
   * {@link #open} answered) instead of removing it.
   *
   * @return {@code true} when the parcel's name is gone from the folder and its file kept, emptied;
   *     {@code false} when nothing was changed (no room, nothing at the name, or something else
   *     than a regular file there): the caller removes it by its name as usual
   */
  boolean keep(SecureDirectoryStream<Path> pool, SecureDirectoryStream<Path> folder, Path name) {
    synchronized (this) {
      if (spares.size() >= CAPACITY) {
        return false;
      }
    }
    Path spare = Path.of("p" + names.incrementAndGet());
    try {
      folder.move(name, pool, spare);
    } catch (IOException | ClosedDirectoryStreamException e) {
      return false; // nothing at the name (the usual removal says so), or no spares' directory
    }
    try {
      pool.newByteChannel(spare, EMPTY_IT).close();
    } catch (IOException | ClosedDirectoryStreamException e) {
      // A link, a directory or a socket was at the parcel's name: back where it was, for the usual
      // removal, which unlinks a link and refuses the rest as before.
      try {
        pool.move(spare, folder, name);
      } catch (IOException | ClosedDirectoryStreamException back) {
        // It stays in the spares' directory, which goes with its process.
      }
      return false;
    }
    synchronized (this) {
      spares.addFirst(spare);
    }
    return true;
  }

  /**
   * Writes {@code bytes} as the parcel {@code name} of {@code folder} through a spare of
   * {@code pool}: the spare written whole, then renamed over the name.
   *
   * @return {@code true} when the parcel is there, whole; {@code false} when no spare could be
   *     used, nothing at the name was changed, and the caller writes it by its name as usual
   */
  boolean place(SecureDirectoryStream<Path> pool, SecureDirectoryStream<Path> folder, Path name,
      byte[] bytes) {
    Path spare;
    synchronized (this) {
      spare = spares.pollFirst();
    }
    if (spare == null) {
      return false;
    }
    FileChannel channel;
    try {
      channel = (FileChannel) pool.newByteChannel(spare, REUSE);
    } catch (IOException | ClosedDirectoryStreamException e) {
      remove(pool, spare); // not a regular file any more, or gone: not a spare
      return false;
    }
    try (channel) {
      ByteBuffer buffer = ByteBuffer.wrap(bytes);
      while (buffer.hasRemaining()) {
        channel.write(buffer, buffer.position());
      }
    } catch (IOException | ClosedDirectoryStreamException e) {
      remove(pool, spare); // a full disk, or a FIFO: what was written goes with it
      return false;
    }
    try {
      pool.move(spare, folder, name);
      return true;
    } catch (IOException | ClosedDirectoryStreamException e) {
      remove(pool, spare); // the folder is gone, or a directory is at the name
      return false;
    }
  }

  /** Whether a spare is at hand for {@link #place}. */
  synchronized boolean any() {
    return !spares.isEmpty();
  }

  /** How many spares are kept now. */
  synchronized int size() {
    return spares.size();
  }

  /**
   * Removes the spares' directory with its spares; for a root about to move. What cannot be
   * removed stays, and goes with its process.
   */
  void discard() {
    Path old;
    synchronized (this) {
      old = path;
      path = null;
      spares.clear();
    }
    if (old == null) {
      return;
    }
    try (DirectoryStream<Path> entries = Files.newDirectoryStream(old)) {
      for (Path entry : entries) {
        Files.deleteIfExists(entry);
      }
      Files.deleteIfExists(old);
    } catch (IOException e) {
      // it stays, as a spare of this process
    }
  }

  /** Forgets the spares' directory without touching it: for a root about to be emptied. */
  synchronized void forget() {
    path = null;
    spares.clear();
  }

  /** The root the next spares' directory is made in. */
  void moveTo(Path newRoot) {
    root = newRoot;
  }

  private static void remove(SecureDirectoryStream<Path> pool, Path spare) {
    try {
      pool.deleteFile(spare);
    } catch (IOException | ClosedDirectoryStreamException e) {
      // gone already, or it goes with its directory
    }
  }
}
