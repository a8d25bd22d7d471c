package dev.cryo.cli;

import dev.cryo.lock.LockRecord;
import dev.cryo.lock.ProcessIdentity;
import dev.cryo.lock.Publication;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;

/**
 * {@code cryo} with the lock taken from under it at the worst moment: right after the gated command
 * started and before the record names it, another holder's record replaces cryo's (an atomic
 * rename, as a forced break and a new acquirer would leave it). For {@link LockRunProcessTest}.
 */
public final class LockLostMain {

  private LockLostMain() {}

  public static void main(String[] args) {
    LockRunCommand.beforeShare = lock -> {
      LockRecord foreign = LockRecord.fresh(ProcessIdentity.current(), "took it meanwhile");
      try {
        Publication.replace(lock.lockFile(), foreign.toBytes(), Publication.Durability.VOLATILE);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      System.err.println("lock taken away: " + Files.exists(lock.lockFile()));
    };
    System.exit(Cryo.commandLine().execute(args));
  }
}
