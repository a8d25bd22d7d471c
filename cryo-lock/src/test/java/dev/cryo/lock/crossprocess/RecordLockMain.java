package dev.cryo.lock.crossprocess;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A process that holds the kernel record lock ({@code fcntl}) of the file named by its argument, as
 * a reclaimer judging a lockfile does: it says {@code @LOCKED}, then holds the lock until a line (or
 * the end) comes on standard input.
 */
public final class RecordLockMain {

  private RecordLockMain() {}

  public static void main(String[] args) throws Exception {
    try (FileChannel channel = FileChannel.open(Path.of(args[0]), StandardOpenOption.READ,
        StandardOpenOption.WRITE)) {
      channel.lock();
      System.out.println("@LOCKED");
      System.out.flush();
      new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
    }
  }
}
