package dev.cryo.worker;

import java.time.Instant;

/**
 * What a worker's quit did, reported once it has finished.
 *
 * @param frozen users that left by the freezer
 * @param dropped users that expired
 * @param failed departures that failed (counted, the user was left as he was until the end)
 * @param cut users frozen while calls of theirs were still stuck past the grace period
 * @param finishedAt when the worker finished
 */
public record QuitReport(int frozen, int dropped, int failed, int cut, Instant finishedAt) {}
