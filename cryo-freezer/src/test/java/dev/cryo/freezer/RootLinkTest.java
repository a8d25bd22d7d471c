package dev.cryo.freezer;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A freezer root given as a symbolic link: resolved once, and kept to, wipes included. */
class RootLinkTest {

  @TempDir Path temp;

  @Test
  void aRootGivenAsALinkIsResolvedOnceAndTheWipeEmptiesTheRealTarget() throws Exception {
    Path target = Files.createDirectory(temp.resolve("real-root"));
    Path link = Files.createSymbolicLink(temp.resolve("root-link"), target);
    Freezer freezer = new Freezer(link);
assertThat(freezer.root()).isEqualTo(target.toRealPath());
    assertThat(freezer.tryTakeSemaphore("alice", "w")).isTrue();
    freezer.writeUserParcel("alice", Map.of("a", 1), "w", "freeze", "g");
    freezer.releaseSemaphore("alice", "w");
    assertThat(target.resolve(Freezer.key("alice")).resolve(Freezer.USER_PARCEL)).isRegularFile();

    freezer.wipeRoot();

    assertThat(target).as("the real root is wiped, not the link replaced").isEmptyDirectory();
    assertThat(Files.isSymbolicLink(link)).as("the link is left as it was").isTrue();
    assertThat(freezer.tryTakeSemaphore("bob", "w")).isTrue();
    freezer.writeUserParcel("bob", Map.of("b", 2), "w", "freeze", "g");
    assertThat(target.resolve(Freezer.key("bob")).resolve(Freezer.USER_PARCEL))
        .as("parcels written after the wipe land in the real root").isRegularFile();
    assertThat(freezer.readUserParcel("bob")).contains(Map.of("b", 2));
  }
}
