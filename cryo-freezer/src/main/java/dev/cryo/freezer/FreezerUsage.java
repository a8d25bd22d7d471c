package dev.cryo.freezer;

import java.io.IOException;
import java.nio.file.FileStore;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;

/**
 * How big a freezer is and how much room its file system has left, measured once by
 * {@link #measure(Path)}. Immutable.
 *
 * <p>The size is the bytes of the files under the root (symbolic links counted as files, never
 * followed; a file with several links, such as a semaphore record linked as several folders'
 * locks, counted once; the root itself not counted as a folder); files and folders released or dropped while
 * the walk runs are skipped, so a measure taken during freezes and wakes is a consistent-enough
 * snapshot, never an error. The free space is what this process may still write
 * ({@link FileStore#getUsableSpace()}).
 *
 * @param bytes the bytes of the freezer's files
 * @param files how many files
 * @param folders how many folders under the root
 * @param usableBytes the bytes of its file system this process may still write
 * @param totalBytes the size of its file system
 */
public record FreezerUsage(long bytes, long files, long folders, long usableBytes,
    long totalBytes) {

  /** The usage of an empty freezer on a file system that could not be asked: all zeros. */
  public static final FreezerUsage UNKNOWN = new FreezerUsage(0, 0, 0, 0, 0);

  /**
   * The free space in percent of the whole file system (the freezer's storage-free figure);
   * 0 when the file system's size is unknown.
   */
  public double freePercent() {
    return totalBytes == 0 ? 0.0 : 100.0 * usableBytes / totalBytes;
  }

  /**
   * Walks {@code root} and asks its file system. Blocks for the walk: about one stat per file.
   * Safe from any thread; it changes nothing.
   *
   * @throws IOException when the file system cannot be asked, or the root cannot be walked
   */
  public static FreezerUsage measure(Path root) throws IOException {
    FileStore store = Files.getFileStore(root);
    long total = store.getTotalSpace();
    long usable = store.getUsableSpace();
    long[] size = new long[3]; // bytes, files, folders
    Files.walkFileTree(root, new SimpleFileVisitor<>() {
      @Override
      public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attributes) {
        if (!dir.equals(root)) {
          size[2]++;
        }
        return FileVisitResult.CONTINUE;
      }

      /** The files seen, by identity: a semaphore record linked in several folders is one file. */
      private final java.util.Set<Object> seen = new java.util.HashSet<>();

      @Override
      public FileVisitResult visitFile(Path file, BasicFileAttributes attributes) {
        Object key = attributes.fileKey();
        if (key == null || seen.add(key)) {
          size[0] += attributes.size();
          size[1]++;
        }
        return FileVisitResult.CONTINUE;
      }

      @Override
      public FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
        if (e instanceof NoSuchFileException) {
          return FileVisitResult.CONTINUE; // released or dropped meanwhile
        }
        throw e;
      }
    });
    return new FreezerUsage(size[0], size[1], size[2], usable, total);
  }
}
