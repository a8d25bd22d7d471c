package dev.cryo.wire.protocol;

import java.util.Map;

/**
 * A worker's photo as the wire carries it: who it is, its state and memory, and per user his
 * state, connections and clocks. Compact: about a hundred bytes per user.
 *
 * @param pid the worker's process id
 * @param name its name
 * @param group its group
 * @param state {@code running}, {@code quitting} or {@code finished}
 * @param watermark the sequence of the last announcement sent before the photo was taken
 * @param takenAtMillis when it was taken (epoch milliseconds)
 * @param residentBytes resident memory, or -1 where the system does not say
 * @param heapUsedBytes the Java heap in use
 * @param heapMaxBytes the Java heap's ceiling
 * @param userCount users
 * @param connectionCount connections
 * @param pageCount pages
 * @param pendingCallCount calls in flight
 * @param servedCallCount calls served since the worker started
 * @param freezeFailures departures the disk refused since the worker started
 * @param users per user
 */
public record PhotoMessage(long pid, String name, String group, String state, long watermark,
    long takenAtMillis, long residentBytes, long heapUsedBytes, long heapMaxBytes, int userCount,
    int connectionCount, int pageCount, int pendingCallCount, long servedCallCount,
    long freezeFailures, Map<String, UserEntry> users) {

  /** The worker serves. */
  public static final String RUNNING = "running";
  /** The worker is quitting into the freezer. */
  public static final String QUITTING = "quitting";
  /** The worker has quit. */
  public static final String FINISHED = "finished";

  /** Copies the users. */
  public PhotoMessage {
    users = users == null ? Map.of() : Map.copyOf(users);
  }

  /**
   * One user in a photo.
   *
   * @param state his row's state ({@code active}, {@code unfreezing}, ...)
   * @param connections his connection ids, each with its page count
   * @param pendingCalls his calls in flight
   * @param lastRpcMillis his last real call (epoch milliseconds), or 0
   * @param lastUserMillis his last human event (epoch milliseconds), or 0
   * @param transferFlag the flag a transfer plan set on him, or null
   * @param generation the generation his stay on the worker was granted ({@link Grant}); 0 when
   *     the worker is alone or older
   */
  public record UserEntry(String state, Map<String, Integer> connections, int pendingCalls,
      long lastRpcMillis, long lastUserMillis, String transferFlag, long generation) {

    /** Copies the connections. */
    public UserEntry {
      connections = connections == null ? Map.of() : Map.copyOf(connections);
    }
  }
}
