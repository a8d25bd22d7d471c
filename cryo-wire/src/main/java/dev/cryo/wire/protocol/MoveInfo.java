package dev.cryo.wire.protocol;

/**
 * What the commander tells a move route's request: where the user was moved from and to, or why
 * he was not moved.
 *
 * @param from the worker he left (or would have left)
 * @param to the worker serving him now, or null when refused
 * @param refused why no move happened, or null when he moved
 */
public record MoveInfo(String from, String to, String refused) {}
