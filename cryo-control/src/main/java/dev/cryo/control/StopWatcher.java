package dev.cryo.control;

import java.io.IOException;
import java.util.Objects;
import java.util.Optional;

/**
 * What the server calls on each tick: does a stop request apply to my invocation, and with which
 * mode. Each {@link #tick} first judges what is at {@code stop-request} by the home's rule
 * ({@link RunHome}): a file another user owns, or that its group or others may write, is not acted
 * upon, not cleaned and left where it is ({@link #refusal()} says why). Otherwise it removes a
 * request bound to another invocation (an earlier run's), then reads. Created by
 * {@link RunDirectory#watch}, which cleans as at start. Used by the holder of the run's lock only;
 * not for concurrent use from several threads.
 */
public final class StopWatcher {

  private final RunDirectory directory;
  private final String invocationId;
  private final RunHome home;
  private volatile StopReading last = StopReading.absent();
  private volatile String refusal;

  StopWatcher(RunDirectory directory, String invocationId, RunHome home) {
    this.directory = Objects.requireNonNull(directory);
    this.invocationId = Objects.requireNonNull(invocationId);
    this.home = Objects.requireNonNull(home);
  }

  /** The invocation watched for. */
  public String invocationId() {
    return invocationId;
  }

  /**
   * One tick: the mode to stop in, or empty to run on. A request that does not parse reads as a
   * drain ({@link #lastReading()} tells why); one the home's rule refuses is not read at all.
   *
   * @throws ControlException {@code UNSAFE_PATH} when the run directory's name no longer names a
   *     directory: fail closed
   */
  public Optional<StopMode> tick() throws IOException {
    if (refused()) {
      return Optional.empty();
    }
    directory.removeStaleStopRequests(invocationId, false);
    StopReading reading = directory.readStopRequest();
    // Judged again after the read: a file moved in between the first look (nothing there, which
    // the rule lets pass) and the read would otherwise be acted upon unjudged.
    if (refused()) {
      return Optional.empty();
    }
    last = reading;
    return reading.appliesTo(invocationId) ? reading.mode() : Optional.empty();
  }

  /**
   * Whether the home's rule refuses what is at {@code stop-request} now (another user's, or
   * writable by others): then nothing is read or acted upon, and {@link #refusal} says why.
   */
  private boolean refused() throws IOException {
    try {
      home.require(StopRequest.FILE_NAME, RunHome.Kind.FILE);
    } catch (ControlException e) {
      if (e.reason() == ControlException.Reason.NOT_OWNED
          || e.reason() == ControlException.Reason.WRITABLE_BY_OTHERS) {
        refusal = e.getMessage();
        last = StopReading.absent();
        return true;
      }
      // A link, a FIFO or a directory there is read as what it is: a request that does not
      // parse, which every reader takes as a drain.
    }
    refusal = null;
    return false;
  }

  /**
   * Withdraws the request this run acted upon and could not carry out (a refused drain), so that a
   * new one may be asked: see {@link RunDirectory#withdrawStopRequest}. A file the home's rule
   * refuses is left where it is.
   *
   * @return whether a request was removed
   */
  public boolean withdraw() throws IOException {
    if (refused()) {
      return false;
    }
    last = StopReading.absent();
    return directory.withdrawStopRequest(invocationId);
  }

  /** What the last {@link #tick} read. */
  public StopReading lastReading() {
    return last;
  }

  /**
   * Why the last {@link #tick} did not act on what is at {@code stop-request} (another user's file,
   * or one its group or others may write: left where it is), or empty when it did not refuse.
   */
  public Optional<String> refusal() {
    return Optional.ofNullable(refusal);
  }
}
