package dev.cryo.lock;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;

/**
 * A file's identity, link count and open descriptors, for the tests of the takes (no link
 * followed).
 */
public final class Inodes {

  private Inodes() {}

  /** The device and inode of what is at {@code path}. */
  public static Object key(Path path) throws IOException {
    return Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS)
        .fileKey();
  }

  /** How many names the file at {@code path} has. */
  public static int links(Path path) throws IOException {
    return (Integer) Files.getAttribute(path, "unix:nlink", LinkOption.NOFOLLOW_LINKS);
  }

  /**
   * How many descriptors of this JVM are open on the file (or directory) {@code key} identifies,
   * found through {@code /proc/self/fd} (a descriptor of a file whose last name is gone counts).
   */
  public static int descriptors(Object key) throws IOException {
    int count = 0;
    try (DirectoryStream<Path> descriptors = Files.newDirectoryStream(Path.of("/proc/self/fd"))) {
      for (Path descriptor : descriptors) {
        try {
          if (key.equals(Files.readAttributes(descriptor, BasicFileAttributes.class).fileKey())) {
            count++;
          }
        } catch (IOException e) {
          // closed meanwhile (the listing's own descriptor, for one)
        }
      }
    }
    return count;
  }
}
