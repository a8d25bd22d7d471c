package dev.cryo.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Starts a command behind a gate, so that it runs only once the lock's record names its process.
 *
 * <p>Java learns a child's pid only once the child exists; a command started directly would run for
 * a moment under a record that names cryo alone, and a SIGKILL of cryo in that moment would leave it
 * running while its lock is judged dead. Behind the gate the child is first a small {@code sh} that
 * waits while the gate file exists, then {@code exec}s the command: same process, same pid, same
 * start time. cryo names that process in the record, then removes the gate file. If cryo dies
 * before that, the gate sees its parent gone and exits with {@link #ABANDONED} without ever running
 * the command, and the record names two dead processes: the lock is free to reclaim.
 */
final class CommandGate {

  /** The exit status of a gate whose cryo died before opening it: the command never ran. */
  static final int ABANDONED = 125;

  private static final String SCRIPT = ""
      + "gate=$1; parent=$2; shift 2; "
      + "while [ -e \"$gate\" ]; do "
      + "kill -0 \"$parent\" 2>/dev/null || exit " + ABANDONED + "; "
      + "sleep 0.002; "
      + "done; "
      + "exec \"$@\"";

  private final Path file;

  private CommandGate(Path file) {
    this.file = file;
  }

  /** A closed gate: a fresh private file whose existence holds the command back. */
  static CommandGate close() throws IOException {
    return new CommandGate(Files.createTempFile("cryo-gate-", ""));
  }

  /** The command line that runs {@code command} behind this gate, watching this JVM. */
  List<String> wrap(List<String> command) {
    return wrap(command, ProcessHandle.current().pid());
  }

  /** The command line that runs {@code command} behind this gate, watching process {@code parent}. */
  List<String> wrap(List<String> command, long parent) {
    List<String> argv = new ArrayList<>(command.size() + 6);
    argv.add("/bin/sh");
    argv.add("-c");
    argv.add(SCRIPT);
    argv.add("cryo-gate");
    argv.add(file.toString());
    argv.add(Long.toString(parent));
    argv.addAll(command);
    return argv;
  }

  /** Lets the command run (idempotent). */
  void open() throws IOException {
    Files.deleteIfExists(file);
  }

  /** Opens the gate without complaint; for cleanup paths. */
  void openQuietly() {
    try {
      open();
    } catch (IOException e) {
      // A gate file that cannot be removed only leaves a stray empty file in the temp folder.
    }
  }
}
