package dev.cryo.worker;

/**
 * What a call is, which decides the clocks it stamps up the chain page → connection → user.
 *
 * <ul>
 *   <li>{@link #PING}: a technical contact (a beat, a keep-alive); stamps {@code last_refresh_ts}
 *       only, never runs the application, never wakes nor creates anybody.
 *   <li>{@link #RPC}: a real call made by the page's code (a poll, a timer); stamps
 *       {@code last_refresh_ts} and {@code last_rpc_ts}.
 *   <li>{@link #USER_EVENT}: a real call caused by a human (a click, a key); stamps all three clocks,
 *       {@code last_user_ts} included.
 * </ul>
 */
public enum CallKind {
  /** A technical contact: stamps {@code last_refresh_ts} only. */
  PING,
  /** A real call: stamps {@code last_refresh_ts} and {@code last_rpc_ts}. */
  RPC,
  /** A human event: stamps {@code last_refresh_ts}, {@code last_rpc_ts} and {@code last_user_ts}. */
  USER_EVENT
}
