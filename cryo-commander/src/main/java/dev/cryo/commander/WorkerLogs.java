package dev.cryo.commander;

import dev.cryo.control.RunHome;
import dev.cryo.control.SafeRoot;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.channels.FileChannel;
import java.nio.file.LinkOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The caps of the workers' logs in their directory of the home ({@code workers/}): each worker's
 * output is appended by its own process to {@code NAME.log} (a redirection the commander does not
 * sit in, so that a worker writes on whatever becomes of the commander), and this class keeps the
 * directory within {@link LogCaps#workerLogsKeep} files and each log within
 * {@link LogCaps#workerLogMaxSize}, from outside:
 * <ul>
 *   <li>{@link #prune} (at each spawn): while the directory holds more than the kept count of
 *       logs ({@code NAME.log} and {@code NAME.log.1}; the spawning worker's counted), the least
 *       recently written of a worker that is not alive is removed. A log of a worker alive is never removed, so the directory
 *       may hold more while that many workers live.
 *   <li>{@link #cut} (each heartbeat): a live worker's log past the size is copied to
 *       {@code NAME.log.1} (replacing the one before) and emptied; the worker's next write lands
 *       at the start of the emptied file (its output is opened for appending). What the worker
 *       writes between the copy's end and the emptying (a few microseconds) is lost, and a log may
 *       pass the size by what the worker writes within one beat.
 * </ul>
 * Every file goes through the home ({@link RunHome}): judged by its rule, never through a link.
 * A failure is logged and left for the next call: it never stops a spawn or a beat. Calls may
 * come from several threads; each is whole under this object's lock.
 */
final class WorkerLogs {

  private static final System.Logger LOG = System.getLogger(WorkerLogs.class.getName());
  private static final String LOG_SUFFIX = ".log";
  private static final String CUT_SUFFIX = ".log.1";

  private final RunHome home;
  private final String directory;
  private final LogCaps caps;

  /** The caps of the logs in {@code directory} of {@code home}. */
  WorkerLogs(RunHome home, String directory, LogCaps caps) {
    this.home = home;
    this.directory = directory;
    this.caps = caps;
  }

  /** The log's name of the worker {@code worker}. */
  static String logName(String worker) {
    return worker + LOG_SUFFIX;
  }

  /** The name of what was cut from the log of {@code worker}. */
  static String cutName(String worker) {
    return worker + CUT_SUFFIX;
  }

  /** The worker whose log (or cut) {@code name} is, or null for another file. */
  static String workerOf(String name) {
    if (name.endsWith(CUT_SUFFIX)) {
      return name.substring(0, name.length() - CUT_SUFFIX.length());
    }
    if (name.endsWith(LOG_SUFFIX)) {
      return name.substring(0, name.length() - LOG_SUFFIX.length());
    }
    return null;
  }

  /**
   * Removes the least recently written logs of workers not in {@code alive} while more than the
   * kept count stand in the directory, counting the log of {@code spawning} (about to be created
   * for a worker being spawned) as standing.
   *
   * @param alive the workers not dead (their logs are kept), {@code spawning} among them
   * @return how many files were removed
   */
  synchronized int prune(Set<String> alive, String spawning) {
    record Entry(String name, FileTime written) {}
    try {
      List<Entry> removable = new ArrayList<>();
      List<String> names = home.names(directory);
      int logs = names.contains(logName(spawning)) ? 0 : 1;
      for (String name : names) {
        String worker = workerOf(name);
        if (worker == null) {
          continue;
        }
        logs++;
        if (!alive.contains(worker)) {
          Optional<SafeRoot.Entry> entry = home.lookup(directory + "/" + name);
          entry.ifPresent(found -> removable.add(new Entry(name, found.lastModified())));
        }
      }
      removable.sort(Comparator.comparing(Entry::written).thenComparing(Entry::name));
      int removed = 0;
      for (Entry entry : removable) {
        if (logs - removed <= caps.workerLogsKeep()) {
          break;
        }
        String relative = directory + "/" + entry.name();
        home.require(relative, RunHome.Kind.FILE);
        if (home.remove(relative)) {
          removed++;
        }
      }
      return removed;
    } catch (IOException | RuntimeException e) {
      LOG.log(Level.WARNING, "the workers' logs in " + home.shown(directory) + " were not pruned ("
          + e.getMessage() + "); they are pruned again at the next spawn");
      return 0;
    }
  }

  /**
   * Cuts each log of a worker in {@code alive} that is past the size: copied to its
   * {@code NAME.log.1}, then emptied.
   *
   * @return the workers whose logs were cut
   */
  synchronized List<String> cut(Collection<String> alive) {
    List<String> cut = new ArrayList<>();
    for (String worker : alive) {
      String name = logName(worker);
      try {
        Optional<SafeRoot.Entry> entry = home.lookup(directory + "/" + name);
        if (entry.isEmpty() || entry.get().size() <= caps.workerLogMaxSize()) {
          continue;
        }
        home.withPrivateFile(directory, name, log -> {
          try (FileChannel source = FileChannel.open(log, StandardOpenOption.READ,
              StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS)) {
            home.withPrivateFile(directory, cutName(worker), kept -> {
              try (FileChannel target = FileChannel.open(kept, StandardOpenOption.WRITE,
                  StandardOpenOption.TRUNCATE_EXISTING, LinkOption.NOFOLLOW_LINKS)) {
                long position = 0;
                long size;
                // what the worker appends meanwhile is copied too, for a few rounds at most
                for (int round = 0; round < 4 && position < (size = source.size()); round++) {
                  while (position < size) {
                    position += source.transferTo(position, size - position, target);
                  }
                }
              }
              return null;
            });
            source.truncate(0);
          }
          return null;
        });
        cut.add(worker);
      } catch (IOException | RuntimeException e) {
        LOG.log(Level.WARNING, "the log of worker " + worker + " in " + home.shown(directory)
            + " was not cut (" + e.getMessage() + "); it keeps growing until the next beat's try");
      }
    }
    return cut;
  }
}
