package dev.cryo.bench.freezer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cryo.freezer.CborCodec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** One freeze/adopt iteration of each contender, and one round trip of each codec: no timing. */
class FreezerContendersTest {

  @TempDir
  Path dir;

  @Test
  void theRealisticUserHasTheAskedSizes() {
    CborCodec cbor = new CborCodec();
    assertThat(cbor.encode(RealisticUser.userStore()).length).isBetween(2048, 2200);
    assertThat(RealisticUser.connections()).hasSize(2);
    assertThat(cbor.encode(RealisticUser.connection("c")).length).isBetween(3 * 1024, 3 * 1024 + 600);
  }

  @Test
  void cryoFreezesAndAdoptsAndLeavesNothing() throws Exception {
    CryoFreezeAdopt cryo = new CryoFreezeAdopt(dir.resolve("cryo"));
    assertThat(cryo.freezeAndAdopt("someone")).isEqualTo(3);
    assertThat(cryo.freezeAndAdopt("someone")).isEqualTo(3);
    assertThat(cryo.freezer().folderKeys()).isEmpty();
  }

  @Test
  void tomcatSavesLoadsAndRemovesTheSession() throws Exception {
    TomcatFileStoreSwap tomcat = new TomcatFileStoreSwap(dir.resolve("tomcat"));
    var session = tomcat.session("ABCDEF0123456789");
    assertThat(tomcat.saveLoadRemove(session)).isEqualTo(3);
    assertThat(tomcat.store().getSize()).isZero();
  }

  @Test
  void theFloorWritesTheSameBytesAndLeavesNothing() throws Exception {
    List<byte[]> parcels = new CryoFreezeAdopt(dir.resolve("cryo")).parcelBytes();
    long total = parcels.stream().mapToLong(b -> b.length).sum();
    FileFloor floor = new FileFloor(Files.createDirectory(dir.resolve("floor")), parcels);
    assertThat(floor.writeReadRemove("user")).isEqualTo(total);
    try (Stream<Path> left = Files.list(dir.resolve("floor"))) {
      assertThat(left).isEmpty();
    }
  }

  @Test
  void theContractFloorFreezesAndAdoptsAndLeavesNothing() throws Exception {
    ContractFloor contract = new ContractFloor(Files.createDirectory(dir.resolve("contract")));
    assertThat(contract.freezeAndAdopt("someone")).isEqualTo(3);
    assertThat(contract.freezeAndAdopt("someone")).isEqualTo(3);
    try (Stream<Path> left = Files.list(dir.resolve("contract"))) {
      assertThat(left).isEmpty();
    }
  }

  @Test
  void theLoopRunsEveryContenderOnceAndRefusesAnUnknownOne() throws Exception {
    for (String contender : new String[] {"cryo", "tomcatFileStore", "floor", "contractFloor"}) {
      FreezeAdoptLoop.main(new String[] {contender, "1", "1"});
    }
    org.assertj.core.api.Assertions.assertThatThrownBy(
        () -> FreezeAdoptLoop.main(new String[] {"nobody", "1", "1"}))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("nobody");
  }

  @Test
  void everyCodecRoundTripsThePayload() throws Exception {
    CodecBenchmark codecs = new CodecBenchmark();
    Object expected = RealisticUser.whole();
    assertThat(codecs.smile()).isEqualTo(expected);
    assertThat(codecs.cbor()).isEqualTo(expected);
    assertThat(codecs.jdkSerialization()).isEqualTo(expected);
    assertThat(codecs.jacksonJson()).isEqualTo(expected);
    assertThat(codecs.jacksonSmile()).isEqualTo(expected);
    assertThat(codecs.fory()).isEqualTo(expected);
    assertThat(java.util.Arrays.stream(codecs.sizes()).min().orElseThrow()).isGreaterThan(6 * 1024);
  }
}
