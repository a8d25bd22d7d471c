package dev.cryo.control;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A root works through its own descriptor: another root of the same directory may close its
 * descriptors, and their numbers be reused for another directory, between the moment a root picks
 * the descriptor it publishes through and the moment it uses it, and the publication still lands
 * in the root's own directory.
 */
class OwnDescriptorTest {

  @TempDir Path base;
  @TempDir Path other;

  private final List<DirectoryStream<Path>> opened = new ArrayList<>();

  @AfterEach
  void closeAll() throws IOException {
    SafeRoot.descriptorProbe = descriptor -> { };
    for (DirectoryStream<Path> stream : opened) {
      stream.close();
    }
  }

  @Test
  void aPublicationLandsInTheRootsOwnDirectoryWhenAnotherRootsDescriptorIsReused()
      throws Exception {
    Path home = Files.createDirectory(base.resolve("home"));
    SafeRoot first = SafeRoot.open(home);
    try (SafeRoot second = SafeRoot.open(home)) {
      SafeRoot.descriptorProbe = chosen -> {
        // The other root of the same directory goes, and its numbers are taken by another one.
        first.close();
        for (int i = 0; i < 8 && sameFile(chosen, home); i++) {
          opened.add(Files.newDirectoryStream(other));
        }
      };

      second.publishExclusive("stop-request", "request\n".getBytes());
    }

    assertThat(home.resolve("stop-request")).hasContent("request");
    try (var entries = Files.list(other)) {
      assertThat(entries).isEmpty();
    }
  }

  /** Many roots of one directory, opened, used and closed at once: each finds its own. */
  @Test
  void concurrentRootsOfOneDirectoryEachUseTheirOwnDescriptor() throws Exception {
    Path home = Files.createDirectory(base.resolve("home"));
    int threads = 8;
    int rounds = 25;
    java.util.concurrent.ExecutorService pool =
        java.util.concurrent.Executors.newFixedThreadPool(threads);
    try {
      List<java.util.concurrent.Future<?>> done = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int thread = t;
        done.add(pool.submit(() -> {
          for (int round = 0; round < rounds; round++) {
            try (SafeRoot root = SafeRoot.open(home)) {
              String name = "file-" + thread + "-" + round;
              assertThat(root.publishExclusive(name, name.getBytes())).isTrue();
            }
          }
          return null;
        }));
      }
      for (java.util.concurrent.Future<?> future : done) {
        future.get(60, java.util.concurrent.TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    try (var entries = Files.list(home)) {
      assertThat(entries).hasSize(threads * rounds);
    }
  }

  private static boolean sameFile(Path descriptor, Path directory) {
    try {
      return Files.readAttributes(descriptor, BasicFileAttributes.class).fileKey().equals(
          Files.readAttributes(directory, BasicFileAttributes.class).fileKey());
    } catch (IOException e) {
      return false;
    }
  }
}
