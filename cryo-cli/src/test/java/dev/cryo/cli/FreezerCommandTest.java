package dev.cryo.cli;

import static dev.cryo.cli.InProcess.cryo;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cryo.cli.InProcess.Result;
import dev.cryo.freezer.FolderKeys;
import dev.cryo.freezer.Freezer;
import dev.cryo.lock.LockRecord;
import dev.cryo.lock.SpareFolders;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code cryo freezer ls}, {@code show} and {@code df} on a freezer built with the freezer's own API:
 * a live holder (this JVM) with a user and two connections, a dead holder's folder with a corrupt
 * parcel, and the commander's parcel.
 */
class FreezerCommandTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String ALICE = "alice@example.org";
  private static final String BOB = "../bob";
  private static final byte[] BLOB = {0, 1, 2, (byte) 0xFF, 42};

  @TempDir Path dir;
  private Path root;
  private Freezer freezer;
  private LockRecord bobsDeadHolder;

  @BeforeEach
  void buildFreezer() throws Exception {
    root = dir.resolve("freezer");
    freezer = new Freezer(root);
    assertThat(freezer.tryTakeSemaphore(ALICE, "worker-1")).isTrue();
    Map<String, Object> store = new LinkedHashMap<>();
    store.put("name", "Alice");
    store.put("visits", 3);
    store.put("avatar", BLOB);
    store.put("tags", List.of("a", true));
    freezer.writeUserParcel(ALICE, store, "worker-1", "freeze", "group-a");
    freezer.writeConnectionParcel(ALICE, "c1", Map.of("pages", List.of("p1", "p2")), "worker-1",
        "freeze", "group-a");
    freezer.writeConnectionParcel(ALICE, "c/2", Map.of("pages", List.of()), "worker-1", "login",
        "group-a");

    assertThat(freezer.tryTakeSemaphore(BOB, "worker-2")).isTrue();
    freezer.writeUserParcel(BOB, Map.of("name", "Bob"), "worker-2", "freeze", "group-b");
    freezer.writeConnectionParcel(BOB, "c9", Map.of("pages", List.of("p")), "worker-2", "freeze",
        "group-b");
    Path torn = freezer.connectionParcel(BOB, "c9");
    try (FileChannel channel = FileChannel.open(torn, StandardOpenOption.WRITE)) {
      channel.truncate(Files.size(torn) - 3); // a write cut short in its payload
    }
    // worker-2 dies holding Bob's semaphore: its record now names a dead process.
    bobsDeadHolder = Records.dead("worker-2");
    Files.write(freezer.folder(BOB).resolve(".lock"), bobsDeadHolder.toBytes());

    freezer.writeCommanderParcel(Map.of("epoch", 7), "commander", "start");

    // Carol's folder, emptied by an adoption, is kept at the root as a spare for the next
    // freeze: it is no user's folder, and no listing shows it.
    assertThat(freezer.tryTakeSemaphore("carol", "worker-1")).isTrue();
    freezer.releaseSemaphore("carol", "worker-1");
    try (var entries = Files.list(root)) {
      assertThat(entries.map(p -> p.getFileName().toString()))
          .anyMatch(SpareFolders::isSpareName);
    }
  }

  @AfterEach
  void releaseAlice() throws Exception {
    freezer.releaseSemaphore(ALICE, "worker-1");
  }

  private static JsonNode json(Result result, int expectedExit) throws Exception {
    assertThat(result.exitCode()).as(result.err()).isEqualTo(expectedExit);
    assertThat(result.err()).isEmpty();
    assertThat(result.out().strip()).doesNotContain("\n");
    return JSON.readTree(result.out());
  }

  private static JsonNode named(JsonNode parcels, String file) {
    for (JsonNode parcel : parcels) {
      if (parcel.get("file").asText().equals(file)) {
        return parcel;
      }
    }
    throw new AssertionError("no " + file + " in " + parcels);
  }

  private static List<String> fieldNames(JsonNode node) {
    List<String> names = new ArrayList<>();
    node.fieldNames().forEachRemaining(names::add);
    return names;
  }

  @Test
  void lsJsonNamesEveryFolderParcelHeaderAndHolder() throws Exception {
    JsonNode node = json(cryo("freezer", "ls", root.toString(), "--json"), 1);
    assertThat(fieldNames(node)).containsExactly("root", "folders", "commander");
    assertThat(node.get("root").asText()).isEqualTo(root.toString());
    JsonNode folders = node.get("folders");
    assertThat(folders).hasSize(2);
    // Sorted by key: "%2E%2E%2Fbob" before "alice%40example%2Eorg".
    JsonNode bob = folders.get(0);
    JsonNode alice = folders.get(1);
    assertThat(bob.get("key").asText()).isEqualTo(FolderKeys.key(BOB)).isEqualTo("%2E%2E%2Fbob");
    assertThat(alice.get("key").asText()).isEqualTo(FolderKeys.key(ALICE));
    assertThat(fieldNames(alice)).containsExactly("key", "folder", "parcels", "semaphore",
        "unreadable");
    assertThat(alice.get("unreadable").isNull()).isTrue();

    JsonNode aliceParcels = alice.get("parcels");
    assertThat(aliceParcels).hasSize(3);
    JsonNode user = aliceParcels.get(0);
    assertThat(fieldNames(user)).containsExactly("file", "kind", "connection", "size", "state",
        "problem", "header");
    assertThat(user.get("file").asText()).isEqualTo("user.parcel");
    assertThat(user.get("kind").asText()).isEqualTo("user");
    assertThat(user.get("size").asLong())
        .isEqualTo(Files.size(freezer.folder(ALICE).resolve("user.parcel")));
    assertThat(user.get("state").asText()).isEqualTo("ok");
    assertThat(user.get("problem").isNull()).isTrue();
    JsonNode header = user.get("header");
    assertThat(header.get("writer").asText()).isEqualTo("worker-1");
    assertThat(header.get("cause").asText()).isEqualTo("freeze");
    assertThat(header.get("group").asText()).isEqualTo("group-a");
    assertThat(header.get("codec").asText()).isEqualTo("smile");
    assertThat(header.get("ageSeconds").asLong()).isBetween(0L, 60L);
    assertThat(aliceParcels.get(1).get("connection").asText()).isEqualTo("c%2F2");
    assertThat(aliceParcels.get(1).get("header").get("cause").asText()).isEqualTo("login");
    assertThat(aliceParcels.get(2).get("connection").asText()).isEqualTo("c1");
    assertThat(aliceParcels.get(2).get("kind").asText()).isEqualTo("connection");

    JsonNode aliceLock = alice.get("semaphore");
    assertThat(aliceLock.get("state").asText()).isEqualTo("held");
    assertThat(aliceLock.get("liveness").asText()).isEqualTo("alive");
    assertThat(aliceLock.get("holder").get("pid").asLong()).isEqualTo(ProcessHandle.current().pid());
    assertThat(aliceLock.get("holder").get("name").asText()).isEqualTo("worker-1");

    JsonNode bobLock = bob.get("semaphore");
    assertThat(bobLock.get("liveness").asText()).isEqualTo("dead");
    assertThat(bobLock.get("reclaimable").asBoolean()).isTrue();
    assertThat(bobLock.get("holder").get("pid").asLong()).isEqualTo(bobsDeadHolder.pid());
    assertThat(bob.get("parcels").get(0).get("state").asText()).isEqualTo("ok");
    JsonNode corrupt = bob.get("parcels").get(1);
    assertThat(corrupt.get("file").asText()).isEqualTo("connection-c9.parcel");
    assertThat(corrupt.get("state").asText()).isEqualTo("corrupt_parcel");
    assertThat(corrupt.get("problem").asText()).contains("connection-c9.parcel", "is corrupt");
    assertThat(corrupt.get("header").get("writer").asText()).isEqualTo("worker-2");

    JsonNode commander = node.get("commander");
    assertThat(commander.get("kind").asText()).isEqualTo("commander");
    assertThat(commander.get("header").get("writer").asText()).isEqualTo("commander");
    assertThat(commander.get("header").get("group").asText()).isEmpty();
  }

  @Test
  void lsTextNamesTheSameThings() throws Exception {
    Result result = cryo("freezer", "ls", root.toString());
    assertThat(result.exitCode()).as(result.err()).isEqualTo(1);
    assertThat(result.err()).isEmpty();
    String out = result.out();
    assertThat(out).startsWith(root + ": 2 folders, a commander parcel\n");
    assertThat(out).contains("\n" + FolderKeys.key(ALICE) + "\n", "\n%2E%2E%2Fbob\n");
    assertThat(out).contains("held by pid " + ProcessHandle.current().pid() + " \"worker-1\"",
        "holder alive");
    assertThat(out).contains("held by pid " + bobsDeadHolder.pid() + " \"worker-2\"",
        "holder dead");
    assertThat(out).contains("user.parcel  " + Files.size(freezer.folder(ALICE).resolve("user.parcel"))
        + " bytes\n");
    assertThat(out).contains("written by \"worker-1\", cause \"freeze\", group \"group-a\", ");
    assertThat(out).contains("connection-c9.parcel  ", " bytes  CORRUPT_PARCEL\n", "is corrupt");
    assertThat(out).contains("\ncommander\n  commander.parcel  ");
  }

  @Test
  void lsMarksAFolderTheRunningVersionCouldNotReadAndKeepsListingItsParcels() throws Exception {
    freezer.writeUnreadableNote(ALICE, java.util.Map.of("state_version", 3), "main_0002",
        "unreadable: written by state version 3, which the running application (state version 2)"
            + " cannot read", "main");

    JsonNode alice = json(cryo("freezer", "ls", root.toString(), "--json"), 1).get("folders")
        .get(1);
    assertThat(alice.get("unreadable").get("writer").asText()).isEqualTo("main_0002");
    assertThat(alice.get("unreadable").get("cause").asText()).contains("state version 3");
    assertThat(alice.get("parcels").get(0).get("file").asText()).isEqualTo("user.parcel");
    String out = cryo("freezer", "ls", root.toString()).out();
    assertThat(out).contains("UNREADABLE by the running version, parcels kept: unreadable:"
        + " written by state version 3");
    assertThat(out).doesNotContain("unreadable.note"); // a note, not a parcel
  }

  @Test
  void lsOfAWholeFreezerExitsZero() throws Exception {
    Files.delete(freezer.connectionParcel(BOB, "c9"));
    Result result = cryo("freezer", "ls", root.toString());
    assertThat(result.exitCode()).as(result.out()).isZero();
    assertThat(result.out()).doesNotContain("CORRUPT");
  }

  @Test
  void lsReadsHeadersOnlySoAHugeSparseParcelIsJudgedByItsLengths() throws Exception {
    Path parcel = freezer.connectionParcel(ALICE, "c1");
    long whole = Files.size(parcel);
    try (java.io.RandomAccessFile file = new java.io.RandomAccessFile(parcel.toFile(), "rw")) {
      file.setLength(3L << 29); // 1.5 GiB, sparse: reading it whole would exhaust the heap
    }
    Path user = freezer.folder(ALICE).resolve("user.parcel");
    byte[] bytes = Files.readAllBytes(user);
    bytes[bytes.length - 10] ^= 0x01; // one payload byte altered: only a whole read can see it
    Files.write(user, bytes);
    JsonNode node = json(cryo("freezer", "ls", root.toString(), "--json"), 1);
    assertThat(named(node.get("folders").get(1).get("parcels"), "user.parcel").get("state")
        .asText()).as("ls reads no payload").isEqualTo("ok");
    JsonNode listed = named(node.get("folders").get(1).get("parcels"), "connection-c1.parcel");
    assertThat(listed.get("file").asText()).isEqualTo("connection-c1.parcel");
    assertThat(listed.get("state").asText()).isEqualTo("corrupt_parcel");
    assertThat(listed.get("size").asLong()).isEqualTo(3L << 29);
    assertThat(listed.get("problem").asText()).contains("its lengths say " + whole + " bytes");
    assertThat(listed.get("header").get("writer").asText()).isEqualTo("worker-1");

    JsonNode shown = json(cryo("freezer", "show", root.toString(), ALICE, "--json"), 1);
    assertThat(named(shown.get("parcels"), "user.parcel").get("state").asText())
        .as("show reads the whole parcel").isEqualTo("corrupt_parcel");
    JsonNode refused = named(shown.get("parcels"), "connection-c1.parcel");
    assertThat(refused.get("state").asText()).isEqualTo("parcel_too_large");
    assertThat(refused.get("payload").isNull()).isTrue();
  }

  @Test
  void showsHelpNamesTheCodecOfEachHeaderNotCborAsTheDefault() throws Exception {
    Result help = cryo("freezer", "show", "--help");
    assertThat(help.exitCode()).isZero();
    String text = help.out().replaceAll("\\s+", " ");
    assertThat(text).contains("the codec its header names (smile, the freezer's default, or cbor)");
    assertThat(text).doesNotContain("default codec (cbor)");
  }

  @Test
  void showDecodesThePayloadsOfOneUser() throws Exception {
    JsonNode node = json(cryo("freezer", "show", root.toString(), ALICE, "--json"), 0);
    assertThat(fieldNames(node)).containsExactly("root", "user", "key", "folder", "exists",
        "semaphore", "parcels");
    assertThat(node.get("user").asText()).isEqualTo(ALICE);
    assertThat(node.get("key").asText()).isEqualTo("alice%40example%2Eorg");
    assertThat(node.get("exists").asBoolean()).isTrue();
    assertThat(node.get("semaphore").get("liveness").asText()).isEqualTo("alive");
    JsonNode user = node.get("parcels").get(0);
    assertThat(user.get("header").get("writer").asText()).isEqualTo("worker-1");
    JsonNode payload = user.get("payload");
    assertThat(payload.get("name").asText()).isEqualTo("Alice");
    assertThat(payload.get("visits").asInt()).isEqualTo(3);
    assertThat(payload.get("avatar").get("bytes").asInt()).isEqualTo(BLOB.length);
    assertThat(Base64.getDecoder().decode(payload.get("avatar").get("base64").asText()))
        .isEqualTo(BLOB);
    assertThat(payload.get("tags").get(1).asBoolean()).isTrue();
    JsonNode c1 = node.get("parcels").get(2);
    assertThat(c1.get("connection").asText()).isEqualTo("c1");
    assertThat(c1.get("payload").get("pages").get(1).asText()).isEqualTo("p2");

    Result text = cryo("freezer", "show", root.toString(), ALICE);
    assertThat(text.exitCode()).as(text.err()).isZero();
    assertThat(text.out()).contains("user       \"" + ALICE + "\"\n", "key        alice%40example%2Eorg\n",
        "holder alive", "payload:", "\"name\" : \"Alice\"", "\"base64\" : \""
            + Base64.getEncoder().encodeToString(BLOB) + "\"", "\"bytes\" : 5");
  }

  @Test
  void showReportsACorruptParcelWithoutAPayload() throws Exception {
    JsonNode node = json(cryo("freezer", "show", root.toString(), BOB, "--json"), 1);
    assertThat(node.get("key").asText()).isEqualTo("%2E%2E%2Fbob");
    assertThat(node.get("semaphore").get("liveness").asText()).isEqualTo("dead");
    JsonNode corrupt = node.get("parcels").get(1);
    assertThat(corrupt.get("state").asText()).isEqualTo("corrupt_parcel");
    assertThat(corrupt.get("payload").isNull()).isTrue();
    assertThat(node.get("parcels").get(0).get("payload").get("name").asText()).isEqualTo("Bob");

    Result text = cryo("freezer", "show", root.toString(), BOB);
    assertThat(text.exitCode()).isEqualTo(1);
    assertThat(text.out()).contains("CORRUPT_PARCEL", "is corrupt", "holder dead");
  }

  @Test
  void showOfAUserWithNothingFrozen() throws Exception {
    JsonNode node = json(cryo("freezer", "show", root.toString(), "carol", "--json"), 2);
    assertThat(node.get("exists").asBoolean()).isFalse();
    assertThat(node.get("semaphore").isNull()).isTrue();
    assertThat(node.get("parcels")).isEmpty();
    assertThat(Files.exists(root.resolve("carol"))).isFalse();
  }

  @Test
  void dfGivesFreePercentAndTheFreezersSize() throws Exception {
    long bytes = 0;
    int files = 0;
    java.util.Set<Object> seen = new java.util.HashSet<>();
    try (var walk = Files.walk(root)) {
      for (Path p : walk.filter(Files::isRegularFile).toList()) {
        if (seen.add(Files.readAttributes(p, java.nio.file.attribute.BasicFileAttributes.class)
            .fileKey())) {
          bytes += Files.size(p);
          files++;
        }
      }
    }
    Result result = cryo("freezer", "df", root.toString());
    assertThat(result.exitCode()).as(result.err()).isZero();
    String[] lines = result.out().split("\n");
    assertThat(lines).hasSize(2);
    assertThat(lines[0]).matches(java.util.regex.Pattern.quote(root.toString())
        + ": \\d+\\.\\d% free \\(\\d+ of \\d+ bytes usable\\)");
    // 5 parcels (3 + 2) and 2 locks in folders, plus the commander's parcel; each lock is a link
    // of its holder's record in the records' directory, one file counted once; the folders on
    // disk are Alice's, Bob's, Carol's empty spare and the records' (df counts what the disk holds).
    assertThat(files).isEqualTo(8);
    assertThat(lines[1]).isEqualTo("freezer: " + bytes + " bytes in 8 files, 4 folders");
  }

  @Test
  void aMissingRootIsRefusedAndNothingIsCreated() throws Exception {
    Path missing = dir.resolve("absent").resolve("freezer");
    for (String[] args : List.of(
        new String[] {"freezer", "ls", missing.toString()},
        new String[] {"freezer", "ls", missing.toString(), "--json"},
        new String[] {"freezer", "show", missing.toString(), ALICE, "--json"},
        new String[] {"freezer", "df", missing.toString()})) {
      Result result = cryo(args);
      assertThat(result.exitCode()).as(String.join(" ", args)).isEqualTo(66);
      assertThat(result.out()).isEmpty();
      assertThat(result.errLines()).hasSize(1);
      assertThat(result.err()).contains("directory_missing", missing.toString(),
          "nothing was created");
      assertThat(Files.exists(dir.resolve("absent"))).isFalse();
    }
    Path file = Files.writeString(dir.resolve("plain"), "x", StandardCharsets.UTF_8);
    Result notDirectory = cryo("freezer", "ls", file.toString());
    assertThat(notDirectory.exitCode()).isEqualTo(66);
    assertThat(notDirectory.err()).contains("not_a_directory");
  }
}
