package dev.cryo.wire.protocol;

/**
 * A worker's reply to a drop order.
 *
 * @param dropped whether something was dropped (false: it was not here)
 */
public record Dropped(boolean dropped) {}
