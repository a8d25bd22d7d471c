package dev.cryo.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.cryo.commander.ReloadRequests;
import dev.cryo.control.RunDirectory;
import dev.cryo.control.RunState;
import dev.cryo.control.StopMode;
import dev.cryo.control.StopRequest;
import java.io.IOException;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The run directory of a real {@code cryo serve}: a home, or a file the server reads, that another
 * user owns or others may write is refused at start in one line (exit 65) with nothing changed; a
 * symbolic link or a FIFO planted where the run keeps a file or directory of its own is refused the
 * same way, never followed; a control file that turns up owned by another user or writable by
 * others during the run is left where it is and not acted upon; and everything a run creates is
 * private (directories 0700, files 0600, workers under umask 077).
 *
 * <p>"Another user" is uid {@value #NOBODY}, which the test (running as root) can give a file; the
 * cases that need it are skipped when the test does not run as root.
 */
class ServeHomeTest {

  /** The uid of nobody: another user than the one running the test. */
  static final int NOBODY = 65534;

  @TempDir Path scratch;

  // ------------------------------------------------------------------------ the home itself

  @Test
  void aHomeOwnedByAnotherUserIsRefusedAndLeftAsItIs() throws Exception {
    assumeRoot();
    Path home = Files.createDirectories(scratch.resolve("home"));
    chmod(home, "rwx------");
    setOwner(home, NOBODY);

    String line = refused(home);

    assertThat(line).contains(home.toString()).contains("owned by uid " + NOBODY)
        .contains("nothing was").contains("chown");
    assertThat(owner(home)).isEqualTo(NOBODY);
    assertThat(mode(home)).isEqualTo("rwx------");
    assertThat(list(home)).isEmpty(); // no run.json, no lock, no freezer
  }

  @Test
  void aHomeWritableByItsGroupIsRefused() throws Exception {
    Path home = Files.createDirectories(scratch.resolve("home"));
    chmod(home, "rwxrwx---");

    String line = refused(home);

    assertThat(line).contains(home.toString()).contains("writable by").contains("chmod");
    assertThat(mode(home)).isEqualTo("rwxrwx---");
    assertThat(list(home)).isEmpty();
  }

  @Test
  void aHomeWritableByOthersIsRefused() throws Exception {
    Path home = Files.createDirectories(scratch.resolve("home"));
    chmod(home, "rwxrwxrwx");

    String line = refused(home);

    assertThat(line).contains(home.toString()).contains("writable by").contains("chmod");
    assertThat(mode(home)).isEqualTo("rwxrwxrwx");
    assertThat(list(home)).isEmpty();
  }

  @Test
  void aSymbolicLinkAtTheHomeIsRefused() throws Exception {
    Path elsewhere = Files.createDirectories(scratch.resolve("elsewhere"));
    Path home = Files.createSymbolicLink(scratch.resolve("home"), elsewhere);

    String line = refused(home);

    assertThat(line).contains(home.toString()).contains("symbolic link");
    assertThat(list(elsewhere)).isEmpty();
  }

  // ------------------------------------------------------------------------ control files at start

  @Test
  void aReloadRequestOwnedByAnotherUserIsRefusedAtStartAndLeftInPlace() throws Exception {
    assumeRoot();
    Path home = privateHome();
    Path request = Files.write(home.resolve(ReloadRequests.REQUEST),
        ReloadRequests.Request.of(RunState.newInvocationId(), null).toJson());
    chmod(request, "rw-------");
    setOwner(request, NOBODY);

    String line = refused(home);

    assertThat(line).contains(request.toString()).contains("owned by uid " + NOBODY);
    assertThat(owner(request)).isEqualTo(NOBODY);
    assertThat(list(home)).containsExactly(ReloadRequests.REQUEST);
  }

  @Test
  void aReloadRequestWritableByOthersIsRefusedAtStartAndLeftInPlace() throws Exception {
    Path home = privateHome();
    Path request = Files.write(home.resolve(ReloadRequests.REQUEST),
        ReloadRequests.Request.of(RunState.newInvocationId(), null).toJson());
    chmod(request, "rw-rw-rw-");

    String line = refused(home);

    assertThat(line).contains(request.toString()).contains("writable by");
    assertThat(list(home)).containsExactly(ReloadRequests.REQUEST);
  }

  @Test
  void aStopRequestOwnedByAnotherUserIsRefusedAtStartAndLeftInPlace() throws Exception {
    assumeRoot();
    Path home = privateHome();
    Path request = Files.write(home.resolve(StopRequest.FILE_NAME), new StopRequest(
        RunState.newInvocationId(), StopMode.DRAIN, OffsetDateTime.now(ZoneOffset.UTC)).toJson());
    chmod(request, "rw-------");
    setOwner(request, NOBODY);

    String line = refused(home);

    assertThat(line).contains(request.toString()).contains("owned by uid " + NOBODY);
    assertThat(list(home)).containsExactly(StopRequest.FILE_NAME);
  }

  @Test
  void aStopRequestWritableByOthersIsRefusedAtStartAndLeftInPlace() throws Exception {
    Path home = privateHome();
    Path request = Files.write(home.resolve(StopRequest.FILE_NAME), new StopRequest(
        RunState.newInvocationId(), StopMode.DRAIN, OffsetDateTime.now(ZoneOffset.UTC)).toJson());
    chmod(request, "rw-rw-rw-");

    String line = refused(home);

    assertThat(line).contains(request.toString()).contains("writable by");
    assertThat(list(home)).containsExactly(StopRequest.FILE_NAME);
  }

  // ------------------------------------------------------------------------ control files in a run

  @Test
  void controlFilesOfAnotherUserOrWritableByOthersAreNotActedUponDuringTheRun() throws Exception {
    assumeRoot();
    Path home = scratch.resolve("home");
    ServeRun run = ServeRun.serving(home, "--workers", "1");
    try {
      String invocation = RunDirectory.at(home).loadRunState().orElseThrow().invocationId();
      // A reload request for this very run, another user's: not read, not answered, kept.
      Path reload = home.resolve(ReloadRequests.REQUEST);
      Path staged = Files.write(scratch.resolve("reload.staged"),
          ReloadRequests.Request.of(invocation, null).toJson());
      chmod(staged, "rw-------");
      setOwner(staged, NOBODY);
      Files.move(staged, reload);
      awaitRefusalOrAction(run, reload, home.resolve(ReloadRequests.RESULT),
          "owned by uid " + NOBODY);
      assertThat(home.resolve(ReloadRequests.RESULT)).doesNotExist();
      assertThat(reload).exists();
      assertThat(owner(reload)).isEqualTo(NOBODY);

      // A drain request for this very run that anybody may write: not acted upon, kept.
      Path stop = home.resolve(StopRequest.FILE_NAME);
      Path stagedStop = Files.write(scratch.resolve("stop.staged"), new StopRequest(invocation,
          StopMode.DRAIN, OffsetDateTime.now(ZoneOffset.UTC)).toJson());
      chmod(stagedStop, "rw-rw-rw-");
      Files.move(stagedStop, stop);
      awaitRefusalOrAction(run, stop, null, "writable by");
      assertThat(run.process().isAlive()).as(run.err()).isTrue();
      assertThat(stop).exists();
      assertThat(mode(stop)).isEqualTo("rw-rw-rw-");
      assertThat(run.err()).doesNotContain("draining");
    } finally {
      run.close();
    }
  }

  // ------------------------------------------------------------------ links and special files

  @Test
  void aSymbolicLinkAtTheFreezerIsRefusedAndItsTargetKept() throws Exception {
    Path home = privateHome();
    Path target = Files.createDirectories(scratch.resolve("precious"));
    chmod(target, "rwxr-xr-x");
    Files.writeString(target.resolve("keep.txt"), "precious");
    Files.createSymbolicLink(home.resolve("freezer"), target);

    String line = refused(home);

    assertThat(line).contains(home.resolve("freezer").toString()).contains("symbolic link");
    assertThat(target.resolve("keep.txt")).hasContent("precious");
    assertThat(mode(target)).isEqualTo("rwxr-xr-x");
    assertThat(Files.isSymbolicLink(home.resolve("freezer"))).isTrue();
  }

  @Test
  void aSymbolicLinkAtTheJournalIsRefusedAndItsTargetKept() throws Exception {
    Path home = privateHome();
    Path target = Files.writeString(scratch.resolve("precious.txt"), "precious");
    Files.createSymbolicLink(home.resolve("journal"), target);

    String line = refused(home);

    assertThat(line).contains(home.resolve("journal").toString()).contains("symbolic link");
    assertThat(target).hasContent("precious");
    assertThat(Files.isSymbolicLink(home.resolve("journal"))).isTrue();
  }

  @Test
  void aSymbolicLinkAtTheNewJournalIsRefusedAndItsTargetNotTruncated() throws Exception {
    Path home = privateHome();
    Path target = Files.writeString(scratch.resolve("precious.txt"), "precious");
    Files.createSymbolicLink(home.resolve("journal.new"), target);

    String line = refused(home);

    assertThat(line).contains(home.resolve("journal.new").toString()).contains("symbolic link");
    assertThat(target).hasContent("precious");
    assertThat(Files.isSymbolicLink(home.resolve("journal.new"))).isTrue();
    assertThat(home.resolve("journal")).doesNotExist();
  }

  @Test
  void aSymbolicLinkAtAWorkersLogIsRefusedAndItsTargetNotAppendedTo() throws Exception {
    Path home = privateHome();
    Path workers = Files.createDirectories(home.resolve("workers"));
    chmod(workers, "rwx------");
    Path target = Files.writeString(scratch.resolve("precious.txt"), "precious");
    Files.createSymbolicLink(workers.resolve("main_0001.log"), target);

    String line = refused(home);

    assertThat(line).contains(workers.resolve("main_0001.log").toString())
        .contains("symbolic link");
    assertThat(target).hasContent("precious");
  }

  @Test
  void aSymbolicLinkAtTheRebootDataIsRefusedNotIgnored() throws Exception {
    Path home = privateHome();
    Path target = Files.createDirectories(scratch.resolve("reboot-elsewhere"));
    chmod(target, "rwx------");
    Files.writeString(target.resolve("commander.parcel"), "not read");
    Path freezer = Files.createDirectories(home.resolve("freezer"));
    chmod(freezer, "rwx------");
    Path folder = Files.createDirectories(freezer.resolve("somebody"));
    Files.writeString(folder.resolve("user.parcel"), "kept");
    Files.createSymbolicLink(home.resolve("reboot"), target);

    String line = refused(home);

    assertThat(line).contains(home.resolve("reboot").toString()).contains("symbolic link");
    assertThat(target.resolve("commander.parcel")).hasContent("not read");
    assertThat(folder.resolve("user.parcel")).hasContent("kept"); // the freezer was not wiped
  }

  @Test
  void aFifoAtTheJournalIsRefusedAndTheFreezerKept() throws Exception {
    Path home = privateHome();
    Path freezer = Files.createDirectories(home.resolve("freezer"));
    chmod(freezer, "rwx------");
    Path folder = Files.createDirectories(freezer.resolve("somebody"));
    Files.writeString(folder.resolve("user.parcel"), "kept");
    Records.mkfifo(home.resolve("journal"));

    String line = refused(home);

    assertThat(line).contains(home.resolve("journal").toString()).contains("FIFO");
    assertThat(folder.resolve("user.parcel")).hasContent("kept");
    assertThat(Files.isRegularFile(home.resolve("journal"), LinkOption.NOFOLLOW_LINKS)).isFalse();
    assertThat(Files.exists(home.resolve("journal"), LinkOption.NOFOLLOW_LINKS)).isTrue();
  }

  // ------------------------------------------------------------------------ modes

  @Test
  void everythingARunCreatesIsPrivateAfterAStartAndADrain() throws Exception {
    Path home = scratch.resolve("not").resolve("there").resolve("home");
    ServeRun run = ServeRun.start(home, "--workers", "2");
    try (HttpClient http = HttpClient.newHttpClient()) {
      run.awaitUrl();
      DemoClient tab = new DemoClient(http, run.base());
      String page = tab.openPage();
      tab.post("/api/login", Map.of("user", "private@example.org"));
      tab.post("/api/notes", Map.of("page", page, "text", "nobody else reads this"));
      assertThat(tab.post("/api/move", Map.of()).status()).isEqualTo(200); // frozen once
      tab.post("/api/counter", Map.of("page", page));

      assertThat(notPrivate(home)).as("entries not 0700/0600 while running").isEmpty();
      List<ProcessHandle> workers = run.workerProcesses();
      assertThat(workers).isNotEmpty();
      for (ProcessHandle worker : workers) {
        assertThat(umask(worker.pid())).as("umask of worker %d", worker.pid()).isEqualTo("0077");
      }

      ChildCryo stop = ChildCryo.start(scratch, "stop", "--mode", "drain", "--home",
          home.toString());
      try {
        assertThat(stop.exitCode()).as(stop.err()).isZero();
      } finally {
        stop.close();
      }
      assertThat(run.exitCode()).as(run.err()).isZero();
      assertThat(home.resolve("reboot")).isDirectory();
      assertThat(notPrivate(home)).as("entries not 0700/0600 after the drain").isEmpty();
    } finally {
      run.close();
    }
  }

  @Test
  void aHomeAnEarlierCryoLeftReadableIsMadePrivateAndSaidSo() throws Exception {
    Path home = Files.createDirectories(scratch.resolve("home"));
    chmod(home, "rwxr-xr-x");
    RunDirectory.at(home).writeRunState(RunState.begin().endedAt(OffsetDateTime.now(
        ZoneOffset.UTC)));
    Path events = Files.writeString(home.resolve("events.jsonl"), "{}\n");
    chmod(events, "rw-r--r--");
    Path workers = Files.createDirectories(home.resolve("workers"));
    chmod(workers, "rwxr-xr-x");
    Path log = Files.writeString(workers.resolve("main_0001.log"), "an earlier run\n");
    chmod(log, "rw-r--r--");

    ServeRun run = ServeRun.serving(home, "--workers", "1");
    try {
      assertThat(mode(home)).isEqualTo("rwx------");
      assertThat(mode(workers)).isEqualTo("rwx------");
      assertThat(mode(log)).isEqualTo("rw-------");
      assertThat(mode(home.resolve("events.previous.jsonl"))).isEqualTo("rw-------");
      assertThat(log).content().startsWith("an earlier run\n");
      assertThat(run.err()).contains(home.toString()).contains("0755").contains("0700");
      assertThat(notPrivate(home)).isEmpty();
    } finally {
      run.close();
    }
  }

  @Test
  void aReadableDirectoryThatIsNoRunDirectoryIsRefusedNotNarrowed() throws Exception {
    Path home = Files.createDirectories(scratch.resolve("home")); // say, a user's home directory
    chmod(home, "rwxr-xr-x");
    Files.writeString(home.resolve("notes.txt"), "mine");

    String line = refused(home);

    assertThat(line).contains("not_private").contains(home.toString()).contains("no run.json")
        .contains("chmod 700");
    assertThat(mode(home)).isEqualTo("rwxr-xr-x");
    assertThat(list(home)).containsExactly("notes.txt");
  }

  // ------------------------------------------------------------------------ helpers

  /**
   * Runs {@code cryo serve} on {@code home} and expects it to refuse: exit 65 with one line on
   * stderr, which is returned. A run that serves instead fails the test at once.
   */
  private String refused(Path home) throws Exception {
    ServeRun run = startWithoutCreating(home);
    try {
      Poll.until("cryo serve refuses or serves", () -> !run.process().isAlive()
          || run.out().contains("cryo serves"));
      assertThat(run.out()).as("cryo serve served on %s instead of refusing; stderr: %s", home,
          run.err()).doesNotContain("cryo serves");
      assertThat(run.exitCode()).as(run.err()).isEqualTo(65);
      List<String> lines = run.err().lines().toList();
      assertThat(lines).as("one line").hasSize(1);
      assertThat(lines.get(0)).startsWith("cryo serve: ").contains("nothing");
      return lines.get(0);
    } finally {
      run.close();
    }
  }

  /** {@link ServeRun#start}, on a home that stands as the test left it (not created first). */
  private static ServeRun startWithoutCreating(Path home) throws IOException {
    return ServeRun.start(home, "--workers", "1");
  }

  /**
   * Waits until the run logs the refusal of {@code file} (a line naming it and {@code what}),
   * failing at once when it acts on it instead: {@code answer} appears, or the run exits.
   */
  private static void awaitRefusalOrAction(ServeRun run, Path file, Path answer, String what)
      throws InterruptedException {
    Poll.until("the run refuses " + file, () -> {
      if (answer != null && Files.exists(answer)) {
        throw new AssertionError("the run acted on " + file + ": " + answer + " appeared;"
            + " stderr: " + run.err());
      }
      if (!run.process().isAlive()) {
        throw new AssertionError("the run exited after " + file + " appeared; stderr: "
            + run.err());
      }
      return run.err().lines().anyMatch(line -> line.contains(file.toString())
          && line.contains(what));
    });
  }

  private Path privateHome() throws IOException {
    Path home = Files.createDirectories(scratch.resolve("home"));
    chmod(home, "rwx------");
    return home;
  }

  /** Every entry under {@code home} (itself included) that is not a 0700 directory or 0600 file. */
  private static List<String> notPrivate(Path home) throws IOException {
    List<String> found = new ArrayList<>();
    try (Stream<Path> all = Files.walk(home)) {
      for (Path entry : all.toList()) {
        String mode = mode(entry);
        boolean directory = Files.isDirectory(entry, LinkOption.NOFOLLOW_LINKS);
        boolean file = Files.isRegularFile(entry, LinkOption.NOFOLLOW_LINKS);
        if (!(directory && mode.equals("rwx------")) && !(file && mode.equals("rw-------"))) {
          found.add(home.relativize(entry) + " " + mode + (directory ? " (directory)"
              : file ? "" : " (neither file nor directory)"));
        }
      }
    }
    return found;
  }

  private static String umask(long pid) throws IOException {
    return Files.readAllLines(Path.of("/proc", Long.toString(pid), "status")).stream()
        .filter(line -> line.startsWith("Umask:")).map(line -> line.substring(6).strip())
        .findFirst().orElse("?");
  }

  private static List<String> list(Path directory) throws IOException {
    try (Stream<Path> entries = Files.list(directory)) {
      return entries.map(entry -> entry.getFileName().toString()).sorted().toList();
    }
  }

  private static String mode(Path path) throws IOException {
    return PosixFilePermissions.toString(Files.getPosixFilePermissions(path,
        LinkOption.NOFOLLOW_LINKS));
  }

  private static void chmod(Path path, String mode) throws IOException {
    Files.setPosixFilePermissions(path, PosixFilePermissions.fromString(mode));
  }

  private static void setOwner(Path path, int uid) throws IOException {
    Files.setAttribute(path, "unix:uid", uid, LinkOption.NOFOLLOW_LINKS);
  }

  private static int owner(Path path) throws IOException {
    return (Integer) Files.getAttribute(path, "unix:uid", LinkOption.NOFOLLOW_LINKS);
  }

  private static void assumeRoot() throws IOException {
    assumeTrue(isRoot(), "needs root, to give a file to uid " + NOBODY);
  }

  /** Whether the test runs as root (and may give a file to another user). */
  static boolean isRoot() throws IOException {
    return owner(Path.of("/proc/self")) == 0;
  }
}
