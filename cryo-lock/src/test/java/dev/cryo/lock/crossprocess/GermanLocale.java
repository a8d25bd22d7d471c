package dev.cryo.lock.crossprocess;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * A German locale for a child process, compiled into a scratch directory ({@code localedef}, with
 * {@code LOCPATH}): nothing of the machine is changed. The C library then words its error messages
 * in German, which is what a server in Germany sees; code that reads error messages breaks there.
 * Shared with cryo-control's tests through cryo-lock's test jar.
 */
public final class GermanLocale {

  private GermanLocale() {}

  /**
   * The {@code env} prefix that runs a command in German, or empty when this machine has no German
   * locale sources or translations (the caller skips).
   */
  public static List<String> in(Path scratch) throws Exception {
    if (!Files.exists(Path.of("/usr/share/i18n/locales/de_DE"))
        || !Files.exists(Path.of("/usr/share/locale/de/LC_MESSAGES/libc.mo"))) {
      return List.of();
    }
    Path locales = Files.createDirectories(scratch.resolve("locales"));
    Process localedef = new ProcessBuilder("localedef", "-i", "de_DE", "-f", "UTF-8",
        locales.resolve("de_DE.UTF-8").toString()).redirectErrorStream(true).start();
    localedef.getInputStream().readAllBytes();
    if (localedef.waitFor() != 0 || !Files.isDirectory(locales.resolve("de_DE.UTF-8"))) {
      return List.of();
    }
    return List.of("env", "LOCPATH=" + locales, "LC_ALL=de_DE.UTF-8", "LANGUAGE=de");
  }
}
