package dev.cryo.commander;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The names of a run's event log on disk, and the files a reader reads to see a whole log, oldest
 * first. A run writes {@value #LIVE}; when it passes its size cap it becomes {@code events.1.jsonl}
 * (the one before becomes {@code events.2.jsonl}, and so on, the oldest beyond the kept count
 * removed), and a new {@value #LIVE} is begun. A start moves the previous run's files aside:
 * {@value #LIVE} to {@value #PREVIOUS}, {@code events.N.jsonl} to {@code events.previous.N.jsonl}
 * (those of the run before that removed first). A run's whole log, oldest line first, is then its
 * parts from the highest number down to 1, then its live (or previous) file; lines are never split
 * across two files. Stateless.
 */
public final class EventLogFiles {

  /** The live log of the running (or last) run. */
  public static final String LIVE = "events.jsonl";
  /** The last file of the previous run's log. */
  public static final String PREVIOUS = "events.previous.jsonl";

  private static final Pattern PART = Pattern.compile("events\\.([1-9][0-9]{0,8})\\.jsonl");
  private static final Pattern PREVIOUS_PART =
      Pattern.compile("events\\.previous\\.([1-9][0-9]{0,8})\\.jsonl");

  private EventLogFiles() {}

  /** The name of the run's {@code number}th most recent part ({@code events.N.jsonl}), from 1. */
  public static String part(int number) {
    return "events." + positive(number) + ".jsonl";
  }

  /** The name of the previous run's {@code number}th most recent part, from 1. */
  public static String previousPart(int number) {
    return "events.previous." + positive(number) + ".jsonl";
  }

  /** The number of the part named {@code name}, or 0 when it names none. */
  static int partNumber(String name) {
    return number(PART.matcher(name));
  }

  /** The number of the previous run's part named {@code name}, or 0 when it names none. */
  static int previousPartNumber(String name) {
    return number(PREVIOUS_PART.matcher(name));
  }

  /**
   * The files of the running (or last) run's log in {@code home} as they stand now, oldest first:
   * its parts from the highest number down, then {@value #LIVE} when present. A rotation while the
   * caller reads them may move a file it has not opened yet one number up: a reader that must see
   * every line reads them once the run has stopped, or checks the lines' {@code n}.
   *
   * @throws IOException when the home cannot be listed
   */
  public static List<Path> run(Path home) throws IOException {
    return files(home, PART, LIVE);
  }

  /** The files of the previous run's log in {@code home}, oldest first, as {@link #run}. */
  public static List<Path> previousRun(Path home) throws IOException {
    return files(home, PREVIOUS_PART, PREVIOUS);
  }

  private static List<Path> files(Path home, Pattern parts, String last) throws IOException {
    Map<Integer, Path> found = new TreeMap<>(Comparator.reverseOrder());
    try (DirectoryStream<Path> entries = Files.newDirectoryStream(home)) {
      for (Path entry : entries) {
        int number = number(parts.matcher(entry.getFileName().toString()));
        if (number > 0 && Files.isRegularFile(entry, LinkOption.NOFOLLOW_LINKS)) {
          found.put(number, entry);
        }
      }
    } catch (NoSuchFileException e) {
      return List.of();
    }
    List<Path> files = new ArrayList<>(found.values());
    Path live = home.resolve(last);
    if (Files.isRegularFile(live, LinkOption.NOFOLLOW_LINKS)) {
      files.add(live);
    }
    return files;
  }

  private static int number(Matcher matcher) {
    return matcher.matches() ? Integer.parseInt(matcher.group(1)) : 0;
  }

  private static int positive(int number) {
    if (number < 1) {
      throw new IllegalArgumentException("parts are numbered from 1, not " + number);
    }
    return number;
  }
}
