package dev.cryo.freezer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The parcel cap: a planted huge (sparse) file is refused unread; a too-big write writes nothing. */
class ParcelCapTest {

  @TempDir Path temp;

  @Test
  void aPlantedSparseFileOfGigabytesIsRefusedByItsSizeWithoutBeingRead() throws Exception {
    Freezer freezer = new Freezer(temp.resolve("freezer"));
    assertThat(freezer.maxParcelLength()).isEqualTo(Freezer.DEFAULT_MAX_PARCEL_LENGTH);
    assertThat(freezer.tryTakeSemaphore("alice", "w")).isTrue();
    Path planted = freezer.folder("alice").resolve(Freezer.USER_PARCEL);
    try (RandomAccessFile file = new RandomAccessFile(planted.toFile(), "rw")) {
      file.setLength(3L << 29); // 1.5 GiB of nothing: no disk used, more than a heap should hold
    }
    assertThatThrownBy(() -> freezer.readUserParcel("alice"))
        .isInstanceOfSatisfying(FreezerException.class, e -> {
          assertThat(e.reason()).isEqualTo(FreezerException.Reason.PARCEL_TOO_LARGE);
          assertThat(e.file()).isEqualTo(planted);
        })
        .hasMessageContaining(planted.toString()).hasMessageContaining("not read");
    assertThat(Files.size(planted)).as("left as it is").isEqualTo(3L << 29);
    assertThatThrownBy(() -> freezer.userParcelHeader("alice"))
        .isInstanceOfSatisfying(FreezerException.class,
            e -> assertThat(e.reason()).isEqualTo(FreezerException.Reason.CORRUPT_PARCEL));
    freezer.dropUserParcel("alice");
    freezer.releaseSemaphore("alice", "w");
  }

  @Test
  void theCapIsConfigurableForReadsAndWrites() throws Exception {
    Freezer roomy = new Freezer(temp.resolve("freezer"));
    assertThat(roomy.tryTakeSemaphore("bob", "w")).isTrue();
    roomy.writeUserParcel("bob", Map.of("blob", new byte[4096]), "w", "freeze", "g");
    long written = Files.size(roomy.folder("bob").resolve(Freezer.USER_PARCEL));

    Freezer tight = new Freezer(roomy.root(), new SmileCodec(), 1024);
    assertThat(tight.maxParcelLength()).isEqualTo(1024);
    assertThatThrownBy(() -> tight.readUserParcel("bob"))
        .isInstanceOfSatisfying(FreezerException.class,
            e -> assertThat(e.reason()).isEqualTo(FreezerException.Reason.PARCEL_TOO_LARGE))
        .hasMessageContaining("1024");
    assertThat(tight.userParcelHeader("bob")).as("the header alone is still shown").isPresent();
    assertThatThrownBy(() -> tight.writeUserParcel("bob", Map.of("blob", new byte[2048]), "w",
        "freeze", "g"))
        .isInstanceOfSatisfying(FreezerException.class,
            e -> assertThat(e.reason()).isEqualTo(FreezerException.Reason.PARCEL_TOO_LARGE))
        .hasMessageContaining("nothing was written");
    assertThat(Files.size(roomy.folder("bob").resolve(Freezer.USER_PARCEL)))
        .as("the parcel there is kept").isEqualTo(written);
    assertThat(roomy.readUserParcel("bob")).isPresent();
    assertThatThrownBy(() -> new Freezer(roomy.root(), new SmileCodec(), 0))
        .isInstanceOf(IllegalArgumentException.class);
    roomy.releaseSemaphore("bob", "w");
  }
}
