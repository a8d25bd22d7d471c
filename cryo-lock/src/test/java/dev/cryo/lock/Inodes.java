package dev.cryo.lock;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;

/** A file's identity and link count, for the tests of linked records (no link followed). */
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
}
