package dev.cryo.lock;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.attribute.BasicFileAttributeView;
import java.util.ArrayDeque;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Empty folders kept for reuse beside the semaphore folders of one parent directory, by name and
 * identity (device and inode; no descriptor is kept open, so a pool never holds a file system
 * busy): what lets {@link FolderSemaphore#take} and {@link SemaphoreHold#release} move
 * a folder in and out of its name with one {@code rename(2)} each, where a {@code mkdir} and an
 * {@code rmdir} cost many times more (a directory's creation and removal are the dearest namespace
 * operations of a take and a release, and files created in a fresh directory cost more than in one
 * used before).
 *
 * <p>A spare is a real, private (0700) directory directly in the parent, named
 * {@value #PREFIX}{@code PID.HEX}: a name that starts with a dot, which no semaphore folder of the
 * freezer ever has, so that a listing of folders skips it ({@link #isSpareName}). A release whose
 * folder holds nothing but its lockfile renames the folder to a fresh spare name (the lock still
 * held, so nobody takes the folder meanwhile), then removes the lockfile inside it, and offers it
 * here. A take whose folder is missing writes its record whole into a spare's fresh lockfile
 * (nobody can read it there) and renames the spare to the folder's name: the folder appears with
 * its lock, whole, in one step, and the rename fails, changing nothing, when the name is taken by
 * a folder with anything in it or by something else than a directory.
 *
 * <p>A spare folder may carry emptied files, kept in it for reuse by whoever takes it next (the
 * freezer's spare parcels): files named with the same {@value #PREFIX} start, which no parcel, lock
 * or temporary has, and which hold nothing (their dropper emptied them). A release recycles a folder
 * holding nothing but its lockfile and such files, and names in the spare the files its caller
 * vouches for ({@link Spare#files}); a spare file it cannot vouch for (what a crash between a
 * dropper's rename and its emptying left) is removed first. Whoever removes a spare removes its
 * files with it.
 *
 * <p>Every use tolerates a spare that vanished (a wipe of the root, a hand): its rename fails and
 * the caller falls back to making the folder. Spares left by a process that died (at most
 * {@link #capacity()} per process) stay until the parent is wiped or {@link #removeAbandoned}
 * removes them.
 *
 * <p>Thread-safe. The parent's path is fixed: a caller whose parent moves makes a new pool and
 * {@link #clear}s the old one.
 */
public final class SpareFolders {

  /** The start of every spare's name. */
  public static final String PREFIX = ".spare.";

  /** How many spares a pool keeps by default. */
  public static final int DEFAULT_CAPACITY = 16;

  private static final long PID = ProcessHandle.current().pid();

  private final Path parent;
  private final int capacity;
  private final ArrayDeque<Spare> spares = new ArrayDeque<>(); // guarded by this

  /** A pool of at most {@value #DEFAULT_CAPACITY} spares in {@code parent}. */
  public SpareFolders(Path parent) {
    this(parent, DEFAULT_CAPACITY);
  }

  /**
   * A pool of at most {@code capacity} spares in {@code parent}.
   *
   * @param parent the directory holding the semaphore folders, as a real path (resolved once by
   *     the caller)
   * @param capacity at least 0; 0 keeps none (every take makes its folder, every release removes it)
   */
  public SpareFolders(Path parent, int capacity) {
    if (capacity < 0) {
      throw new IllegalArgumentException("a pool of spare folders cannot hold " + capacity);
    }
    this.parent = Objects.requireNonNull(parent, "parent").toAbsolutePath().normalize();
    this.capacity = capacity;
  }

  /**
   * Whether {@code name} is a spare's name: such a directory is no semaphore folder, and such a file
   * in a semaphore folder is an emptied file kept for reuse, never a parcel.
   */
  public static boolean isSpareName(String name) {
    return name.startsWith(PREFIX);
  }

  /**
   * Removes from {@code parent} the spare folders of processes that are gone (the process id in
   * the name names no live process), with whatever a crash left in them; the spares of live
   * processes stay. Safe beside any take or release: a spare removed under its pool is skipped by
   * the pool's next use. What cannot be removed stays, silently.
   *
   * @return how many were removed
   */
  public static int removeAbandoned(Path parent) {
    int removed = 0;
    try (DirectoryStream<Path> entries = DirectoryListing.open(parent)) {
      for (Path entry : entries) {
        String name = entry.getFileName().toString();
        long pid = ownerOf(name);
        if (pid > 0 && pid != PID && ProcessHandle.of(pid).isEmpty()
            && Files.isDirectory(entry, LinkOption.NOFOLLOW_LINKS) && removeTree(entry)) {
          removed++;
        }
      }
    } catch (IOException e) {
      // the parent cannot be listed: nothing is removed
    }
    return removed;
  }

  /** The process id a spare's name carries, or -1 when {@code name} is no spare's. */
  static long ownerOf(String name) {
    if (!isSpareName(name)) {
      return -1;
    }
    int end = name.indexOf('.', PREFIX.length());
    try {
      return end < 0 ? -1 : Long.parseLong(name, PREFIX.length(), end, 10);
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  /**
   * Removes a dead process's spare, one level deep (a spare holds files only), relative to the
   * directory opened at its name (never through a link, never blocking on a FIFO); whether it went.
   */
  private static boolean removeTree(Path spare) {
    try (SecureDirectoryStream<Path> directory = NoFollowDirectory.open(spare)) {
      for (Path entry : directory) {
        try {
          directory.deleteFile(entry.getFileName());
        } catch (NoSuchFileException e) {
          // gone already
        }
      }
      Files.delete(spare);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  /** The directory the spares are kept in. */
  public Path parent() {
    return parent;
  }

  /** The most spares this pool keeps. */
  public int capacity() {
    return capacity;
  }

  /** How many spares the pool holds now. */
  public synchronized int size() {
    return spares.size();
  }

  /**
   * Removes every spare's folder when it is still there and empty; the pool is empty afterwards.
   * For a parent about to be wiped, dropped or moved.
   */
  public void clear() {
    while (true) {
      Spare spare = poll();
      if (spare == null) {
        return;
      }
      remove(spare);
    }
  }

  /** The spare most recently offered, or {@code null}; it is the caller's until offered again. */
  synchronized Spare poll() {
    return spares.pollFirst();
  }

  /** Keeps {@code spare} for a later take; when the pool is full, removes its folder instead. */
  void offer(Spare spare) {
    synchronized (this) {
      if (spares.size() < capacity) {
        spares.addFirst(spare);
        return;
      }
    }
    remove(spare);
  }

  /** Whether the pool takes spares at all. */
  boolean keepsAny() {
    return capacity > 0;
  }

  /** A fresh spare name in the parent, never used before by this process. */
  Path freshName() {
    return parent.resolve(PREFIX + PID + "."
        + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextLong()));
  }

  /**
   * Removes the spare's folder with the files it carries, when it is still the directory recorded
   * (the files removed relative to it) and nothing else is in it.
   */
  private static void remove(Spare spare) {
    try {
      if (!spare.files().isEmpty()) {
        try (SecureDirectoryStream<Path> directory = NoFollowDirectory.open(spare.path())) {
          if (!spare.fileKey().equals(directory.getFileAttributeView(
              BasicFileAttributeView.class).readAttributes().fileKey())) {
            return; // another directory under a spare's name: not ours to empty
          }
          removeFiles(directory, spare.files());
        }
      }
      Files.deleteIfExists(spare.path());
    } catch (IOException e) {
      // Not empty (a crashed taker's temporary) or refused: it stays, as a dead process's spare.
    }
  }

  /** Removes the named files of {@code directory}; those gone already, or refused, are skipped. */
  static void removeFiles(SecureDirectoryStream<Path> directory, Iterable<String> names) {
    for (String name : names) {
      try {
        directory.deleteFile(Path.of(name));
      } catch (IOException e) {
        // gone already, or not a file: what stays keeps the folder from being removed
      }
    }
  }

  /**
   * One spare: its path in the parent, the directory's identity (device and inode), which the
   * directory opened at that path must have for the spare to be used, and the emptied files it
   * carries ({@link #PREFIX} names, vouched for by the release that made it).
   */
  record Spare(Path path, Object fileKey, List<String> files) {
    Spare {
      files = List.copyOf(files);
    }
  }
}
