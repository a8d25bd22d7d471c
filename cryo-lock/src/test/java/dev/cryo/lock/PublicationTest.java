package dev.cryo.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cryo.lock.Publication.Durability;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class PublicationTest {

  private static final byte[] CONTENT = "cryo-lock 1\npid 1\n".getBytes(StandardCharsets.UTF_8);

  @TempDir Path dir;
  @TempDir Path outside;

  private List<String> names(Path directory) throws IOException {
    try (Stream<Path> entries = Files.list(directory)) {
      return entries.map(entry -> entry.getFileName().toString()).sorted().toList();
    }
  }

  @ParameterizedTest
  @EnumSource(Durability.class)
  void publishesThePrivateFileWholeAndLeavesNoTemporary(Durability durability) throws Exception {
    Path target = dir.resolve(".lock");

    assertThat(Publication.publishExclusive(target, CONTENT, durability)).isTrue();

    assertThat(Files.readAllBytes(target)).isEqualTo(CONTENT);
    assertThat(Files.getPosixFilePermissions(target, LinkOption.NOFOLLOW_LINKS))
        .isEqualTo(PosixFilePermissions.fromString("rw-------"));
    assertThat(Files.getAttribute(target, "unix:nlink")).isEqualTo(1);
    assertThat(names(dir)).containsExactly(".lock");
  }

  @Test
  void anExistingFileIsLeftAsItIs() throws Exception {
    Path target = dir.resolve(".lock");
    Files.writeString(target, "someone else\n");

    assertThat(Publication.publishExclusive(target, CONTENT, Durability.VOLATILE)).isFalse();

    assertThat(Files.readString(target)).isEqualTo("someone else\n");
    assertThat(names(dir)).containsExactly(".lock");
  }

  @Test
  void aSymbolicLinkIsNeitherFollowedNorReplaced() throws Exception {
    Path victim = outside.resolve("victim");
    Files.writeString(victim, "precious\n");
    Path target = dir.resolve(".lock");
    Files.createSymbolicLink(target, victim);

    assertThat(Publication.publishExclusive(target, CONTENT, Durability.DURABLE)).isFalse();

    assertThat(Files.readSymbolicLink(target)).isEqualTo(victim);
    assertThat(Files.readString(victim)).isEqualTo("precious\n");
    assertThat(names(dir)).containsExactly(".lock");
    assertThat(names(outside)).containsExactly("victim");
  }

  @Test
  void aDanglingSymbolicLinkCountsAsPresentAndItsTargetIsNotCreated() throws Exception {
    Path nowhere = outside.resolve("not-yet");
    Path target = dir.resolve(".lock");
    Files.createSymbolicLink(target, nowhere);

    assertThat(Publication.publishExclusive(target, CONTENT, Durability.VOLATILE)).isFalse();

    assertThat(Files.readSymbolicLink(target)).isEqualTo(nowhere);
    assertThat(nowhere).doesNotExist();
    assertThat(names(dir)).containsExactly(".lock");
  }

  @Test
  void aDirectoryIsLeftAsItIs() throws Exception {
    Path target = dir.resolve(".lock");
    Files.createDirectory(target);
    Files.writeString(target.resolve("inside"), "kept");

    assertThat(Publication.publishExclusive(target, CONTENT, Durability.VOLATILE)).isFalse();

    assertThat(target).isDirectory();
    assertThat(names(target)).containsExactly("inside");
    assertThat(names(dir)).containsExactly(".lock");
  }

  @Test
  void aMissingDirectoryIsNoSuchFile() {
    Path target = dir.resolve("missing").resolve(".lock");

    assertThatThrownBy(() -> Publication.publishExclusive(target, CONTENT, Durability.VOLATILE))
        .isInstanceOf(NoSuchFileException.class);
    assertThat(dir.resolve("missing")).doesNotExist();
  }

  @Test
  void onlyOneOfManyConcurrentPublishersWins() throws Exception {
    Path target = dir.resolve(".lock");
    List<CompletableFuture<Boolean>> publishers = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      byte[] content = ("cryo-lock 1\npid " + (i + 1) + "\n").getBytes(StandardCharsets.UTF_8);
      publishers.add(CompletableFuture.supplyAsync(() -> {
        try {
          return Publication.publishExclusive(target, content, Durability.VOLATILE);
        } catch (IOException e) {
          throw new RuntimeException(e);
        }
      }));
    }
    long winners = 0;
    for (CompletableFuture<Boolean> publisher : publishers) {
      if (publisher.get(TestProcesses.BOUND.toSeconds(), TimeUnit.SECONDS)) {
        winners++;
      }
    }

    assertThat(winners).isEqualTo(1);
    assertThat(Files.readString(target)).matches("cryo-lock 1\npid [1-8]\n");
    assertThat(names(dir)).containsExactly(".lock");
  }

  @Test
  void replaceSwitchesTheContentWhole() throws Exception {
    Path target = dir.resolve("state");
    byte[] a = new byte[256 * 1024];
    byte[] b = new byte[128 * 1024];
    Arrays.fill(a, (byte) 'a');
    Arrays.fill(b, (byte) 'b');
    Publication.replace(target, a, Durability.VOLATILE);
    AtomicBoolean done = new AtomicBoolean();
    CompletableFuture<Integer> reader = CompletableFuture.supplyAsync(() -> {
      int reads = 0;
      try {
        while (!done.get() || reads == 0) {
          byte[] seen = Files.readAllBytes(target);
          reads++;
          if (!(Arrays.equals(seen, a) || Arrays.equals(seen, b))) {
            throw new AssertionError("a reader saw " + seen.length + " bytes of a mix");
          }
        }
      } catch (IOException e) {
        throw new AssertionError("the file was missing during a replacement", e);
      }
      return reads;
    });

    for (int i = 0; i < 200; i++) {
      Publication.replace(target, i % 2 == 0 ? b : a, Durability.VOLATILE);
    }
    done.set(true);

    assertThat(reader.get(TestProcesses.BOUND.toSeconds(), TimeUnit.SECONDS)).isPositive();
    assertThat(Files.readAllBytes(target)).isEqualTo(a);
    assertThat(Files.getPosixFilePermissions(target))
        .isEqualTo(PosixFilePermissions.fromString("rw-------"));
    assertThat(names(dir)).containsExactly("state");
  }

  @Test
  void replaceReplacesASymbolicLinkNotItsTarget() throws Exception {
    Path victim = outside.resolve("victim");
    Files.writeString(victim, "precious\n");
    Path target = dir.resolve("state");
    Files.createSymbolicLink(target, victim);

    Publication.replace(target, CONTENT, Durability.DURABLE);

    assertThat(Files.isSymbolicLink(target)).isFalse();
    assertThat(Files.readAllBytes(target)).isEqualTo(CONTENT);
    assertThat(Files.readString(victim)).isEqualTo("precious\n");
    assertThat(names(dir)).containsExactly("state");
  }

  @Test
  void replaceOfADirectoryFailsAndLeavesNoTemporary() throws Exception {
    Path target = dir.resolve("state");
    Files.createDirectory(target);

    assertThatThrownBy(() -> Publication.replace(target, CONTENT, Durability.VOLATILE))
        .isInstanceOf(IOException.class);

    assertThat(target).isDirectory();
    assertThat(names(dir)).containsExactly("state");
  }

  @Test
  void removeAbandonedRemovesTheSideFilesOfDeadProcessesOnly() throws Exception {
    long dead = TestProcesses.reapedPid();
    Process live = TestProcesses.sleeper();
    try {
      long self = ProcessHandle.current().pid();
      List<String> abandoned = List.of(
          ".lock.cryo-tmp." + dead + ".0123456789abcdef",
          ".lock.cryo-aside." + dead + ".fedcba9876543210");
      List<String> kept = List.of(
          ".lock",
          ".lock.cryo-tmp." + live.pid() + ".0123456789abcdef",
          ".lock.cryo-aside." + self + ".0123456789abcdef",
          "other.cryo-tmp." + dead + ".0123456789abcdef",
          ".lock.cryo-tmp." + dead + ".not-hex-at-all!",
          ".lock.cryo-tmp." + dead + ".0123456789abcdef.extra",
          ".lock.cryo-tmp.x" + dead + ".0123456789abcdef");
      for (String name : abandoned) {
        Files.writeString(dir.resolve(name), "cryo-lock 1\npid " + dead + "\n");
      }
      for (String name : kept) {
        Files.writeString(dir.resolve(name), "kept");
      }

      int removed = Publication.removeAbandoned(dir, ".lock", ProcessTable.system());

      assertThat(removed).isEqualTo(2);
      assertThat(names(dir)).containsExactlyInAnyOrderElementsOf(kept);
      assertThat(Publication.removeAbandoned(dir, ".lock", ProcessTable.system())).isZero();
    } finally {
      TestProcesses.reap(live);
    }
  }

  @Test
  void removeAbandonedInAMissingDirectoryRemovesNothing() throws Exception {
    assertThat(Publication.removeAbandoned(dir.resolve("gone"), ".lock", ProcessTable.system()))
        .isZero();
  }

  @Test
  void sideFilesAreRecognisable() throws Exception {
    Path target = dir.resolve(".lock");
    String temporary = Publication.sibling(target, Publication.TEMPORARY_MARK)
        .getFileName().toString();
    String aside = Publication.sibling(target, Publication.ASIDE_MARK).getFileName().toString();

    assertThat(temporary).startsWith(".lock.cryo-tmp." + ProcessHandle.current().pid() + ".");
    assertThat(aside).startsWith(".lock.cryo-aside." + ProcessHandle.current().pid() + ".");
    assertThat(Publication.isSideFile(temporary)).isTrue();
    assertThat(Publication.isSideFile(aside)).isTrue();
    assertThat(Publication.isSideFile(".lock")).isFalse();
    assertThat(Publication.isSideFile(".lock.cryo-tmp.12.short")).isFalse();
  }
}
