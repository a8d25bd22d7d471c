package dev.cryo.freezer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A user's folder swapped for a symbolic link: the holder keeps working in the folder it took (its
 * descriptor), a freezer without a hold refuses the link, and nothing is read, written or removed
 * through it.
 */
class FolderLinkTest {

  @TempDir Path temp;

  static final Map<String, Object> STORE = Map.of("cart", "mine");
  static final Map<String, Object> DECOY = Map.of("planted", true);

  /** A folder elsewhere holding a valid decoy parcel, and the user's folder swapped for a link to it. */
  private Path plantDecoy(Freezer freezer, String user) throws Exception {
    Freezer elsewhere = new Freezer(temp.resolve("elsewhere"));
    assertThat(elsewhere.tryTakeSemaphore(user, "stranger")).isTrue();
    elsewhere.writeUserParcel(user, DECOY, "stranger", "plant", "g");
    elsewhere.writeConnectionParcel(user, "c1", DECOY, "stranger", "plant", "g");
    elsewhere.releaseSemaphore(user, "stranger");
    Path planted = elsewhere.folder(user);
    Path folder = freezer.folder(user);
    if (Files.exists(folder, LinkOption.NOFOLLOW_LINKS)) {
      Files.move(folder, temp.resolve("moved-away"));
    }
    Files.createSymbolicLink(folder, planted);
    return planted;
  }

  @Test
  void theHolderKeepsToTheFolderItTookWhenTheFolderIsSwappedForALink() throws Exception {
    Freezer freezer = new Freezer(temp.resolve("freezer"));
    assertThat(freezer.tryTakeSemaphore("alice", "w")).isTrue();
    freezer.writeConnectionParcel("alice", "c1", STORE, "w", "freeze", "g");
    Path planted = plantDecoy(freezer, "alice");
    Path held = temp.resolve("moved-away");

    freezer.writeUserParcel("alice", STORE, "w", "freeze", "g");
    assertThat(freezer.readUserParcel("alice")).contains(STORE);
    assertThat(freezer.readConnectionParcel("alice", "c1")).contains(STORE);
    freezer.dropConnectionParcel("alice", "c1");
    freezer.releaseSemaphore("alice", "w");

    Freezer reader = new Freezer(temp.resolve("elsewhere"));
    assertThat(reader.readUserParcel("alice")).as("the decoy was not written over").contains(DECOY);
    assertThat(reader.readConnectionParcel("alice", "c1")).as("nor dropped").contains(DECOY);
    assertThat(held.resolve(Freezer.USER_PARCEL)).as("the write went to the held folder").isRegularFile();
    assertThat(held.resolve(".lock")).as("the release removed the held lock").doesNotExist();
    assertThat(planted.resolve(".lock")).doesNotExist();
  }

  @Test
  void withoutAHoldAFolderThatIsALinkIsRefusedNeverFollowed() throws Exception {
    Freezer freezer = new Freezer(temp.resolve("freezer"));
    Path planted = plantDecoy(freezer, "bob");
    assertThatThrownBy(() -> freezer.readUserParcel("bob"))
        .isInstanceOfSatisfying(FreezerException.class,
            e -> assertThat(e.reason()).isEqualTo(FreezerException.Reason.NOT_A_REGULAR_FILE));
    assertThatThrownBy(() -> freezer.userParcelHeader("bob"))
        .isInstanceOfSatisfying(FreezerException.class,
            e -> assertThat(e.reason()).isEqualTo(FreezerException.Reason.NOT_A_REGULAR_FILE));
    assertThatThrownBy(() -> freezer.writeUserParcel("bob", STORE, "w", "freeze", "g"))
        .isInstanceOfSatisfying(FreezerException.class,
            e -> assertThat(e.reason()).isEqualTo(FreezerException.Reason.NOT_A_REGULAR_FILE));
    assertThatThrownBy(() -> freezer.dropConnectionParcel("bob", "c1"))
        .isInstanceOfSatisfying(FreezerException.class,
            e -> assertThat(e.reason()).isEqualTo(FreezerException.Reason.NOT_A_REGULAR_FILE));
    assertThat(planted.resolve(Freezer.USER_PARCEL)).isRegularFile();
    assertThat(planted.resolve("connection-c1.parcel")).isRegularFile();
    assertThat(new Freezer(temp.resolve("elsewhere")).readUserParcel("bob")).contains(DECOY);
  }
}
