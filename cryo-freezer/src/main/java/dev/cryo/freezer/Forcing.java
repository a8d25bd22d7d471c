package dev.cryo.freezer;

import dev.cryo.lock.DirectoryListing;
import dev.cryo.lock.NoFollowDirectory;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributeView;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * Forcing what the freezer holds to disk: the parcels of a folder, the folder's entries, the root's
 * entries. Nothing the freezer writes is forced on its own (a freeze, a wake and a semaphore write
 * to the page cache, which every process of the machine shares); this is the one place where it is,
 * called by whoever is about to record somewhere durable that a user is frozen (the commander's
 * journal, a drain's commit).
 *
 * <p>A folder is opened without following a link ({@link NoFollowDirectory}) and listed; each
 * regular file of it whose name ends in {@value Freezer#PARCEL_SUFFIX} (or is the
 * {@value Freezer#UNREADABLE_NOTE}) is opened relative to it, never through a link, read-write
 * (a FIFO swapped in opens without blocking and is then refused by the force) and forced with
 * {@code fdatasync}; then the folder itself is forced ({@code fsync} of its descriptor). The
 * semaphore's lockfile is not forced: it names a holder of this boot, who is dead once the boot is
 * over. Many folders are forced in parallel, on a small pool of daemon threads, since the file
 * system batches concurrent forces into one journal commit.
 *
 * <p>Past {@link #SYNCFS_ABOVE} folders (a drain's commit, the journal's batches during a drain),
 * one {@code syncfs(2)} of the root's file system is cheaper than a force per file: it writes back
 * what is dirty on that file system, and nothing for what an earlier force already wrote. The JDK
 * offers no {@code syncfs}, so it is asked of the system's {@code sync --file-system ROOT}
 * (coreutils 8.24 and later report a failed {@code syncfs} by their exit status); when that
 * program is missing, fails, or takes longer than {@link #SYNCFS_PATIENCE_SECONDS} s, every folder
 * is forced one by one instead, so the answer is the same either way. The cost of the trade: a
 * {@code syncfs} also writes back what other programs left dirty on the same file system.
 *
 * <p>Stateless and thread-safe; the pool is shared by every freezer of the JVM and its threads
 * end when idle.
 */
final class Forcing {

  /** Folders forced at once. */
  static final int PARALLEL = 16;

  /** Above this many folders, one {@code syncfs} of the root's file system is tried first. */
  static final int SYNCFS_ABOVE = 32;

  /** How long a {@code sync --file-system} may take before the forces one by one take over. */
  static final long SYNCFS_PATIENCE_SECONDS = 120;

  /** The program asked for a {@code syncfs}; a test seam. */
  static volatile String syncProgram = "sync";

  /** How a parcel is opened to be forced: as the freezer reads it, never through a link. */
  private static final Set<OpenOption> OPEN = Set.of(StandardOpenOption.READ,
      StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS);
  private static final ThreadPoolExecutor POOL = pool();

  /** A test seam: told every file and directory forced, once forced. */
  static volatile Consumer<Path> forced = path -> { };

  private Forcing() {}

  private static ThreadPoolExecutor pool() {
    AtomicInteger count = new AtomicInteger();
    ThreadPoolExecutor pool = new ThreadPoolExecutor(PARALLEL, PARALLEL, 10, TimeUnit.SECONDS,
        new LinkedBlockingQueue<>(), runnable -> {
          Thread thread = new Thread(runnable, "cryo-freezer-force-" + count.incrementAndGet());
          thread.setDaemon(true);
          return thread;
        });
    pool.allowCoreThreadTimeOut(true);
    return pool;
  }

  /**
   * Forces the folders named {@code keys} under {@code root}, then {@code root} itself; a folder
   * that is not there (woken, dropped meanwhile) or is not a real directory is skipped.
   *
   * @return how many folders were forced
   * @throws FreezerException {@link FreezerException.Reason#IO_FAILURE} when a force failed: what
   *     it names is not known to be on disk (the other folders were still forced)
   */
  static int forceFolders(Path root, Collection<String> keys) throws FreezerException {
    List<String> all = List.copyOf(keys);
    if (all.size() > SYNCFS_ABOVE && syncFileSystem(root)) {
      return all.size();
    }
    int done = 0;
    IOException first = null;
    Path failed = null;
    int failures = 0;
    if (all.size() <= 1) {
      for (String key : all) {
        try {
          done += forceFolder(root.resolve(key)) ? 1 : 0;
        } catch (IOException e) {
          first = e;
          failed = root.resolve(key);
          failures++;
        }
      }
    } else {
      List<Future<Boolean>> futures = new ArrayList<>(all.size());
      for (String key : all) {
        futures.add(POOL.submit(() -> forceFolder(root.resolve(key))));
      }
      for (int i = 0; i < futures.size(); i++) {
        try {
          done += futures.get(i).get() ? 1 : 0;
        } catch (ExecutionException e) {
          failures++;
          if (first == null) {
            first = e.getCause() instanceof IOException io ? io : new IOException(e.getCause());
            failed = root.resolve(all.get(i));
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new FreezerException(FreezerException.Reason.IO_FAILURE, root, "the force of "
              + all.size() + " folders under " + root + " was interrupted; what was not yet forced"
              + " is not known to be on disk: force again", e);
        }
      }
    }
    try {
      forceDirectory(root);
    } catch (IOException e) {
      failures++;
      if (first == null) {
        first = e;
        failed = root;
      }
    }
    if (first != null) {
      throw new FreezerException(FreezerException.Reason.IO_FAILURE, failed, failures + " of "
          + (all.size() + 1) + " forces under " + root + " failed, first at " + failed + " ("
          + first.getClass().getSimpleName() + " " + first.getMessage() + "); what they name is"
          + " not known to be on disk: fix the cause and force again", first);
    }
    return done;
  }

  /**
   * Forces one folder's parcels, then its entries.
   *
   * @return whether there was a folder
   */
  static boolean forceFolder(Path folder) throws IOException {
    SecureDirectoryStream<Path> directory;
    try {
      directory = NoFollowDirectory.open(folder);
    } catch (NoSuchFileException | NotDirectoryException e) {
      return false; // woken or dropped meanwhile, or not a folder of the freezer: nothing of ours
    }
    try (directory) {
      for (Path entry : directory) {
        String name = entry.getFileName().toString();
        if (name.endsWith(Freezer.PARCEL_SUFFIX) || name.equals(Freezer.UNREADABLE_NOTE)) {
          forceEntry(directory, entry.getFileName(), folder.resolve(name));
        }
      }
      try (FileChannel self = (FileChannel) directory.newByteChannel(Path.of("."),
          Set.of(StandardOpenOption.READ))) {
        self.force(true);
      }
      forced.accept(folder);
    } catch (NoSuchFileException e) {
      return false; // removed while it was listed
    }
    return true;
  }

  /** Forces one regular file of {@code directory}; one not there, or not regular, is skipped. */
  static void forceEntry(SecureDirectoryStream<Path> directory, Path entry, Path file)
      throws IOException {
    FileChannel channel;
    try {
      if (!directory.getFileAttributeView(entry, BasicFileAttributeView.class,
          LinkOption.NOFOLLOW_LINKS).readAttributes().isRegularFile()) {
        return; // a link or a FIFO somebody planted: not a parcel, never followed
      }
      channel = (FileChannel) directory.newByteChannel(entry, OPEN);
    } catch (NoSuchFileException e) {
      return; // dropped meanwhile (a wake read it)
    }
    try (channel) {
      channel.force(false);
    }
    forced.accept(file);
  }

  /**
   * One {@code syncfs(2)} of {@code root}'s file system, through {@code sync --file-system}.
   *
   * @return whether it succeeded: everything written on that file system before the call is on
   *     disk; {@code false} when the program is missing, failed or ran out of patience (nothing is
   *     known to be forced then)
   */
  static boolean syncFileSystem(Path root) {
    Process process;
    try {
      process = new ProcessBuilder(syncProgram, "--file-system", root.toString())
          .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
    } catch (IOException e) {
      return false; // no such program here: the forces one by one
    }
    try {
      if (!process.waitFor(SYNCFS_PATIENCE_SECONDS, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        return false;
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
      return false;
    }
    if (process.exitValue() != 0) {
      return false;
    }
    forced.accept(root);
    return true;
  }

  /** Forces {@code directory}'s entries (opened without following a link at its name). */
  static void forceDirectory(Path directory) throws IOException {
    try (FileChannel channel = FileChannel.open(directory, StandardOpenOption.READ,
        LinkOption.NOFOLLOW_LINKS)) {
      channel.force(true);
    }
    forced.accept(directory);
  }

  /** The keys of every real folder at {@code root}. */
  static List<String> folderKeys(Path root) throws IOException {
    List<String> keys = new ArrayList<>();
    try (DirectoryStream<Path> entries = DirectoryListing.open(root)) {
      for (Path entry : entries) {
        // The semaphore records need no force: after a power loss their holders are dead.
        if (!dev.cryo.lock.HolderRecords.isRecordsName(entry.getFileName().toString())
            && Files.isDirectory(entry, LinkOption.NOFOLLOW_LINKS)) {
          keys.add(entry.getFileName().toString());
        }
      }
    }
    return keys;
  }
}
