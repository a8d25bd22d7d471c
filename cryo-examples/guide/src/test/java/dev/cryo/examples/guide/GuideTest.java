package dev.cryo.examples.guide;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Holds docs/guide.md to the code of this module: every {@code java} block of the guide is a run
 * of consecutive lines of one of the guide project's Java files (main or test, both compiled and
 * run here and by {@link GuideProjectTest}), every {@code html} or {@code js} block a run of
 * lines of its page; lines compare without their leading and trailing blanks, so a piece may be
 * shown less indented than in its class, but nothing else may differ. The {@code xml} block is the project's pom,
 * which {@link GuideProjectTest} builds with. A {@code sh} block is commands (the install command
 * {@link GuideProjectTest} runs is one of them) and a {@code text} block is output or a tree:
 * neither is compiled. A block of any other language, or none, fails: every block says what it
 * is, so that none escapes the check.
 */
class GuideTest {

  @Test
  void everyJavaAndHtmlBlockOfTheGuideIsCodeOfTheGuidesProject() throws IOException {
    List<Guide.Block> blocks = Guide.blocks();
    assertThat(blocks).as("the guide's code blocks").hasSizeGreaterThan(5);
    List<Path> java = files(Guide.module().resolve("src"), ".java").stream()
        .filter(p -> p.toString().contains("/com/example/")).toList();
    List<Path> html = files(Guide.module().resolve("src"), ".html");
    assertThat(java).isNotEmpty();
    assertThat(html).isNotEmpty();

    List<String> missing = new ArrayList<>();
    for (Guide.Block block : blocks) {
      switch (block.language()) {
        case "java" -> check(block, java, missing);
        case "html", "js" -> check(block, html, missing);
        case "xml", "sh", "text" -> {
          // the pom and the commands: GuideProjectTest; output: not code
        }
        default -> missing.add("line " + block.line() + ": a block of language '"
            + block.language() + "'; say java, html, js, xml, sh or text");
      }
    }
    assertThat(missing).as("blocks of docs/guide.md that are not code of " + Guide.module()
        + " (a guide and its code that drifted apart: change both)").isEmpty();
  }

  @Test
  void aBlockThatDriftedFromItsCodeIsFound() throws IOException {
    List<Path> java = files(Guide.module().resolve("src"), ".java");
    List<Guide.Block> blocks = Guide.blocks(List.of("```java",
        "    routes.post(\"/api/pages\", call -> Map.of(\"page\", call.openPage()));", "```",
        "```java", "    routes.post(\"/api/pages\", call -> Map.of(\"tab\", call.openPage()));",
        "```"));
    List<String> missing = new ArrayList<>();
    check(blocks.get(0), java, missing);
    assertThat(missing).isEmpty();
    check(blocks.get(1), java, missing);
    assertThat(missing).hasSize(1);
  }

  private static void check(Guide.Block block, List<Path> files, List<String> missing) {
    List<String> wanted = stripped(block.lines());
    for (Path file : files) {
      List<String> have = stripped(read(file));
      if (java.util.Collections.indexOfSubList(have, wanted) >= 0) {
        return;
      }
    }
    missing.add("line " + block.line() + " (" + block.language() + "): "
        + block.lines().get(0).strip() + " …");
  }

  private static List<String> stripped(List<String> lines) {
    return lines.stream().map(String::strip).toList();
  }

  private static List<String> read(Path file) {
    try {
      return Files.readAllLines(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static List<Path> files(Path under, String suffix) throws IOException {
    try (Stream<Path> walk = Files.walk(under)) {
      return walk.filter(p -> p.toString().endsWith(suffix)).sorted().toList();
    }
  }
}
