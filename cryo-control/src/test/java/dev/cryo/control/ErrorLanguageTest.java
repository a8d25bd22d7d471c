package dev.cryo.control;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import dev.cryo.lock.crossprocess.GermanLocale;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Failures are told apart by what is on disk and by exception types, never by the words of a
 * message: the C library words them in the reader's language. The reader here is a child JVM in a
 * German locale ({@link GermanLocale}); skipped where none can be compiled.
 */
class ErrorLanguageTest {

  @TempDir Path base;
  private List<String> german;

  @BeforeEach
  void needsGerman() throws Exception {
    german = GermanLocale.in(base);
    assumeThat(german).as("a German locale can be compiled here").isNotEmpty();
  }

  private String run(List<String> wrapper, Class<?> main, String... args) throws Exception {
    List<String> command = new ArrayList<>(german);
    command.addAll(wrapper);
    command.addAll(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-cp", System.getProperty("java.class.path"),
        main.getName()));
    command.addAll(List.of(args));
    Process child = new ProcessBuilder(command).redirectErrorStream(true)
        .redirectInput(ProcessBuilder.Redirect.PIPE).start();
    child.getOutputStream().write("go\n".getBytes(StandardCharsets.UTF_8));
    child.getOutputStream().close();
    try {
      assertThat(child.waitFor(60, TimeUnit.SECONDS)).as("the child ended").isTrue();
      String output = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      return output.lines().filter(line -> line.startsWith("@READ") || line.startsWith("@REFUSED "))
          .reduce((first, second) -> second).orElse(output);
    } finally {
      child.destroyForcibly();
    }
  }

  @Test
  void aSymbolicLinkSwappedInBeforeTheOpenIsNamedInAnyLanguage() throws Exception {
    Path dir = Files.createDirectory(base.resolve("dir"));
    Files.writeString(base.resolve("elsewhere"), "not to be read");
    Files.createSymbolicLink(dir.resolve("stop-request"), base.resolve("elsewhere"));

    String result = run(List.of(), ReadOpenedMain.class, dir.toString(), "stop-request");

    assertThat(result).startsWith("@REFUSED not_a_regular_file").contains("a symbolic link");
  }

  @Test
  void aRequestOnAReadOnlyMountIsReadInAnyLanguage() throws Exception {
    assumeThat(Files.getAttribute(Path.of("/proc/self"), "unix:uid")).isEqualTo(0);
    assumeThat(Files.isExecutable(Path.of("/usr/bin/unshare"))).isTrue();
    Path home = base.resolve("run");
    RunDirectory directory = RunDirectory.at(home);
    directory.writeRunState(RunState.begin());
    assertThat(directory.requestStop(StopMode.NOW).written()).isTrue();

    String result = run(List.of("unshare", "-m", "sh", "-c", "mount --make-rprivate / && mount"
        + " --bind \"$0\" \"$0\" && mount -o remount,bind,ro \"$0\" \"$0\" && exec \"$@\"",
        home.toString()), ReadStopRequestMain.class, home.toString());

    assertThat(result).isEqualTo("@READ request now");
  }
}
