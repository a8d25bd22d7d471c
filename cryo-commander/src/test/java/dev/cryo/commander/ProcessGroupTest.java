package dev.cryo.commander;

import static dev.cryo.commander.FakeWorkers.config;
import static dev.cryo.commander.FakeWorkers.eventually;
import static dev.cryo.commander.FakeWorkers.get;
import static dev.cryo.commander.FakeWorkers.gone;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Across processes: the workers' process groups, and a home held by another JVM. */
@Timeout(120)
class ProcessGroupTest {

  @TempDir
  Path home;

  @Test
  void eachWorkerLeadsItsOwnGroupAndClosingKillsAllOfIt() throws Exception {
    long worker;
    long child;
    try (Commander commander = Commander.start(config(home, "-Dcryo.fake.child=true").workers(1)
        .build())) {
      assertThat(commander.serve(get("c1", "/counter")).status()).isEqualTo(200);
      worker = commander.status().workers().get(0).pid();
      Path log = home.resolve("workers").resolve("main_0001.log");
      child = Long.parseLong(Files.readAllLines(log).stream().filter(l -> l.startsWith("child "))
          .findFirst().orElseThrow().substring("child ".length()));
      assertThat(processGroup(worker)).isEqualTo(worker);
      assertThat(processGroup(child)).isEqualTo(worker);
      assertThat(processGroup(ProcessHandle.current().pid())).isNotEqualTo(worker);
      assertThat(gone(child)).isFalse();
    }
    long sleeper = child;
    assertThat(gone(worker)).isTrue();
    assertThat(eventually(Duration.ofSeconds(10), () -> gone(sleeper))).isTrue();
  }

  @Test
  void aHomeHeldByAnotherProcessIsRefusedNamingIt() throws Exception {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Process holder = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
        HoldingCommanderMain.class.getName(), home.toString())
        .redirectError(ProcessBuilder.Redirect.DISCARD).start();
    try {
      BufferedReader out = new BufferedReader(new InputStreamReader(holder.getInputStream(),
          StandardCharsets.UTF_8));
      CompletableFuture<String> ready = CompletableFuture.supplyAsync(() -> {
        try {
          String line;
          while ((line = out.readLine()) != null) {
            if (line.startsWith("ready ")) {
              return line;
            }
          }
          return null;
        } catch (java.io.IOException e) {
          return null;
        }
      });
      long holderWorker = Long.parseLong(ready.get(60, TimeUnit.SECONDS).substring(6));

      assertThatThrownBy(() -> Commander.start(config(home).workers(1).build()))
          .isInstanceOfSatisfying(CommanderException.class, e -> {
            assertThat(e.reason()).isEqualTo(CommanderException.Reason.HOME_HELD);
            assertThat(e.getMessage()).contains("pid " + holder.pid()).contains("cryo stop");
            assertThat(e.holder().orElseThrow().pid()).isEqualTo(holder.pid());
          });

      FakeWorkers.kill9(holder.pid()); // its worker sees the end of its wire and exits
      assertThat(holder.waitFor(30, TimeUnit.SECONDS)).isTrue();
      assertThat(eventually(Duration.ofSeconds(30), () -> gone(holderWorker))).isTrue();
      try (Commander after = Commander.start(config(home).workers(1).build())) {
        assertThat(after.serve(get("c1", "/counter")).status()).isEqualTo(200); // reclaimed
      }
    } finally {
      holder.destroyForcibly();
    }
  }

  @Test
  void aGroupWhosePidNowNamesAnotherProcessIsNotKilledAndTheKillSaysSo() throws Exception {
    // A process leading its own group, as a reused pid would: same pid, another start time.
    Process other = new ProcessBuilder("setsid", "sleep", "600").start();
    try {
      assertThat(eventually(Duration.ofSeconds(10), () -> processGroupOrZero(other.pid())
          == other.pid())).isTrue();
      long ticks = WorkerProcess.startTicksOf(other.pid());
      assertThat(ticks).isPositive();
      Process leader = new ProcessBuilder("true").start(); // the worker: dead, and reaped
      assertThat(leader.waitFor(30, TimeUnit.SECONDS)).isTrue();
      WorkerProcess dead = WorkerProcess.of("main_0001", leader, other.pid(), ticks - 1);

      assertThat(dead.killGroup()).isTrue();

      assertThat(other.waitFor(2, TimeUnit.SECONDS)).as("the process now at the worker's pid"
          + " was killed").isFalse(); // a SIGKILL would have ended it well within that
      assertThat(dead.lastKillSkipped()).contains("pid " + other.pid())
          .contains("now names another process").contains("was not killed");
      // Started at the worker's own tick, it is the worker: its group is killed.
      WorkerProcess same = WorkerProcess.of("main_0001", leader, other.pid(), ticks);
      assertThat(same.killGroup()).isTrue();
      assertThat(same.lastKillSkipped()).isNull();
      assertThat(other.waitFor(30, TimeUnit.SECONDS)).isTrue();
    } finally {
      other.destroyForcibly();
    }
  }

  @Test
  void aGroupWhoseLeaderDiedHasItsMembersKilled() throws Exception {
    Process leader = new ProcessBuilder("setsid", "sh", "-c",
        "sleep 600 >/dev/null 2>&1 & echo $!").redirectError(ProcessBuilder.Redirect.DISCARD).start();
    WorkerProcess worker = WorkerProcess.of("main_0001", leader);
    // One line, not to the end: the member keeps the pipe open.
    long member = Long.parseLong(new BufferedReader(new InputStreamReader(leader.getInputStream(),
        StandardCharsets.UTF_8)).readLine().trim());
    try {
      assertThat(leader.waitFor(30, TimeUnit.SECONDS)).isTrue(); // dead, and reaped by the JDK
      assertThat(processGroup(member)).isEqualTo(leader.pid());

      assertThat(worker.killGroup()).isTrue();

      assertThat(worker.lastKillSkipped()).isNull();
      assertThat(eventually(Duration.ofSeconds(10), () -> gone(member))).isTrue();
    } finally {
      ProcessHandle.of(member).ifPresent(ProcessHandle::destroyForcibly);
    }
  }

  private static long processGroupOrZero(long pid) {
    try {
      return processGroup(pid);
    } catch (Exception e) {
      return 0;
    }
  }

  private static long processGroup(long pid) throws Exception {
    String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
    List<String> fields = List.of(stat.substring(stat.lastIndexOf(')') + 2).split(" "));
    return Long.parseLong(fields.get(2)); // state, ppid, pgrp
  }
}
