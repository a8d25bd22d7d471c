package dev.cryo.examples.guide;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * docs/guide.md read as its fenced code blocks, each with its language and the line it starts on.
 */
final class Guide {

  /** One fenced block: {@code language} is what follows the opening fence (empty for none). */
  record Block(String language, int line, List<String> lines) {
    String text() {
      return String.join("\n", lines);
    }
  }

  /** The checkout's root (this module's {@code ../..}, or the property the pom sets). */
  static Path root() {
    return Path.of(System.getProperty("cryo.guide.root", "../..")).toAbsolutePath().normalize();
  }

  /** The guide, {@code docs/guide.md}. */
  static Path file() {
    return root().resolve("docs").resolve("guide.md");
  }

  /** This module's directory. */
  static Path module() {
    return root().resolve("cryo-examples").resolve("guide");
  }

  private Guide() {}

  /** The fenced blocks of {@code markdown}, in order. */
  static List<Block> blocks(List<String> markdown) {
    List<Block> blocks = new ArrayList<>();
    String language = null;
    int start = 0;
    List<String> lines = null;
    for (int i = 0; i < markdown.size(); i++) {
      String line = markdown.get(i);
      if (lines == null) {
        if (line.startsWith("```")) {
          language = line.substring(3).strip();
          start = i + 1;
          lines = new ArrayList<>();
        }
      } else if (line.equals("```")) {
        blocks.add(new Block(language, start, List.copyOf(lines)));
        lines = null;
      } else {
        lines.add(line);
      }
    }
    if (lines != null) {
      throw new AssertionError("the block opened on line " + start + " of the guide never closes");
    }
    return blocks;
  }

  /** The fenced blocks of the guide. */
  static List<Block> blocks() throws IOException {
    return blocks(Files.readAllLines(file()));
  }

  /** The guide's one {@code xml} block: the project's pom. */
  static String pom() throws IOException {
    List<Block> poms = blocks().stream().filter(b -> b.language().equals("xml")).toList();
    if (poms.size() != 1) {
      throw new AssertionError("the guide should have one xml block, its project's pom; it has "
          + poms.size());
    }
    return poms.get(0).text() + "\n";
  }
}
