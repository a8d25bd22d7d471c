package dev.cryo.commander;

import java.io.IOException;
import java.io.StringReader;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;

/**
 * The application's configuration file ({@code cryo serve --app-config FILE}, {@code cryo reload
 * --app-config FILE}): a Java properties file in UTF-8 ({@code key=value} lines, {@code #}
 * comments; the rules of {@link Properties#load(java.io.Reader)}), at most {@value #MAX_BYTES}
 * bytes, since its contents travel to every worker in its spawn payload. Read by the commander when
 * the run starts and at every reload, so that all the workers started in between see the same
 * contents. Stateless and thread-safe.
 */
public final class AppConfigFile {

  /** The largest configuration file read. */
  public static final int MAX_BYTES = 64 * 1024;

  private AppConfigFile() {}

  /**
   * Reads {@code file}.
   *
   * @return its keys and values, sorted by key
   * @throws IllegalArgumentException when it is not a regular readable file (a folder, a FIFO, a
   *     device), is larger than {@value #MAX_BYTES} bytes, or is not UTF-8 or not a properties file;
   *     the message says which, and that nothing was read
   */
  public static Map<String, String> read(Path file) {
    if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS) && !Files.isRegularFile(file)) {
      throw new IllegalArgumentException("the application's configuration " + file + " is not a"
          + " regular file; nothing was read: name a properties file with --app-config");
    }
    byte[] bytes;
    try {
      if (Files.size(file) > MAX_BYTES) {
        throw new IllegalArgumentException("the application's configuration " + file + " is over "
            + MAX_BYTES + " bytes; nothing was read: keep settings in it, and data elsewhere");
      }
      try (var in = Files.newInputStream(file)) {
        bytes = in.readNBytes(MAX_BYTES + 1);
      }
    } catch (IOException e) {
      throw new IllegalArgumentException("the application's configuration " + file + " cannot be"
          + " read (" + e.getMessage() + "); nothing was read: check the file and its rights", e);
    }
    if (bytes.length > MAX_BYTES) {
      throw new IllegalArgumentException("the application's configuration " + file + " is over "
          + MAX_BYTES + " bytes; nothing was read: keep settings in it, and data elsewhere");
    }
    String text;
    try {
      text = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes))
          .toString();
    } catch (CharacterCodingException e) {
      throw new IllegalArgumentException("the application's configuration " + file + " is not"
          + " UTF-8 text; nothing was read: save it as UTF-8", e);
    }
    Properties properties = new Properties();
    try {
      properties.load(new StringReader(text));
    } catch (IOException | IllegalArgumentException e) {
      throw new IllegalArgumentException("the application's configuration " + file + " is not a"
          + " properties file (" + e.getMessage() + "); nothing was read: write key=value lines",
          e);
    }
    Map<String, String> config = new TreeMap<>();
    for (String key : properties.stringPropertyNames()) {
      config.put(key, properties.getProperty(key));
    }
    return config;
  }
}
