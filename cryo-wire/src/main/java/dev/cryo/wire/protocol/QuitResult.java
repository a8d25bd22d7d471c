package dev.cryo.wire.protocol;

/**
 * A worker's reply to {@code quit}: how many users went into the freezer, expired, failed to
 * leave, or had calls cut. Each frozen user was also announced ({@code user_frozen}) before this
 * reply, which is what the commander's maps follow. The worker exits after sending it.
 *
 * @param frozen users frozen
 * @param dropped users that expired (dropped, nothing written)
 * @param failed users whose departure failed (lost when the worker exits)
 * @param cut users frozen while calls of theirs were still stuck past the grace
 */
public record QuitResult(int frozen, int dropped, int failed, int cut) {}
