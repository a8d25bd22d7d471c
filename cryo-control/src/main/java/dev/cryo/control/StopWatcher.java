package dev.cryo.control;

import java.io.IOException;
import java.util.Objects;
import java.util.Optional;

/**
 * What the server calls on each tick: does a stop request apply to my invocation, and with which
 * mode. Each {@link #tick} first removes a request bound to another invocation (an earlier run's),
 * then reads. Created by {@link RunDirectory#watch}, which cleans as at start. Used by the holder of
 * the run's lock only; not for concurrent use from several threads.
 */
public final class StopWatcher {

  private final RunDirectory directory;
  private final String invocationId;
  private volatile StopReading last = StopReading.absent();

  StopWatcher(RunDirectory directory, String invocationId) {
    this.directory = Objects.requireNonNull(directory);
    this.invocationId = Objects.requireNonNull(invocationId);
  }

  /** The invocation watched for. */
  public String invocationId() {
    return invocationId;
  }

  /**
   * One tick: the mode to stop in, or empty to run on. A request that does not parse reads as a
   * drain ({@link #lastReading()} tells why).
   *
   * @throws ControlException {@code UNSAFE_PATH} when the run directory's name no longer names a
   *     directory: fail closed
   */
  public Optional<StopMode> tick() throws IOException {
    directory.removeStaleStopRequests(invocationId, false);
    StopReading reading = directory.readStopRequest();
    last = reading;
    return reading.appliesTo(invocationId) ? reading.mode() : Optional.empty();
  }

  /** What the last {@link #tick} read. */
  public StopReading lastReading() {
    return last;
  }
}
