package dev.cryo.chaos.load;

import java.time.Duration;

/**
 * The shape of the workload.
 *
 * @param users how many virtual users (each his own cookie)
 * @param maxPages each user has 1 to this many pages, one process each
 * @param think the mean pause of a process between two operations
 * @param socketShare the share of users whose calls go over the page socket
 * @param moveShare the share of a process's operations that are moves
 * @param loginsPerSecond logins per second in the whole workload
 * @param raceShare the share of logins that are races: two users into one new identity at once
 * @param timeout how long a request waits for its reply (then its outcome is unknown)
 * @param seed the seed of the workload's choices
 */
public record WorkloadOptions(int users, int maxPages, Duration think, double socketShare,
    double moveShare, double loginsPerSecond, double raceShare, Duration timeout, long seed) {

  /** The defaults: 200 users, 1–3 pages, 100 ms think, a quarter on sockets, 2 % moves. */
  public static WorkloadOptions defaults(long seed) {
    return new WorkloadOptions(200, 3, Duration.ofMillis(100), 0.25, 0.02, 2.0, 0.5,
        Duration.ofSeconds(15), seed);
  }
}
