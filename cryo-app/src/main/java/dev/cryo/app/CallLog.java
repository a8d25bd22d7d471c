package dev.cryo.app;

import java.util.Objects;
import java.util.ResourceBundle;
import java.util.function.Supplier;

/**
 * The logger of one call ({@link Call#log()}): the application's own {@link System.Logger} (named
 * after its class), every message it writes prefixed with the call's user and request id —
 * {@code user=alice request=Qm9vL2Zvb2Jhcm9: the message} — so that a line can be found from the
 * {@code Cryo-Request-Id} a client got, and beside the front's and the event log's lines of the same
 * request. The user is read at each line (a login changes it); once the call has ended the last one
 * read is printed.
 *
 * <p>Thread-safe, as the logger it wraps.
 */
final class CallLog implements System.Logger {

  private final System.Logger logger;
  private final Supplier<String> user;
  private final String requestId;

  CallLog(System.Logger logger, Supplier<String> user, String requestId) {
    this.logger = Objects.requireNonNull(logger, "logger");
    this.user = Objects.requireNonNull(user, "user");
    this.requestId = Objects.requireNonNull(requestId, "requestId");
  }

  /** The prefix of this call's lines. */
  String prefix() {
    return "user=" + user.get() + " request=" + requestId + ": ";
  }

  @Override
  public String getName() {
    return logger.getName();
  }

  @Override
  public boolean isLoggable(Level level) {
    return logger.isLoggable(level);
  }

  @Override
  public void log(Level level, ResourceBundle bundle, String message, Throwable thrown) {
    if (logger.isLoggable(level)) {
      logger.log(level, bundle, prefix() + message, thrown);
    }
  }

  @Override
  public void log(Level level, ResourceBundle bundle, String format, Object... parameters) {
    if (!logger.isLoggable(level)) {
      return;
    }
    if (parameters == null || parameters.length == 0) {
      logger.log(level, bundle, prefix() + format, parameters); // no formatting: as written
      return;
    }
    // Formatted here (java.text.MessageFormat, as System.Logger says), so that the prefix is
    // never read as a format: a user's name may hold a quote or a brace.
    String pattern = format;
    if (bundle != null && format != null && bundle.containsKey(format)) {
      pattern = bundle.getString(format);
    }
    String message;
    try {
      message = java.text.MessageFormat.format(String.valueOf(pattern), parameters);
    } catch (IllegalArgumentException e) {
      message = pattern; // not a format after all: as written
    }
    logger.log(level, (ResourceBundle) null, prefix() + message, (Throwable) null);
  }
}
