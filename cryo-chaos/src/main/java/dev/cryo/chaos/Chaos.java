package dev.cryo.chaos;

import dev.cryo.chaos.check.CheckCommand;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The auditor's command: {@code run} drives a real {@code cryo serve} under a fault schedule and
 * checks its history; {@code check} checks a history already written. Exit codes: 0 no anomaly, 1
 * anomalies found, 2 the input or the run failed (one line says why), 64 a wrong command line.
 */
@Command(name = "cryo-chaos", mixinStandardHelpOptions = true, exitCodeOnInvalidInput = 64,
    subcommands = {RunCommand.class, CheckCommand.class, GeneratorCommand.class},
    description = "Drives a real cryo run under faults and checks its two promises.")
public final class Chaos implements Runnable {

  @CommandLine.Spec
  private CommandLine.Model.CommandSpec spec;

  /** The command line. */
  public static void main(String[] args) {
    System.exit(new CommandLine(new Chaos()).setCaseInsensitiveEnumValuesAllowed(true).execute(args));
  }

  @Override
  public void run() {
    throw new CommandLine.ParameterException(spec.commandLine(), "say run or check");
  }
}
