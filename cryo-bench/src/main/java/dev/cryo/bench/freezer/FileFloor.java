package dev.cryo.bench.freezer;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The floor: the same bytes cryo writes (the whole parcels, envelope included), written, read and
 * removed with bare file calls in a per-user folder — {@code createDirectory}, one
 * {@code Files.write} per parcel, one {@code readAllBytes} each, one {@code delete} each, then the
 * folder's {@code delete}. No semaphore, no checks, no encoding.
 */
public final class FileFloor {

  private final Path root;
  private final List<byte[]> files;
  private final String[] names;

  /** A floor at {@code root} (existing) writing {@code files}, one per parcel. */
  public FileFloor(Path root, List<byte[]> files) {
    this.root = root;
    this.files = List.copyOf(files);
    this.names = new String[files.size()];
    for (int i = 0; i < names.length; i++) {
      names[i] = "parcel-" + i;
    }
  }

  /** Writes, reads and removes one user's files; returns the bytes read. */
  public long writeReadRemove(String user) throws IOException {
    Path folder = Files.createDirectory(root.resolve(user));
    for (int i = 0; i < names.length; i++) {
      Files.write(folder.resolve(names[i]), files.get(i));
    }
    long read = 0;
    for (String name : names) {
      read += Files.readAllBytes(folder.resolve(name)).length;
    }
    for (String name : names) {
      Files.delete(folder.resolve(name));
    }
    Files.delete(folder);
    return read;
  }
}
