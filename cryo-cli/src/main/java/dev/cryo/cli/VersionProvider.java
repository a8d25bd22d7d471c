package dev.cryo.cli;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;
import picocli.CommandLine;

/** The text of {@code cryo --version}: cryo's version and the Java runtime it runs on. */
public final class VersionProvider implements CommandLine.IVersionProvider {

  /** Creates the provider (picocli instantiates it). */
  public VersionProvider() {}

  /** cryo's version, from the build; {@code unknown} when the build did not record it. */
  public static String version() {
    Properties properties = new Properties();
    try (InputStream in = VersionProvider.class.getResourceAsStream("version.properties")) {
      if (in != null) {
        properties.load(in);
      }
    } catch (IOException e) {
      return "unknown";
    }
    String version = properties.getProperty("version", "unknown");
    return version.startsWith("${") ? "unknown" : version;
  }

  @Override
  public String[] getVersion() {
    return new String[] {
        "cryo " + version(),
        "Java " + System.getProperty("java.version") + " (" + System.getProperty("java.vendor")
            + ", " + System.getProperty("java.home") + ")"
    };
  }
}
