package dev.cryo.chaos.check;

import dev.cryo.chaos.check.SimulatedRun.Call;
import dev.cryo.chaos.history.FaultKind;
import dev.cryo.chaos.history.Function;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Random correct runs: virtual users with one to three processes each, every process working on
 * its own page, calls interleaved at random (invoked, applied and completed in any order across
 * processes), logins of guests into a few shared identities and between identities, moves (some
 * refused; some answered {@code 303} before they take effect), fault windows with refusals and
 * unknown outcomes inside them (some of them done by the server later, after the client gave up),
 * and documented losses during faults; the harness's final reads at the end.
 */
final class RandomRun {

  private static final String[] IDENTITIES = {"anna", "bob", "carl"};
  private static final FaultKind[] FAULTS = FaultKind.values();

  private final Random random;
  private final SimulatedRun run = new SimulatedRun();
  private final List<Process> processes = new ArrayList<>();
  /** Calls the client gave up on ({@code info}) that the server has not applied yet. */
  private final List<Call> late = new ArrayList<>();
  private long fault = -1;
  private FaultKind faultKind;

  /** One process of a virtual user. */
  private static final class Process {
    final String vuser;
    final String name;
    String page;
    Call call;
    boolean doomed; // to fail: not applied

    Process(String vuser, String name) {
      this.vuser = vuser;
      this.name = name;
    }
  }

  private RandomRun(long seed) {
    this.random = new Random(seed);
  }

  /** A run of about {@code steps} steps with {@code vusers} virtual users. */
  static SimulatedRun generate(long seed, int vusers, int steps) {
    RandomRun generator = new RandomRun(seed);
    generator.play(vusers, steps);
    return generator.run;
  }

  private void play(int vusers, int steps) {
    for (int v = 0; v < vusers; v++) {
      int count = 1 + random.nextInt(3);
      for (int p = 0; p < count; p++) {
        processes.add(new Process("v" + v, "v" + v + "." + p));
      }
    }
    for (int step = 0; step < steps; step++) {
      int dice = random.nextInt(100);
      if (dice < 35) {
        start(processes.get(random.nextInt(processes.size())));
      } else if (dice < 55) {
        applySome();
      } else if (dice < 80) {
        completeSome();
      } else if (dice < 92) {
        run.advance(random.nextInt(20) + random.nextDouble());
      } else if (dice < 96) {
        toggleFault();
      } else if (dice < 97) {
        loseSomeone();
      } else if (dice < 98) {
        applyLate();
      } else {
        run.refuseMoves = !run.refuseMoves;
      }
    }
    if (fault >= 0) {
      run.faultEnd(fault, faultKind);
      fault = -1;
    }
    for (Process process : processes) {
      if (process.call != null) {
        if (!process.call.applied && !process.doomed) {
          run.apply(process.call);
        }
        run.advance(1);
        finish(process);
      }
    }
    run.advance(50);
    for (Process process : processes) {
      if (process.page != null) {
        run.advance(0.5);
        run.run(process.vuser, process.name, Function.READ, process.page, null);
      }
    }
  }

  private void start(Process process) {
    if (process.call != null) {
      return;
    }
    if (process.page == null) {
      process.call = run.invoke(process.vuser, process.name, Function.OPEN_PAGE, null, null);
      return;
    }
    int dice = random.nextInt(100);
    Function function;
    String arg = null;
    String page = process.page;
    if (dice < 45) {
      function = Function.INC;
    } else if (dice < 65) {
      function = Function.READ;
    } else if (dice < 82) {
      function = Function.NOTE;
      arg = run.nextNoteNumber(page);
    } else if (dice < 93) {
      function = Function.LOGIN;
      arg = IDENTITIES[random.nextInt(IDENTITIES.length)];
      page = random.nextBoolean() ? page : null;
    } else {
      function = Function.MOVE;
      page = null;
    }
    process.call = run.invoke(process.vuser, process.name, function, page, arg);
  }

  private void applySome() {
    Process process = pick(true);
    if (process == null) {
      return;
    }
    int dice = random.nextInt(100);
    if (process.call.function == Function.LOGIN && dice < 30) {
      run.seeOther(process.call); // 303: the connection travels, the login takes effect later
      late.add(process.call);
      process.call = null;
    } else if (fault >= 0 && dice < 10) {
      run.info(process.call, "java.net.http.HttpTimeoutException"); // the client gives up...
      late.add(process.call); // ...and the server may still do it, later
      process.call = null;
    } else if (fault >= 0 && dice < 30) {
      process.doomed = true; // it will fail or end unknown without being done
    } else {
      run.apply(process.call);
    }
  }

  private void applyLate() {
    if (!late.isEmpty()) {
      run.apply(late.remove(random.nextInt(late.size())));
    }
  }

  private void completeSome() {
    Process process = pick(false);
    if (process != null) {
      finish(process);
    }
  }

  /** A process with a call to apply ({@code toApply}) or to complete. */
  private Process pick(boolean toApply) {
    List<Process> candidates = new ArrayList<>();
    for (Process process : processes) {
      Call call = process.call;
      if (call != null && (toApply ? !call.applied && !process.doomed
          : call.applied || process.doomed)) {
        candidates.add(process);
      }
    }
    return candidates.isEmpty() ? null : candidates.get(random.nextInt(candidates.size()));
  }

  private void finish(Process process) {
    Call call = process.call;
    boolean inFault = fault >= 0;
    if (process.doomed) {
      if (inFault && random.nextBoolean()) {
        run.info(call, "java.net.http.HttpTimeoutException");
      } else {
        run.fail(call, 503, "saturated");
      }
    } else if (inFault && random.nextInt(100) < 25) {
      run.info(call, "java.io.IOException");
    } else {
      run.complete(call);
      if (call.function == Function.OPEN_PAGE) {
        process.page = call.replyPage;
      }
      if (call.refused() && call.refusalStatus == 404) {
        process.page = null; // the page is gone: open another
      }
    }
    process.call = null;
    process.doomed = false;
  }

  private void toggleFault() {
    if (fault < 0) {
      faultKind = FAULTS[random.nextInt(FAULTS.length)];
      fault = run.faultStart(faultKind, "random");
    } else {
      run.faultEnd(fault, faultKind);
      fault = -1;
      // a doomed call completing after the window must still be within the grace
      for (Process process : processes) {
        if (process.doomed) {
          run.advance(1);
          finish(process);
        }
      }
    }
  }

  private void loseSomeone() {
    if (fault < 0) {
      return;
    }
    Process process = processes.get(random.nextInt(processes.size()));
    String user = run.userNow(process.vuser);
    run.lose(user, random.nextBoolean() ? "worker_died" : "drain_committed");
  }
}
