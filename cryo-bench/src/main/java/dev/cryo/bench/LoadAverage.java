package dev.cryo.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** The machine's load average, printed beside a benchmark's figures (how busy the machine was). */
public final class LoadAverage {

  private LoadAverage() {}

  /** The 1, 5 and 15 minute load averages of /proc/loadavg, or "unknown" where there is none. */
  public static String now() {
    try {
      String[] fields = Files.readString(Path.of("/proc/loadavg")).split(" ");
      return fields[0] + " " + fields[1] + " " + fields[2];
    } catch (IOException | RuntimeException e) {
      return "unknown";
    }
  }
}
