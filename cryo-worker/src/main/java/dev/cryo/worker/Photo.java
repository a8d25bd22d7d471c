package dev.cryo.worker;

import java.time.Instant;
import java.util.Map;
import java.util.Set;

/**
 * What a worker tells about itself: who it is, how much memory it uses, and, per user, his state,
 * connections, calls and clocks. Immutable. Each user in it is whole: his entry was read in one
 * step, never in the middle of a wake, a freeze or a login.
 *
 * <p>Its size grows with the users and their connections (about 250 bytes of compact JSON per
 * user with one connection): a worker's users are bounded by the commander's placement, and the
 * photo of 10,000 users stays well under a wire frame (PhotoTest measures it).
 *
 * @param pid the worker's process id
 * @param name the worker's name
 * @param group the worker's group
 * @param state where the worker is in its life
 * @param watermark the announcement watermark when the photo was taken: every announcement up to
 *     it had been delivered, so the photo shows at least their effects
 * @param takenAt when the photo was taken (the worker's clock)
 * @param residentBytes the process's resident memory, or -1 where the system does not say
 * @param heapUsedBytes the Java heap in use
 * @param heapMaxBytes the Java heap's ceiling (-Xmx), or -1 when the JVM has none
 * @param userCount users in the photo
 * @param connectionCount their connections
 * @param pageCount their pages
 * @param pendingCallCount calls in flight
 * @param servedCallCount calls served by the worker since it started
 * @param freezeFailures departures the disk refused since the worker started
 * @param users per user
 * @param ignoredStateFields distinct stored fields the application's state classes no longer have,
 *     ignored on read since the worker started ({@link dev.cryo.app.IgnoredStateFields#count()})
 */
public record Photo(long pid, String name, String group, WorkerState state, long watermark,
    Instant takenAt, long residentBytes, long heapUsedBytes, long heapMaxBytes, int userCount,
    int connectionCount, int pageCount, int pendingCallCount, long servedCallCount,
    long freezeFailures, Map<String, UserPhoto> users, long ignoredStateFields) {

  /** Copies the users. */
  public Photo {
    users = Map.copyOf(users);
  }

  /**
   * One user in a photo.
   *
   * @param state his row's state
   * @param connections his connection ids, each with its page count
   * @param servedCalls calls of his served here since he arrived
   * @param pendingCalls his calls in flight
   * @param lastRefresh the last technical contact with him ({@code last_refresh_ts})
   * @param lastRpc his last real call ({@code last_rpc_ts}), or null
   * @param lastUser his last human event ({@code last_user_ts}), or null
   * @param transferFlag the flag a transfer plan set on him, or null
   * @param generation the generation his stay here was granted
   *     ({@link dev.cryo.wire.protocol.Grant})
   */
  public record UserPhoto(UserState state, Map<String, Integer> connections, long servedCalls,
      int pendingCalls, Instant lastRefresh, Instant lastRpc, Instant lastUser,
      TransferFlag transferFlag, long generation) {

    /** Copies the connections. */
    public UserPhoto {
      connections = Map.copyOf(connections);
    }

    /** His connection ids. */
    public Set<String> connectionIds() {
      return connections.keySet();
    }
  }
}
