package dev.cryo.commander;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalLong;

/**
 * The machine's free memory, as the kernel estimates it: {@code MemAvailable} of
 * {@code /proc/meminfo} (what can be allocated without swapping). Stateless and thread-safe.
 */
public final class MachineMemory {

  private static final System.Logger LOG = System.getLogger(MachineMemory.class.getName());
  private static final Path MEMINFO = Path.of("/proc/meminfo");

  private MachineMemory() {
  }

  /**
   * The available memory in bytes; empty when {@code /proc/meminfo} cannot be read or has no
   * {@code MemAvailable} line (not Linux, or a kernel older than 3.14).
   */
  public static OptionalLong available() {
    return available(MEMINFO);
  }

  /** {@link #available()} read from {@code meminfo}, for tests. */
  static OptionalLong available(Path meminfo) {
    String text;
    try {
      text = Files.readString(meminfo, StandardCharsets.US_ASCII);
    } catch (IOException | RuntimeException e) {
      LOG.log(Level.DEBUG, "cannot read " + meminfo + ": " + e);
      return OptionalLong.empty();
    }
    return parse(text);
  }

  /** The {@code MemAvailable} of a {@code /proc/meminfo} text, in bytes. */
  static OptionalLong parse(String meminfo) {
    for (String line : meminfo.split("\n")) {
      if (line.startsWith("MemAvailable:")) {
        String[] parts = line.substring("MemAvailable:".length()).trim().split("\\s+");
        try {
          long value = Long.parseLong(parts[0]);
          long unit = parts.length > 1 && parts[1].equalsIgnoreCase("kB") ? 1024 : 1;
          return OptionalLong.of(Math.multiplyExact(value, unit));
        } catch (NumberFormatException | ArithmeticException e) {
          return OptionalLong.empty();
        }
      }
    }
    return OptionalLong.empty();
  }
}
