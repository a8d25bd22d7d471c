package dev.cryo.commander;

import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * What a rolling reload did ({@link Commander#reload}): each worker replaced, in order, by a new one
 * started first (with the application path of the reload), and the users lost on the way. When it
 * was refused or stopped early, the workers not yet replaced run on as they were. Immutable.
 *
 * @param refusal why it did not run, or stopped early; null when every worker was replaced
 * @param replaced the replacements done, in order: {@code "OLD -> NEW"}
 * @param frozen the users the old workers froze (each wakes on his next request)
 * @param lost the users lost (their departure failed), sorted
 * @param appPath the application path the workers now run, or null for the classpath
 * @param millis how long it took
 * @param message what happened, for a person
 */
public record ReloadOutcome(Refusal refusal, List<String> replaced, int frozen, List<String> lost,
    String appPath, long millis, String message) {

  /** Why a reload did not run, or stopped before every worker was replaced. */
  public enum Refusal {
    /** Another change of workers (a reload, a replacement, a shrink, a quit) is running; nothing
     * was changed. */
    BUSY,
    /** The application path is not a readable file; nothing was changed. */
    BAD_APP_PATH,
    /**
     * The application's configuration file does not read (missing, not a properties file, too
     * large); nothing was changed.
     */
    BAD_APP_CONFIG,
    /** A new worker did not start: the old one it was to replace runs on, as do those after it. */
    START_FAILED,
    /** The quit of an old worker failed or was refused; the reload stopped there. */
    QUIT_FAILED,
    /**
     * A drain began (or was asked) before this worker: the reload stopped there, and the workers
     * not replaced are drained with the others.
     */
    DRAINING,
    /**
     * The new version cannot read what is stored: users (awake or frozen) have state written by a
     * newer state version. Its first worker was started to learn its version and quit again;
     * nothing was replaced and the workers run on with the current version.
     */
    UNREADABLE_STATE,
    /** The commander is starting, closing or closed. */
    CLOSED;

    /** The refusal in {@code snake_case}. */
    public String code() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /** Checks the parts. */
  public ReloadOutcome {
    Objects.requireNonNull(message, "message");
    replaced = List.copyOf(replaced);
    lost = List.copyOf(lost);
  }

  /** Whether every worker was replaced. */
  public boolean done() {
    return refusal == null;
  }
}
