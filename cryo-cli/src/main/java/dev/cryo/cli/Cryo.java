package dev.cryo.cli;

/** Placeholder entry point; the picocli command tree replaces it. */
public final class Cryo {
  private Cryo() {}

  /** Runs the cryo command. */
  public static void main(String[] args) {
    System.out.println("cryo");
  }
}
