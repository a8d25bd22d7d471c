package dev.cryo.freezer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cryo.lock.LockRecord;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Several real processes race for one user's semaphore: exactly one wins, and the disk names it. */
class SemaphoreRaceTest {

  static final int CONTENDERS = 4;

  @TempDir Path temp;

  /** A contender: says ready, waits for "go", tries once, says won or lost, holds until stdin closes. */
  public static void main(String[] args) throws Exception {
    Freezer freezer = new Freezer(Path.of(args[0]));
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    System.out.println("ready");
    System.out.flush();
    if (!"go".equals(in.readLine())) {
      return;
    }
    boolean won = freezer.tryTakeSemaphore(args[1], args[2]);
    if (won) {
      freezer.writeUserParcel(args[1], java.util.Map.of("by", args[2]), args[2], "race", "g");
    }
    System.out.println(won ? "won" : "lost");
    System.out.flush();
    while (in.read() >= 0) {
      // Hold until the parent closes our stdin.
    }
  }

  @Test
  void exactlyOneProcessWinsTheSemaphore() throws Exception {
    int rounds = 3 * Integer.getInteger("cryo.stress.scale", 1);
    Path root = temp.resolve("freezer");
    Freezer freezer = new Freezer(root);
    for (int round = 0; round < rounds; round++) {
      String user = "../user " + round;
      List<Process> children = new ArrayList<>();
      List<BufferedReader> outputs = new ArrayList<>();
      try {
        for (int i = 0; i < CONTENDERS; i++) {
          Process child = new ProcessBuilder(
              Path.of(System.getProperty("java.home"), "bin", "java").toString(),
              "-cp", System.getProperty("java.class.path"), SemaphoreRaceTest.class.getName(),
              root.toString(), user, "contender-" + i)
              .redirectError(ProcessBuilder.Redirect.INHERIT).start();
          children.add(child);
          outputs.add(new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8)));
        }
        for (BufferedReader output : outputs) {
          assertThat(output.readLine()).isEqualTo("ready");
        }
        for (Process child : children) {
          OutputStream stdin = child.getOutputStream();
          stdin.write("go\n".getBytes(StandardCharsets.UTF_8));
          stdin.flush();
        }
        List<String> results = new ArrayList<>();
        int winner = -1;
        for (int i = 0; i < CONTENDERS; i++) {
          String result = outputs.get(i).readLine();
          results.add(result);
          if ("won".equals(result)) {
            winner = i;
          }
        }
        assertThat(results).as("round %d", round).containsOnly("won", "lost");
        assertThat(results.stream().filter("won"::equals).count()).as("round %d: %s", round, results).isEqualTo(1);
        LockRecord holder = freezer.semaphoreHolder(user).orElseThrow();
        assertThat(holder.holder()).isEqualTo("contender-" + winner);
        assertThat(holder.pid()).isEqualTo(children.get(winner).pid());
        assertThat(freezer.readUserParcel(user)).contains(java.util.Map.of("by", "contender-" + winner));
      } finally {
        for (Process child : children) {
          child.getOutputStream().close();
        }
        for (Process child : children) {
          if (!child.waitFor(30, TimeUnit.SECONDS)) {
            child.destroyForcibly();
          }
        }
      }
      assertThat(freezer.dropUserFolder(user)).isTrue();
    }
  }
}
