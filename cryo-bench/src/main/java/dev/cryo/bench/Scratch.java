package dev.cryo.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** The scratch directories the benchmarks work in. */
public final class Scratch {

  private Scratch() {}

  /** Removes {@code root} and everything under it, deepest first, following no link. */
  public static void delete(Path root) throws IOException {
    try (Stream<Path> all = Files.walk(root)) {
      for (Path path : all.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(path);
      }
    }
  }
}
