package dev.cryo.wire.protocol;

import java.util.Map;

/**
 * A worker's photo as the wire carries it: who it is, its state and memory, and per user his
 * state, connections and clocks. Compact: about a hundred bytes per user.
 *
 * <p>Its size is bounded at any user count: the counts and the memory are always the whole
 * worker's, but the users are one page of them, those whose names sort ({@link String#compareTo})
 * after {@code usersAfter} (excluded) and up to {@code usersThrough} (included), either null for no
 * bound. Every user the worker held in that range when the photo was taken is in {@code users},
 * and no other: a reader may conclude that a user is absent only within the range
 * ({@link #covers}). The worker sizes a page to fit its frame limit; {@link PhotoRequest} asks for
 * the next.
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
 * @param users per user, those of the page's range
 * @param usersAfter the page's range begins after this name (excluded); null: with the first user
 * @param usersThrough the page's range ends with this name (included); null: with the last user,
 *     so the next page asked for is the first again
 * @param ignoredStateFields distinct stored fields the application's state classes no longer have,
 *     ignored on read since the worker started (0 from a worker that does not say)
 * @param appMeters the meters of the application's own, as they read when the photo was taken
 *     (every page carries them all; empty from a worker that does not say)
 */
public record PhotoMessage(long pid, String name, String group, String state, long watermark,
    long takenAtMillis, long residentBytes, long heapUsedBytes, long heapMaxBytes, int userCount,
    int connectionCount, int pageCount, int pendingCallCount, long servedCallCount,
    long freezeFailures, Map<String, UserEntry> users, String usersAfter, String usersThrough,
    long ignoredStateFields, java.util.List<AppMeter> appMeters) {

  /** The worker serves. */
  public static final String RUNNING = "running";
  /** The worker is quitting into the freezer. */
  public static final String QUITTING = "quitting";
  /** The worker has quit. */
  public static final String FINISHED = "finished";

  /** Copies the users and the meters. */
  public PhotoMessage {
    users = users == null ? Map.of() : Map.copyOf(users);
    appMeters = appMeters == null ? java.util.List.of() : java.util.List.copyOf(appMeters);
  }

  /** A page of a photo that carries no meter of the application's. */
  public PhotoMessage(long pid, String name, String group, String state, long watermark,
      long takenAtMillis, long residentBytes, long heapUsedBytes, long heapMaxBytes, int userCount,
      int connectionCount, int pageCount, int pendingCallCount, long servedCallCount,
      long freezeFailures, Map<String, UserEntry> users, String usersAfter, String usersThrough,
      long ignoredStateFields) {
    this(pid, name, group, state, watermark, takenAtMillis, residentBytes, heapUsedBytes,
        heapMaxBytes, userCount, connectionCount, pageCount, pendingCallCount, servedCallCount,
        freezeFailures, users, usersAfter, usersThrough, ignoredStateFields, null);
  }

  /** A page of a photo that does not count ignored state fields (0). */
  public PhotoMessage(long pid, String name, String group, String state, long watermark,
      long takenAtMillis, long residentBytes, long heapUsedBytes, long heapMaxBytes, int userCount,
      int connectionCount, int pageCount, int pendingCallCount, long servedCallCount,
      long freezeFailures, Map<String, UserEntry> users, String usersAfter, String usersThrough) {
    this(pid, name, group, state, watermark, takenAtMillis, residentBytes, heapUsedBytes,
        heapMaxBytes, userCount, connectionCount, pageCount, pendingCallCount, servedCallCount,
        freezeFailures, users, usersAfter, usersThrough, 0);
  }

  /** A photo whose {@code users} are all the worker's: one page from the first to the last. */
  public PhotoMessage(long pid, String name, String group, String state, long watermark,
      long takenAtMillis, long residentBytes, long heapUsedBytes, long heapMaxBytes, int userCount,
      int connectionCount, int pageCount, int pendingCallCount, long servedCallCount,
      long freezeFailures, Map<String, UserEntry> users) {
    this(pid, name, group, state, watermark, takenAtMillis, residentBytes, heapUsedBytes,
        heapMaxBytes, userCount, connectionCount, pageCount, pendingCallCount, servedCallCount,
        freezeFailures, users, null, null, 0);
  }

  /**
   * Whether {@code user}'s name falls in this photo's page: then {@link #users()} tells whether
   * the worker held him; outside it, the photo says nothing of him.
   */
  public boolean covers(String user) {
    return (usersAfter == null || user.compareTo(usersAfter) > 0)
        && (usersThrough == null || user.compareTo(usersThrough) <= 0);
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
