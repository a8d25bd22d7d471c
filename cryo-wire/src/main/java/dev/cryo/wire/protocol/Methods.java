package dev.cryo.wire.protocol;

import java.util.Set;

/** The method names of cryo's runtime on the wire, and which side serves each. */
public final class Methods {

  /** Worker → commander, the worker's first frame: a {@link Presentation}. */
  public static final String PRESENT = "present";
  /** Worker → commander, an event: one {@link AnnouncementMessage}. */
  public static final String ANNOUNCE = "announce";
  /** Worker → commander: where an identity lives ({@link Locate} → {@link Location}). */
  public static final String LOCATE = "locate";
  /**
   * Worker → commander: a push of the application to browser pages ({@link PushMessage} →
   * {@link PushResult}), written to the front's sockets.
   */
  public static final String PUSH = "push";

  /** Commander → worker: one HTTP request ({@link HttpCall} → {@link HttpResult}). */
  public static final String HTTP = "http";
  /**
   * Commander → worker: one request for a static file of the application, served without a user
   * ({@link StaticCall} → {@link HttpResult}).
   */
  public static final String STATIC = "static";
  /** Commander → worker: the heartbeat ({@link PhotoRequest} → {@link PhotoMessage}, one page). */
  public static final String PING = "ping";
  /** Commander → worker: freeze one user ({@link UserOrder} → {@link FreezeResult}). */
  public static final String FREEZE_USER = "freeze_user";
  /** Commander → worker: drop one user ({@link UserOrder} → {@link Dropped}). */
  public static final String DROP_USER = "drop_user";
  /** Commander → worker: drop one connection ({@link ConnectionOrder} → {@link Dropped}). */
  public static final String DROP_CONNECTION = "drop_connection";
  /** Commander → worker: quit into the freezer ({@code {}} → {@link QuitResult}), then exit. */
  public static final String QUIT = "quit";

  /** The calls a commander serves. */
  public static final Set<String> COMMANDER_CALLS = Set.of(PRESENT, LOCATE, PUSH);
  /** The events a commander accepts. */
  public static final Set<String> COMMANDER_EVENTS = Set.of(ANNOUNCE);
  /** The calls a worker serves. */
  public static final Set<String> WORKER_CALLS =
      Set.of(HTTP, STATIC, PING, FREEZE_USER, DROP_USER, DROP_CONNECTION, QUIT);
  /** The events a worker accepts (none yet). */
  public static final Set<String> WORKER_EVENTS = Set.of();

  private Methods() {}
}
