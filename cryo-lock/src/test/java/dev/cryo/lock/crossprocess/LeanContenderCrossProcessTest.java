package dev.cryo.lock.crossprocess;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cryo.lock.ProcessLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A process that takes a lock, and is refused one another process holds, sets up nothing it does
 * not use: no pattern-{@code switch} bootstrap (which generates a class through the class-file
 * library), no date formatter (a leap year checked through {@code java.time.Year} builds one), no
 * regular expressions. Each of these was set up in every contender of Lucene's {@code
 * LockStressTest} (short-lived JVMs, where loading and compiling them was a large part of the
 * run); the classes a real child JVM loaded are read from its class-loading log.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class LeanContenderCrossProcessTest {

  private static final List<String> NOT_SET_UP = List.of(
      "java.lang.runtime.SwitchBootstraps", "java.time.format.DateTimeFormatter",
      "java.time.Year", "java.util.regex.Pattern");

  @TempDir Path root;

  @Test
  void aContenderLoadsNoSwitchBootstrapNoFormatterAndNoRegularExpression() throws Exception {
    Path free = Files.createDirectory(root.resolve("free"));
    Path held = Files.createDirectory(root.resolve("held"));
    Path classes = root.resolve("classes.txt");
    Path output = root.resolve("output.txt");
    try (ProcessLock holding = ProcessLock.acquire(held, Duration.ZERO, "the test")) {
      Process child = new ProcessBuilder(ChildJvm.javaCommand(), "-Xshare:auto",
          "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xmx64m",
          "-Xlog:class+load=info:file=" + classes, "-cp", System.getProperty("java.class.path"),
          ContenderMain.class.getName(), free.toString(), held.toString())
          .redirectErrorStream(true).redirectOutput(output.toFile()).start();
      assertThat(child.waitFor(90, TimeUnit.SECONDS)).as("the child ended").isTrue();
      String said = Files.readString(output, StandardCharsets.UTF_8);
      assertThat(child.exitValue()).as(said).isZero();
      assertThat(said).contains("@REFUSED").contains("the test");
    }
    List<String> loaded = Files.readAllLines(classes, StandardCharsets.UTF_8).stream()
        .map(line -> line.replaceFirst("^(\\[[^]]*\\])+\\s*", ""))
        .map(line -> line.split(" ", 2)[0])
        .toList();
    assertThat(loaded).as("classes loaded by the child").contains(ProcessLock.class.getName());
    for (String name : NOT_SET_UP) {
      assertThat(loaded).as("classes loaded by the child").doesNotContain(name);
    }
  }
}
