package dev.cryo.commander;

import java.nio.file.Path;

/**
 * A child JVM that starts a commander (over fake workers) on the home {@code args[0]}, prints
 * {@code ready}, and runs until it is killed: another run holding the home, for the tests.
 */
public final class HoldingCommanderMain {

  private HoldingCommanderMain() {
  }

  /** Starts the commander and waits forever. */
  public static void main(String[] args) throws Exception {
    Commander commander = Commander.start(FakeWorkers.config(Path.of(args[0])).workers(1).build());
    System.out.println("ready " + commander.status().workers().get(0).pid());
    System.out.flush();
    Thread.sleep(Long.MAX_VALUE);
  }
}
