package dev.cryo.control;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.cryo.control.ControlException.Reason;
import dev.cryo.control.StopDelivery.Outcome;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.ServerSocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class StopRequestTest {

  @TempDir Path base;
  @TempDir Path outside;

  private Path home;
  private RunDirectory directory;
  private RunState run;

  @BeforeEach
  void startARun() throws IOException {
    home = base.resolve("run");
    directory = RunDirectory.at(home);
    run = RunState.begin();
    directory.writeRunState(run);
  }

  private RunHome held;

  /** A watcher of this run directory for {@code invocation}, as its server would hold it. */
  private StopWatcher watcher(String invocation) throws IOException {
    if (held == null) {
      held = RunHome.claim(home, List.of());
    }
    return new StopWatcher(directory, invocation, held);
  }

  @AfterEach
  void release() throws IOException {
    if (held != null) {
      held.close();
    }
  }

  private List<String> names() throws IOException {
    try (Stream<Path> entries = Files.list(home)) {
      return entries.map(p -> p.getFileName().toString()).sorted().toList();
    }
  }

  private static String request(String id, String mode, String at) {
    return "{\"schema\":\"cryo.stop/1\",\"invocation_id\":\"" + id + "\",\"mode\":\"" + mode
        + "\",\"requested_at\":\"" + at + "\"}";
  }

  // ------------------------------------------------------------------------------- reading

  /** Every hostile shape the issue lists, laid at the request's path. */
  enum Hostile {
    SYMLINK_TO_A_FILE_OUTSIDE, DANGLING_SYMLINK, FIFO, DIRECTORY, SOCKET, ONE_MEGABYTE,
    BYTES_4097, DUPLICATE_KEYS, NAN, WRONG_SCHEMA, EXTRA_FIELD, INVALID_UTF8, NO_ZONE,
    MISSING_FIELD, MODE_NOT_A_STRING, NOT_AN_OBJECT, EMPTY
  }

  private AutoCloseable lay(Hostile hostile, Path at, String id) throws Exception {
    String good = request(id, "now", "2026-01-01T00:00:00Z");
    switch (hostile) {
      case SYMLINK_TO_A_FILE_OUTSIDE -> {
        Files.writeString(outside.resolve("target"), good);
        Files.createSymbolicLink(at, outside.resolve("target"));
      }
      case DANGLING_SYMLINK -> Files.createSymbolicLink(at, outside.resolve("nothing"));
      case FIFO -> SafeRootTest.mkfifo(at);
      case DIRECTORY -> Files.createDirectory(at);
      case SOCKET -> {
        return SafeRootTest.socket(at);
      }
      case ONE_MEGABYTE -> Files.write(at, new byte[1 << 20]);
      case BYTES_4097 -> Files.writeString(at, good + " ".repeat(4097 - good.length()));
      case DUPLICATE_KEYS -> Files.writeString(at, good.replace("\"mode\":\"now\"",
          "\"mode\":\"now\",\"mode\":\"drain\""));
      case NAN -> Files.writeString(at, good.replace("}", ",\"x\":NaN}"));
      case WRONG_SCHEMA -> Files.writeString(at, good.replace("cryo.stop/1", "cryo.stop/2"));
      case EXTRA_FIELD -> Files.writeString(at, good.replace("}", ",\"extra\":1}"));
      case INVALID_UTF8 -> {
        byte[] bytes = good.replace("now", "n\u00e9w").getBytes(StandardCharsets.UTF_8);
        byte[] broken = new byte[bytes.length + 1];
        System.arraycopy(bytes, 0, broken, 0, bytes.length);
        int accent = good.indexOf("now") + 1;
        broken[accent] = (byte) 0xc3;
        broken[accent + 1] = (byte) 0x28; // not a continuation byte
        Files.write(at, java.util.Arrays.copyOf(broken, bytes.length));
      }
      case NO_ZONE -> Files.writeString(at, good.replace("00:00:00Z", "00:00:00"));
      case MISSING_FIELD -> Files.writeString(at, good.replace(",\"mode\":\"now\"", ""));
      case MODE_NOT_A_STRING -> Files.writeString(at, good.replace("\"now\"", "[]"));
      case NOT_AN_OBJECT -> Files.writeString(at, "[\"" + id + "\"]");
      case EMPTY -> Files.write(at, new byte[0]);
    }
    return () -> { };
  }

  @ParameterizedTest
  @EnumSource(Hostile.class)
  void everyHostileEntryReadsAsADrainWithABoundedProblemAndNeverHangs(Hostile hostile)
      throws Exception {
    byte[] before = Files.exists(outside.resolve("target"))
        ? Files.readAllBytes(outside.resolve("target")) : null;
    try (AutoCloseable ignored = lay(hostile, home.resolve("stop-request"), run.invocationId())) {
      List<String> names = names();
      StopReading reading = assertTimeoutPreemptively(Duration.ofSeconds(10),
          () -> directory.readStopRequest());
      assertThat(reading.present()).isTrue();
      assertThat(reading.request()).isEmpty();
      assertThat(reading.problem()).isNotBlank().hasSizeLessThanOrEqualTo(500);
      assertThat(reading.mode()).contains(StopMode.DRAIN);
      assertThat(reading.appliesTo(run.invocationId())).isTrue();
      assertThat(reading.appliesTo(RunState.newInvocationId())).isTrue();
      assertThat(names()).as("reading creates nothing").isEqualTo(names);
      // The watcher of the run stops on it too, as a drain.
      StopWatcher watcher = watcher(run.invocationId());
      assertThat(assertTimeoutPreemptively(Duration.ofSeconds(10), watcher::tick))
          .contains(StopMode.DRAIN);
    }
    if (before != null) {
      assertThat(outside.resolve("target")).hasBinaryContent(before);
    }
  }

  @Test
  void problemsSayWhatIsThere() throws Exception {
    SafeRootTest.mkfifo(home.resolve("stop-request"));
    assertThat(directory.readStopRequest().problem()).contains("a FIFO");
    Files.delete(home.resolve("stop-request"));
    Files.write(home.resolve("stop-request"), new byte[4097]);
    assertThat(directory.readStopRequest().problem()).contains("larger than 4096 bytes");
    Files.writeString(home.resolve("stop-request"), request(run.invocationId(), "drain",
        "2026-01-01T00:00:00Z").replace("\"mode\"", "\"mode\":\"now\",\"mode\""));
    assertThat(directory.readStopRequest().problem()).containsIgnoringCase("duplicate");
  }

  @Test
  void nothingThereAndNoDirectoryReadAsAbsentAndCreateNothing() throws IOException {
    assertThat(directory.readStopRequest()).isEqualTo(StopReading.absent());
    RunDirectory missing = RunDirectory.at(base.resolve("missing/deeper"));
    assertThat(missing.readStopRequest().present()).isFalse();
    assertThat(base.resolve("missing")).doesNotExist();
  }

  @Test
  void anUnsafePathAboveTheRequestThrows() throws IOException {
    Path linked = base.resolve("linked");
    Files.createSymbolicLink(linked, home);
    assertThatThrownBy(() -> RunDirectory.at(linked).readStopRequest())
        .isInstanceOfSatisfying(ControlException.class,
            e -> assertThat(e.reason()).isEqualTo(Reason.UNSAFE_PATH))
        .hasMessageContaining("a symbolic link");
    Path file = Files.writeString(base.resolve("file"), "x");
    assertThatThrownBy(() -> RunDirectory.at(file).readStopRequest())
        .isInstanceOf(ControlException.class);
  }

  @Test
  void aValidRequestIsReadWithItsBinding() throws IOException {
    Files.writeString(home.resolve("stop-request"),
        request(run.invocationId(), "now", "2026-01-01T00:00:00+02:00"));
    StopReading reading = directory.readStopRequest();
    assertThat(reading.request().orElseThrow().mode()).isEqualTo(StopMode.NOW);
    assertThat(reading.appliesTo(run.invocationId())).isTrue();
    assertThat(reading.appliesTo(RunState.newInvocationId())).isFalse();
    assertThat(reading.boundElsewhere(RunState.newInvocationId())).isTrue();
  }

  // ------------------------------------------------------------------------------- publishing

  @Test
  void publishingIsRefusedWithoutARunStateAndCreatesNothing() throws IOException {
    RunDirectory empty = RunDirectory.at(base.resolve("never-ran"));
    assertThatThrownBy(() -> empty.requestStop(StopMode.DRAIN))
        .isInstanceOfSatisfying(ControlException.class,
            e -> assertThat(e.reason()).isEqualTo(Reason.NO_RUN_STATE))
        .hasMessageContaining("nothing was written");
    assertThat(base.resolve("never-ran")).doesNotExist();
    Path bare = Files.createDirectory(base.resolve("bare"));
    assertThatThrownBy(() -> RunDirectory.at(bare).requestStop(StopMode.DRAIN))
        .isInstanceOf(ControlException.class);
    assertThat(bare).isEmptyDirectory();
  }

  @Test
  void publishingIsRefusedWhenTheRunStateDoesNotLoad() throws IOException {
    Files.writeString(home.resolve("run.json"), "{\"schema\":\"cryo.run/1\"}");
    assertThatThrownBy(() -> directory.requestStop(StopMode.NOW))
        .isInstanceOfSatisfying(ControlException.class,
            e -> assertThat(e.reason()).isEqualTo(Reason.MALFORMED_RUN_STATE));
    assertThat(names()).containsExactly("run.json");
  }

  @Test
  void aRequestIsBoundToTheRunAndRepeatingItWritesNothing() throws IOException {
    StopDelivery first = directory.requestStop(StopMode.NOW);
    assertThat(first.outcome()).isEqualTo(Outcome.WRITTEN);
    assertThat(first.invocationId()).isEqualTo(run.invocationId());
    assertThat(first.message()).isEqualTo("now stop requested for invocation "
        + run.invocationId());
    StopRequest written = directory.readStopRequest().request().orElseThrow();
    assertThat(written.invocationId()).isEqualTo(run.invocationId());
    assertThat(written.mode()).isEqualTo(StopMode.NOW);
    assertThat(names()).containsExactly("run.json", "stop-request");

    StopDelivery second = directory.requestStop(StopMode.DRAIN);
    assertThat(second.outcome()).isEqualTo(Outcome.ALREADY_THERE);
    assertThat(second.written()).isFalse();
    assertThat(second.mode()).isEqualTo(StopMode.NOW);
    assertThat(second.message()).contains("a now stop request", "nothing was written");
    assertThat(directory.readStopRequest().request()).contains(written);
  }

  @Test
  void anEarlierRunsRequestIsReportedAndRemovedAtTheNextTick() throws IOException {
    String earlier = RunState.newInvocationId();
    Files.writeString(home.resolve("stop-request"),
        request(earlier, "drain", "2026-01-01T00:00:00Z"));
    StopDelivery delivery = directory.requestStop(StopMode.NOW);
    assertThat(delivery.outcome()).isEqualTo(Outcome.EARLIER_RUN);
    assertThat(delivery.message()).contains("earlier run", "repeat the stop");
    StopWatcher watcher = watcher(run.invocationId());
    assertThat(watcher.tick()).isEmpty();
    assertThat(names()).containsExactly("run.json");
    assertThat(directory.requestStop(StopMode.NOW).outcome()).isEqualTo(Outcome.WRITTEN);
    assertThat(watcher.tick()).contains(StopMode.NOW);
  }

  @Test
  void anUnparseableRequestIsReportedAsADrainAndNeverReplaced() throws IOException {
    Files.createSymbolicLink(home.resolve("stop-request"), outside.resolve("nothing"));
    StopDelivery delivery = directory.requestStop(StopMode.NOW);
    assertThat(delivery.outcome()).isEqualTo(Outcome.UNPARSEABLE);
    assertThat(delivery.mode()).isEqualTo(StopMode.DRAIN);
    assertThat(delivery.message()).contains("does not parse", "a symbolic link", "drain");
    assertThat(Files.isSymbolicLink(home.resolve("stop-request"))).isTrue();
    assertThat(outside.resolve("nothing")).doesNotExist();
    assertThat(names()).containsExactly("run.json", "stop-request");
  }

  @Test
  void anEndedRunIsSaidSo() throws IOException {
    directory.writeRunState(run.endedAt(run.startedAt().plusSeconds(1)));
    StopDelivery delivery = directory.requestStop(StopMode.NOW);
    assertThat(delivery.outcome()).isEqualTo(Outcome.WRITTEN);
    assertThat(delivery.serverEnded()).isTrue();
    assertThat(delivery.message()).contains("already ended", "'now' can no longer signal");
  }

  @Test
  void aRunStateReplacedBetweenPublicationAndReReadGivesServerChanged() throws IOException {
    RunState next = RunState.begin();
    StopDelivery delivery = directory.afterLink(() -> directory.writeRunState(next))
        .requestStop(StopMode.DRAIN);
    assertThat(delivery.outcome()).isEqualTo(Outcome.SERVER_CHANGED);
    assertThat(delivery.written()).isTrue();
    assertThat(delivery.invocationId()).isEqualTo(run.invocationId());
    assertThat(delivery.message()).startsWith(RunDirectory.SERVER_CHANGED)
        .contains(next.invocationId());
    // The new server removes the request bound to the old run at its next tick.
    assertThat(watcher(next.invocationId()).tick()).isEmpty();
    assertThat(names()).containsExactly("run.json");
  }

  @Test
  void aRunStateRemovedBetweenPublicationAndReReadGivesServerChanged() throws IOException {
    StopDelivery delivery = directory.afterLink(() -> Files.delete(home.resolve("run.json")))
        .requestStop(StopMode.NOW);
    assertThat(delivery.outcome()).isEqualTo(Outcome.SERVER_CHANGED);
    assertThat(delivery.message()).startsWith(RunDirectory.SERVER_CHANGED).contains("is gone");
  }

  // ------------------------------------------------------------------------------- cleaning

  @Test
  void cleaningAtStartRemovesAnotherRunsRequestTheUnparseableAndCrashedTemporaries()
      throws Exception {
    // A crash between link and the removal of the temporary: the temporary is a second name of the
    // published request, and its writer's pid is dead.
    assertThat(directory.requestStop(StopMode.DRAIN).outcome()).isEqualTo(Outcome.WRITTEN);
    long dead = deadPid();
    String temporary = "stop-request.cryo-tmp." + dead + "." + HexFormat.of().formatHex(
        new byte[] {1, 2, 3, 4, 5, 6, 7, 8});
    Files.createLink(home.resolve(temporary), home.resolve("stop-request"));
    // A live writer's temporary (ours) is kept.
    String live = "stop-request.cryo-tmp." + ProcessHandle.current().pid() + ".0123456789abcdef";
    Files.writeString(home.resolve(live), "in progress");
    assertThat(directory.readStopRequest().request()).isPresent();

    RunState restarted = RunState.begin();
    directory.writeRunState(restarted);
    assertThat(directory.removeStaleStopRequests(restarted.invocationId(), true))
        .containsExactlyInAnyOrder("stop-request", temporary);
    assertThat(names()).containsExactly("run.json", live);

    // The unparseable request: kept on a tick, removed at start.
    Files.writeString(home.resolve("stop-request"), "not json");
    assertThat(directory.removeStaleStopRequests(restarted.invocationId(), false)).isEmpty();
    try (RunHome held = RunHome.claim(home, java.util.List.of())) {
      assertThat(new StopWatcher(directory, restarted.invocationId(), held).tick())
          .contains(StopMode.DRAIN);
      assertThat(directory.watch(restarted.invocationId(), held).tick()).isEmpty();
    }
    assertThat(names()).containsExactly("run.json", live);
  }

  @Test
  void aWatcherFailsClosedWhenTheRunDirectoryBecomesALink() throws IOException {
    RunHome held = RunHome.claim(home, java.util.List.of());
    StopWatcher watcher = directory.watch(run.invocationId(), held);
    assertThat(watcher.tick()).isEmpty();
    Files.move(home, base.resolve("moved"));
    Files.createSymbolicLink(home, base.resolve("moved"));
    assertThatThrownBy(watcher::tick)
        .isInstanceOfSatisfying(ControlException.class,
            e -> assertThat(e.reason()).isEqualTo(Reason.UNSAFE_PATH));
    held.close();
  }

  @Test
  void theOwnRequestIsNeverCleaned() throws IOException {
    directory.requestStop(StopMode.NOW);
    assertThat(directory.removeStaleStopRequests(run.invocationId(), true)).isEmpty();
    try (RunHome held = RunHome.claim(home, java.util.List.of())) {
      StopWatcher watcher = directory.watch(run.invocationId(), held);
      assertThat(watcher.tick()).contains(StopMode.NOW);
      assertThat(watcher.tick()).contains(StopMode.NOW);
    }
  }

  static long deadPid() throws Exception {
    Process child = new ProcessBuilder("true").start();
    child.waitFor();
    return child.pid();
  }

  // ------------------------------------------------------------------------------- processes

  /**
   * Eight publishers in their own JVMs, released together: each boots, runs the publishing code
   * once (a rehearsal in a run directory of its own), says it is ready and blocks on a shared lock
   * of the go file, which this JVM holds exclusively until every one is ready. One release wakes them all, so they
   * race on the link instead of arriving one by one as their JVMs boot.
   */
  @Test
  void manyProcessesPublishingAtOnceWriteExactlyOneRequest() throws Exception {
    int count = 8 * Integer.getInteger("cryo.stress.scale", 1);
    Path go = Files.createFile(base.resolve("go"));
    List<Process> children = new ArrayList<>();
    List<BufferedReader> outputs = new ArrayList<>();
    List<String> outcomes = new ArrayList<>();
    List<Long> woken = new ArrayList<>();
    try (FileChannel gate = FileChannel.open(go, StandardOpenOption.WRITE)) {
      FileLock closed = gate.lock();
      for (int i = 0; i < count; i++) {
        Process child = new ProcessBuilder(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-Xshare:auto", "-XX:TieredStopAtLevel=1", "-Xmx64m",
            "-cp", System.getProperty("java.class.path"),
            PublishingChild.class.getName(), home.toString(), i % 2 == 0 ? "drain" : "now",
            go.toString(), base.resolve("rehearsal-" + i).toString())
            .redirectErrorStream(true).start();
        children.add(child);
        outputs.add(new BufferedReader(
            new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8)));
      }
      assertTimeoutPreemptively(Duration.ofMinutes(3), () -> {
        for (BufferedReader output : outputs) {
          assertThat(output.readLine()).as("a publisher says it is ready").isEqualTo("ready");
        }
      });
      assertThat(names()).as("nothing published before the gate opens")
          .containsExactly("run.json");
      closed.release();
      assertTimeoutPreemptively(Duration.ofMinutes(3), () -> {
        for (int i = 0; i < count; i++) {
          String line = outputs.get(i).readLine();
          String rest = outputs.get(i).lines().reduce("", (a, b) -> a + "\n" + b);
          assertThat(children.get(i).waitFor()).as(line + rest).isZero();
          assertThat(line).as(rest).isNotNull();
          String[] parts = line.split(" ", 2);
          woken.add(Long.parseLong(parts[0]));
          outcomes.add(parts[1]);
        }
      });
    } finally {
      children.forEach(Process::destroyForcibly);
    }
    System.out.printf("%d publishers woken within %.2f ms of one another%n", count,
        (woken.stream().mapToLong(Long::longValue).max().orElseThrow()
            - woken.stream().mapToLong(Long::longValue).min().orElseThrow()) / 1e6);
    assertThat(outcomes.stream().filter(o -> o.startsWith("written")).count())
        .as(outcomes.toString()).isEqualTo(1);
    assertThat(outcomes.stream().filter(o -> o.startsWith("already_there")).count())
        .as(outcomes.toString()).isEqualTo(count - 1);
    String winner = outcomes.stream().filter(o -> o.startsWith("written")).findFirst()
        .orElseThrow();
    StopMode written = directory.readStopRequest().request().orElseThrow().mode();
    assertThat(winner).endsWith(written.code());
    assertThat(outcomes).allSatisfy(o -> assertThat(o).endsWith(written.code()));
    assertThat(names()).containsExactly("run.json", "stop-request");
  }

  /**
   * A publisher in its own process: rehearses (a whole publication in a run directory of its own,
   * so that the race runs warm code), says {@code ready}, waits for the
   * gate (a shared lock of the go file), publishes, and prints the instant it was let through
   * ({@link System#nanoTime}, one clock for every process of the machine), the outcome and the
   * mode.
   */
  public static final class PublishingChild {
    public static void main(String[] args) throws Exception {
      RunDirectory directory = RunDirectory.at(Path.of(args[0]));
      StopMode mode = StopMode.ofCode(args[1]).orElseThrow();
      RunDirectory rehearsal = RunDirectory.at(Path.of(args[3]));
      rehearsal.writeRunState(RunState.begin());
      rehearsal.requestStop(mode);
      directory.readStopRequest();
      try (FileChannel gate = FileChannel.open(Path.of(args[2]), StandardOpenOption.READ)) {
        System.out.println("ready");
        System.out.flush();
        gate.lock(0, Long.MAX_VALUE, true).release();
        long through = System.nanoTime();
        StopDelivery delivery = directory.requestStop(mode);
        System.out.println(through + " " + delivery.outcome().code() + " "
            + delivery.mode().code());
      }
    }
  }

}
