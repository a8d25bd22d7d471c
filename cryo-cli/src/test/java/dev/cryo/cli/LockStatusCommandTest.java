package dev.cryo.cli;

import static dev.cryo.cli.InProcess.cryo;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cryo.cli.InProcess.Result;
import dev.cryo.lock.LockRecord;
import dev.cryo.lock.ProcessLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code cryo lock status}: every state, its exit code, and the documented JSON shape. */
class LockStatusCommandTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final List<String> TOP_FIELDS =
      List.of("lockFile", "state", "liveness", "reclaimable", "reason", "holder");
  private static final List<String> HOLDER_FIELDS =
      List.of("pid", "start", "boot", "machine", "host", "name", "token", "since", "companion");

  @TempDir Path dir;

  private JsonNode json(int expectedExit) throws Exception {
    Result result = cryo("lock", "status", dir.toString(), "--json");
    assertThat(result.exitCode()).as(result.err()).isEqualTo(expectedExit);
    assertThat(result.err()).isEmpty();
    assertThat(result.out()).endsWith("\n").doesNotContain("\n\n");
    assertThat(result.out().strip()).doesNotContain("\n");
    JsonNode node = JSON.readTree(result.out());
    assertThat(fieldNames(node)).containsExactlyElementsOf(TOP_FIELDS);
    assertThat(node.get("lockFile").asText()).isEqualTo(dir.toRealPath().resolve(".lock").toString());
    if (!node.get("holder").isNull()) {
      assertThat(fieldNames(node.get("holder"))).containsExactlyElementsOf(HOLDER_FIELDS);
    }
    return node;
  }

  private static List<String> fieldNames(JsonNode node) {
    List<String> names = new ArrayList<>();
    node.fieldNames().forEachRemaining(names::add);
    return names;
  }

  @Test
  void free() throws Exception {
    Result text = cryo("lock", "status", dir.toString());
    assertThat(text.exitCode()).isZero();
    assertThat(text.out()).isEqualTo(dir.toRealPath().resolve(".lock") + ": free\n");
    JsonNode node = json(0);
    assertThat(node.get("state").asText()).isEqualTo("free");
    assertThat(node.get("liveness").isNull()).isTrue();
    assertThat(node.get("reclaimable").asBoolean()).isFalse();
    assertThat(node.get("reason").isNull()).isTrue();
    assertThat(node.get("holder").isNull()).isTrue();
  }

  @Test
  void heldByALiveHolderGivesEveryFieldOfTheRecord() throws Exception {
    try (ProcessLock lock = ProcessLock.acquire(dir, Duration.ZERO, "status test")) {
      LockRecord record = lock.record();
      JsonNode node = json(1);
      assertThat(node.get("state").asText()).isEqualTo("held");
      assertThat(node.get("liveness").asText()).isEqualTo("alive");
      assertThat(node.get("reclaimable").asBoolean()).isFalse();
      assertThat(node.get("reason").asText()).isEqualTo("pid " + record.pid() + " is alive");
      JsonNode holder = node.get("holder");
      assertThat(holder.get("pid").asLong()).isEqualTo(ProcessHandle.current().pid());
      assertThat(holder.get("start").asLong()).isEqualTo(record.start());
      assertThat(holder.get("boot").asText()).isEqualTo(record.bootId());
      assertThat(holder.get("machine").asText()).isEqualTo(record.machineId());
      assertThat(holder.get("host").asText()).isEqualTo(record.host());
      assertThat(holder.get("name").asText()).isEqualTo("status test");
      assertThat(holder.get("token").asText()).isEqualTo(record.token());
      assertThat(holder.get("since").asText()).isEqualTo(record.since().toString());
      assertThat(holder.get("companion").isNull()).isTrue();

      Result text = cryo("lock", "status", dir.toString());
      assertThat(text.exitCode()).isEqualTo(1);
      assertThat(text.out()).contains(": held, holder alive (pid " + record.pid() + " is alive)",
          "holder     status test", "token      " + record.token());
    }
  }

  @Test
  void aCompanionKeepsTheLockAliveAndIsReported() throws Exception {
    Process companion = new ProcessBuilder("sleep", "60").start();
    try {
      // The holder named in the record is dead; only the companion lives.
      LockRecord record = Records.dead("with companion")
          .withCompanion(companion.pid(), startOf(companion.pid()));
      Records.write(dir, record);
      JsonNode node = json(1);
      assertThat(node.get("liveness").asText()).isEqualTo("alive");
      assertThat(node.get("reason").asText())
          .isEqualTo("companion pid " + companion.pid() + " is alive");
      assertThat(fieldNames(node.at("/holder/companion"))).containsExactly("pid", "start");
      assertThat(node.at("/holder/companion/pid").asLong()).isEqualTo(companion.pid());
      assertThat(node.at("/holder/companion/start").asLong()).isEqualTo(record.companionStart());
      assertThat(cryo("lock", "status", dir.toString()).out()).contains("companion  pid "
          + companion.pid());
    } finally {
      companion.destroyForcibly().waitFor();
    }
    JsonNode node = json(2);
    assertThat(node.get("liveness").asText()).isEqualTo("dead");
    assertThat(node.get("reason").asText()).contains("and no live process has companion pid "
        + companion.pid());
  }

  @Test
  void deadHolderIsReclaimableWithExit2() throws Exception {
    LockRecord record = Records.dead("ghost");
    Records.write(dir, record);
    JsonNode node = json(2);
    assertThat(node.get("state").asText()).isEqualTo("held");
    assertThat(node.get("liveness").asText()).isEqualTo("dead");
    assertThat(node.get("reclaimable").asBoolean()).isTrue();
    assertThat(node.get("reason").asText()).isEqualTo("no live process has pid " + record.pid());
    assertThat(node.at("/holder/name").asText()).isEqualTo("ghost");
    Result text = cryo("lock", "status", dir.toString());
    assertThat(text.exitCode()).isEqualTo(2);
    assertThat(text.out()).contains("holder dead", "cryo lock break");
    assertThat(dir.resolve(".lock")).hasBinaryContent(record.toBytes());
  }

  @Test
  void anotherHostIsUnknownAndHeld() throws Exception {
    Records.write(dir, Records.elsewhere("remote"));
    JsonNode node = json(1);
    assertThat(node.get("liveness").asText()).isEqualTo("unknown");
    assertThat(node.get("reclaimable").asBoolean()).isFalse();
    assertThat(node.get("reason").asText()).contains("another-host");
  }

  @Test
  void aBarePidRecordHasOnlyAPid() throws Exception {
    Files.writeString(dir.resolve(".lock"), "1\n");
    JsonNode node = json(1);
    JsonNode holder = node.get("holder");
    assertThat(holder.get("pid").asLong()).isEqualTo(1);
    for (String field : HOLDER_FIELDS.subList(1, HOLDER_FIELDS.size())) {
      assertThat(holder.get(field).isNull()).as(field).isTrue();
    }
  }

  @Test
  void malformedRecordsSayWhyAndWhenTheyBecomeReclaimable() throws Exception {
    Records.writeAged(dir, "cryo-lock 1\npid banana\n", 0);
    JsonNode young = json(3);
    assertThat(young.get("state").asText()).isEqualTo("malformed");
    assertThat(young.get("liveness").isNull()).isTrue();
    assertThat(young.get("holder").isNull()).isTrue();
    assertThat(young.get("reclaimable").asBoolean()).isFalse();
    assertThat(young.get("reason").asText()).contains("pid is not a decimal number",
        "respected until");
    Records.writeAged(dir, "", 60);
    JsonNode old = json(3);
    assertThat(old.get("reclaimable").asBoolean()).isTrue();
    assertThat(old.get("reason").asText()).contains("the lockfile is empty", "reclaimable");
  }

  @Test
  void whatIsNotARegularFileIsNamedNeverFollowedNorOpened() throws Exception {
    Path target = Records.write(Files.createDirectory(dir.resolve("elsewhere")),
        Records.dead("behind a link"));
    Files.createSymbolicLink(dir.resolve(".lock"), target);
    assertThat(json(3).get("reason").asText()).contains("a symbolic link");
    Files.delete(dir.resolve(".lock"));

    Records.mkfifo(dir.resolve(".lock"));
    JsonNode fifo = json(3); // would block forever if the FIFO were opened for reading
    assertThat(fifo.get("state").asText()).isEqualTo("not_regular");
    assertThat(fifo.get("reason").asText()).contains("a FIFO");
    Files.delete(dir.resolve(".lock"));

    Files.createDirectory(dir.resolve(".lock"));
    assertThat(json(3).get("reason").asText()).contains("a directory");
    Result text = cryo("lock", "status", dir.toString());
    assertThat(text.exitCode()).isEqualTo(3);
    assertThat(text.out()).contains("not a regular file");
  }

  @Test
  void aMissingDirectoryOrAFileIsRefusedWithExit66() throws Exception {
    Result missing = cryo("lock", "status", dir.resolve("missing").toString(), "--json");
    assertThat(missing.exitCode()).isEqualTo(ExitCodes.NO_INPUT);
    assertThat(missing.out()).isEmpty();
    assertThat(missing.errLines()).singleElement().asString().contains("directory_missing");
    Path file = Files.writeString(dir.resolve("file"), "x");
    Result notDirectory = cryo("lock", "status", file.toString());
    assertThat(notDirectory.exitCode()).isEqualTo(ExitCodes.NO_INPUT);
    assertThat(notDirectory.errLines()).singleElement().asString().contains("not_a_directory");
  }

  private static long startOf(long pid) {
    return dev.cryo.lock.ProcessTable.system().startOf(pid).orElseThrow();
  }

  /** A modification time centuries ahead is not believed: reclaimable, and no overflow. */
  @Test
  void aMalformedRecordModifiedCenturiesAheadIsReclaimable() throws Exception {
    Path lock = Files.writeString(dir.resolve(".lock"), "garbage");
    Process touch = new ProcessBuilder("touch", "-m", "-d", "2400-01-01T00:00:00Z",
        lock.toString()).inheritIO().start();
    assertThat(touch.waitFor()).isZero();

    Result status = cryo("lock", "status", "--json", dir.toString());
    Result broken = cryo("lock", "break", dir.toString());

    assertThat(status.exitCode()).as(status.err()).isEqualTo(LockStatusReport.EXIT_UNUSABLE);
    assertThat(JSON.readTree(status.out()).get("reclaimable").asBoolean()).isTrue();
    assertThat(JSON.readTree(status.out()).get("reason").asText()).contains("not believed");
    assertThat(broken.exitCode()).as(broken.err()).isZero();
    assertThat(lock).doesNotExist();
  }

  /**
   * {@code link/..} names the parent of the link's target, as the kernel resolves it and as
   * {@code cryo lock run} locks it; never the directory holding the link.
   */
  @Test
  void aDirectorySpelledThroughALinkAndDotDotIsTheOneLockRunLocks() throws Exception {
    Path inner = Files.createDirectories(dir.resolve("a").resolve("b"));
    Path link = Files.createSymbolicLink(dir.resolve("link"), inner);
    String spelled = link + "/..";

    try (ProcessLock lock = ProcessLock.acquire(Path.of(spelled), Duration.ZERO, "spelled")) {
      Result status = cryo("lock", "status", "--json", spelled);
      Result refused = cryo("lock", "break", spelled);

      assertThat(status.exitCode()).as(status.err()).isEqualTo(LockStatusReport.EXIT_HELD);
      JsonNode report = JSON.readTree(status.out());
      assertThat(report.get("lockFile").asText()).isEqualTo(lock.lockFile().toString());
      assertThat(report.get("holder").get("name").asText()).isEqualTo("spelled");
      assertThat(refused.exitCode()).as(refused.err()).isEqualTo(LockBreakCommand.EXIT_REFUSED);
      assertThat(lock.lockFile()).exists();
    }
  }
}
