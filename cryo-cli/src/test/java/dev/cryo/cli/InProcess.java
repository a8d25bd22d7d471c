package dev.cryo.cli;

import java.io.PrintWriter;
import java.io.StringWriter;
import picocli.CommandLine;

/** Runs the {@code cryo} command tree inside the test JVM, capturing what it prints. */
final class InProcess {

  /** What one run of the command gave. */
  record Result(int exitCode, String out, String err) {
    /** The lines of standard error. */
    String[] errLines() {
      return err.isEmpty() ? new String[0] : err.split("\n");
    }
  }

  private InProcess() {}

  static Result cryo(String... args) {
    CommandLine commandLine = Cryo.commandLine();
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    commandLine.setOut(new PrintWriter(out, true));
    commandLine.setErr(new PrintWriter(err, true));
    int code = commandLine.execute(args);
    return new Result(code, out.toString(), err.toString());
  }
}
