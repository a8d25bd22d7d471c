package dev.cryo.cli;

import dev.cryo.lock.LockRecord;
import dev.cryo.lock.ProcessIdentity;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;

/** Lock records and lockfiles written by hand, for the tests. */
final class Records {

  private Records() {}

  /** The pid of a process that has exited (and been reaped). */
  static long deadPid() throws IOException, InterruptedException {
    Process process = new ProcessBuilder("true").start();
    process.waitFor();
    return process.pid();
  }

  /** A complete record naming a dead process of this machine. */
  static LockRecord dead(String holder) throws IOException, InterruptedException {
    ProcessIdentity me = ProcessIdentity.current();
    LockRecord fresh = LockRecord.fresh(me, holder);
    return new LockRecord(deadPid(), 12345, me.bootId(), me.host(), holder, fresh.token(),
        fresh.since(), 0, -1);
  }

  /** A complete record naming a live process (this JVM) on another host. */
  static LockRecord elsewhere(String holder) {
    ProcessIdentity me = ProcessIdentity.current();
    LockRecord fresh = LockRecord.fresh(me, holder);
    return new LockRecord(me.pid(), me.start(), "another-boot", "another-host", holder,
        fresh.token(), fresh.since(), 0, -1);
  }

  static Path write(Path directory, LockRecord record) throws IOException {
    return Files.write(directory.resolve(".lock"), record.toBytes());
  }

  /** Writes {@code text} as the lockfile, last changed {@code age} seconds ago. */
  static Path writeAged(Path directory, String text, long ageSeconds) throws IOException {
    Path lock = Files.writeString(directory.resolve(".lock"), text);
    Files.setLastModifiedTime(lock, FileTime.from(Instant.now().minusSeconds(ageSeconds)));
    return lock;
  }

  static void mkfifo(Path path) throws IOException, InterruptedException {
    Process mkfifo = new ProcessBuilder("mkfifo", path.toString()).inheritIO().start();
    if (mkfifo.waitFor() != 0) {
      throw new IOException("mkfifo " + path + " failed");
    }
  }
}
