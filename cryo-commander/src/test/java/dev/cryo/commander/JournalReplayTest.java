package dev.cryo.commander;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cryo.commander.JournalRecord.Kind;
import dev.cryo.control.RunHome;
import dev.cryo.wire.protocol.AnnouncementKind;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The journal read back: a replay follows the records, a torn last record is dropped, damage
 * before the last record stops the reading, and the journal the commander writes (compacted
 * included) replays into its maps.
 */
class JournalReplayTest {

  @TempDir
  Path directory;

  @RegisterExtension
  final ClaimedHomes homes = new ClaimedHomes();

  /** The test's directory claimed as a run's home, released after the test. */
  private RunHome home() throws IOException {
    return homes.claim(directory);
  }

  private static final List<JournalRecord> RECORDS = List.of(
      new JournalRecord(Kind.AWAKE, "anna", null),
      new JournalRecord(Kind.LINK, "c1", "anna"),
      new JournalRecord(Kind.PAGE, "p1", "c1"),
      new JournalRecord(Kind.AWAKE, "bob", null),
      new JournalRecord(Kind.LINK, "c2", "bob"),
      new JournalRecord(Kind.PAGE, "p2", "c2"),
      new JournalRecord(Kind.PAGE, "p3", "c2"),
      new JournalRecord(Kind.UNPAGE, "p3", null),
      new JournalRecord(Kind.FROZEN, "anna", null),
      new JournalRecord(Kind.AWAKE, "carl", null),
      new JournalRecord(Kind.LINK, "c3", "carl"),
      new JournalRecord(Kind.UNLINK, "c3", null),
      new JournalRecord(Kind.GONE, "carl", null));

  private Path write(List<JournalRecord> records) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (JournalRecord record : records) {
      out.write(record.frame());
    }
    Path file = directory.resolve("journal");
    Files.write(file, out.toByteArray());
    return file;
  }

  @Test
  void aReplayFollowsTheRecords() throws Exception {
    JournalReplay replay = JournalReplay.read(write(RECORDS));

    assertThat(replay.records()).isEqualTo(RECORDS.size());
    assertThat(replay.tornTail()).isFalse();
    assertThat(replay.corruption()).isEmpty();
    assertThat(replay.frozen()).containsExactly("anna");
    assertThat(replay.awake()).containsExactly("bob");
    CommanderItem item = replay.item(Instant.EPOCH);
    assertThat(item.connectionUser()).containsOnlyKeys("c1");
    assertThat(item.pageConnection()).containsOnlyKeys("p1");
  }

  @Test
  void aTornLastRecordIsDroppedAndSaid() throws Exception {
    Path file = write(RECORDS.subList(0, 9));
    byte[] whole = Files.readAllBytes(file);
    for (int cut = 1; cut < RECORDS.get(8).frame().length; cut++) {
      Files.write(file, Arrays.copyOf(whole, whole.length - cut));

      JournalReplay replay = JournalReplay.read(file);

      assertThat(replay.tornTail()).as("cut %d", cut).isTrue();
      assertThat(replay.corruption()).isEmpty();
      assertThat(replay.records()).isEqualTo(8);
      assertThat(replay.frozen()).isEmpty(); // anna's freeze was the torn record
      assertThat(replay.awake()).containsExactly("anna", "bob");
    }
    whole[whole.length - 1] ^= 1; // the last record whole, its body altered: torn as well
    Files.write(file, whole);
    assertThat(JournalReplay.read(file).tornTail()).isTrue();
    assertThat(JournalReplay.read(file).corruption()).isEmpty();
  }

  @Test
  void damageBeforeTheLastRecordStopsTheReading() throws Exception {
    Path file = write(RECORDS);
    byte[] bytes = Files.readAllBytes(file);
    int second = RECORDS.get(0).frame().length;
    bytes[second + JournalRecord.FRAME + 2] ^= 0x40; // inside the second record's body
    Files.write(file, bytes);

    JournalReplay replay = JournalReplay.read(file);

    assertThat(replay.corruption()).hasValueSatisfying(why -> assertThat(why)
        .contains("byte " + second).contains("checksum"));
    assertThat(replay.records()).isEqualTo(1);
  }

  @Test
  void theCommandersJournalReplaysIntoItsMapsAcrossCompactions() throws Exception {
    Routing routing = new Routing(new RecordingSink());
    Journal journal = Journal.start(home(), routing, Journal.Barrier.NONE);
    try {
      for (int i = 0; i < 3 * Journal.COMPACT_MIN; i++) { // past the compaction threshold
        routing.fold("w1", new Announcement(2L * i + 1, AnnouncementKind.NEW_CONNECTION,
            "u" + (i % 50), List.of("c" + i), null));
        routing.fold("w1", new Announcement(2L * i + 2, AnnouncementKind.DROP_CONNECTION,
            "u" + (i % 50), List.of("c" + i), null));
        if (i % 1000 == 0) {
          journal.flush();
        }
      }
      routing.fold("w1", new Announcement(6L * Journal.COMPACT_MIN + 1,
          AnnouncementKind.NEW_CONNECTION, "u7", List.of("kept"), null));
      routing.fold("w1", new Announcement(6L * Journal.COMPACT_MIN + 2,
          AnnouncementKind.USER_FROZEN, "u7", List.of(), null));
      journal.flush();

      JournalReplay replay = JournalReplay.read(journal.file());

      assertThat(replay.corruption()).isEmpty();
      assertThat(replay.frozen()).containsExactly("u7");
      assertThat(replay.awake()).hasSize(49);
      assertThat(replay.item(Instant.EPOCH).connectionUser()).containsExactly(
          java.util.Map.entry("kept", "u7"));
      assertThat(replay.records()).as("compacted").isLessThan(4 * Journal.COMPACT_MIN);
    } finally {
      journal.close(false);
    }
  }
}
