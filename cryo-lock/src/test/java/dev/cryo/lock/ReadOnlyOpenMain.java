package dev.cryo.lock;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * The child of {@code ReadOnlyFallbackCrossProcessTest}: reads the lockfile named by its argument.
 * When the read-write open is refused it says {@code @REFUSED} and waits for a line on standard input
 * (the test swaps something in meanwhile), then goes on; at the end it says {@code @READ <shape>}.
 */
public final class ReadOnlyOpenMain {

  private ReadOnlyOpenMain() {}

  public static void main(String[] args) throws IOException {
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in,
        StandardCharsets.UTF_8));
    LockFile.readOnlyProbe = path -> {
      System.out.println("@REFUSED " + path);
      System.out.flush();
      if (in.readLine() == null) {
        Runtime.getRuntime().halt(3);
      }
    };
    LockReading reading = LockFile.at(Path.of(args[0])).read();
    System.out.println("@READ " + reading.getClass().getSimpleName() + " " + reading);
    System.out.flush();
  }
}
