package dev.cryo.control;

import java.nio.file.Path;

/**
 * A child of {@link ErrorLanguageTest}: opens the entry named by its second argument in the
 * directory named by its first as {@link SafeRoot#read} does once its look said "regular file"
 * ({@link SafeRoot#readOpened}), and says {@code @READ <bytes>} or {@code @REFUSED <reason>}.
 */
public final class ReadOpenedMain {

  private ReadOpenedMain() {}

  public static void main(String[] args) throws Exception {
    try (SafeRoot root = SafeRoot.open(Path.of(args[0]))) {
      System.out.println("@READ " + root.readOpened(args[1], 100).map(String::new).orElse(""));
    } catch (ControlException e) {
      System.out.println("@REFUSED " + e.reason().code() + " " + e.getMessage());
    }
    System.out.flush();
  }
}
