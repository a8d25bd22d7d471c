package dev.cryo.control;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * The child of {@link ReadOnlyMountTest}: reads the stop request of the run directory named by its
 * argument. When a read-write open is refused it says {@code @REFUSED} and waits for a line on
 * standard input (the test swaps something in meanwhile); at the end it says {@code @READ ...}.
 */
public final class ReadStopRequestMain {

  private ReadStopRequestMain() {}

  public static void main(String[] args) throws IOException {
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in,
        StandardCharsets.UTF_8));
    SafeRoot.readOnlyProbe = shown -> {
      System.out.println("@REFUSED " + shown);
      System.out.flush();
      if (in.readLine() == null) {
        Runtime.getRuntime().halt(3);
      }
    };
    StopReading reading = RunDirectory.at(Path.of(args[0])).readStopRequest();
    System.out.println("@READ " + (reading.unparseable() ? "unparseable " + reading.problem()
        : "request " + reading.mode().orElseThrow().code()));
    System.out.flush();
  }
}
