package dev.cryo.app;

import java.util.Collections;
import java.util.Objects;
import java.util.Set;
import java.util.WeakHashMap;

/**
 * For hosts: what every host of an application does around its calls and hooks — one policy for
 * the runtime's application host and for {@link CryoTestKit}, so that the kit cannot pass where the
 * runtime fails. Applications never see it.
 *
 * <ul>
 *   <li><b>Wake once per stay.</b> A stay is one life of a user in one host — from his birth, his
 *       wake or his adoption until he leaves — and the host names it by an object of its own (the
 *       runtime: the user's row; the kit: its user) that does not override {@code equals}: it is
 *       compared by identity, and held weakly.
 *       {@link #welcome} runs {@link CryoApplication#onWake} before the first call of a stay, and
 *       never again in that stay.
 *   <li><b>A failed {@code onWake} answers the call with a 500</b> ({@link #wakeFailed()}); the call
 *       is not served, and the stay is not welcomed: his next call runs {@code onWake} again.
 *   <li><b>A freeze ends the welcome.</b> {@link #freeze} forgets the stay's welcome before it runs
 *       {@link CryoApplication#onFreeze}, so a freeze that fails after the hook — the user staying
 *       where he was — wakes him again on his next call. A failed hook is logged and the freeze goes
 *       on.
 *   <li><b>State this version cannot read answers a 503</b> ({@link #unreadableParcel}): the state
 *       is kept as it was; the reply says so in JSON, once, naming nothing of the application
 *       (the details go to the log), with {@code Retry-After} and the reason in
 *       {@value #REASON_HEADER}.
 * </ul>
 *
 * <p>Thread-safe. The host runs {@link #welcome} and {@link #freeze} in the user's turn, one at a
 * time per user.
 */
public final class HostPolicy {

  /** The header that names the reason of a reply the host made instead of the application. */
  public static final String REASON_HEADER = "Cryo-Reason";

  /** The reason of {@link #unreadableParcel}, as the protocol spells it. */
  public static final String UNREADABLE_PARCEL = "unreadable_parcel";

  /** How long, in seconds, a client is told to wait after {@link #unreadableParcel}. */
  public static final int UNREADABLE_RETRY_AFTER_SECONDS = 60;

  private static final System.Logger LOG = System.getLogger(HostPolicy.class.getName());

  private final Dispatcher dispatcher;
  private final Set<Object> welcomed = Collections.synchronizedSet(
      Collections.newSetFromMap(new WeakHashMap<>()));

  private HostPolicy(Dispatcher dispatcher) {
    this.dispatcher = dispatcher;
  }

  /** The policy of a host serving {@code dispatcher}'s application. */
  public static HostPolicy of(Dispatcher dispatcher) {
    return new HostPolicy(Objects.requireNonNull(dispatcher, "dispatcher"));
  }

  /** The dispatcher of the application served. */
  public Dispatcher dispatcher() {
    return dispatcher;
  }

  /**
   * Before a call of the stay {@code stay}: runs {@link CryoApplication#onWake} once per stay.
   *
   * @param stay the host's object for this stay of the user (compared by identity, held weakly)
   * @param host the user's state, for the hook
   * @return null when the call may be served; else what answers it instead — a 500
   *     ({@link #wakeFailed()}) and the hook's failure, logged — the stay left unwelcomed
   */
  public Dispatcher.Served welcome(Object stay, StateHost host) {
    Objects.requireNonNull(stay, "stay");
    if (welcomed.contains(stay)) {
      return null;
    }
    Throwable failure = dispatcher.wake(host);
    if (failure != null) {
      return new Dispatcher.Served(wakeFailed(), failure);
    }
    welcomed.add(stay);
    return null;
  }

  /** Whether {@code stay} was welcomed ({@link #welcome} ran its hook) and has not frozen since. */
  public boolean isWelcomed(Object stay) {
    return welcomed.contains(stay);
  }

  /**
   * Before the stay {@code stay} leaves by a freeze: forgets its welcome, then runs
   * {@link CryoApplication#onFreeze}. What the hook writes is frozen with him.
   *
   * @return the hook's failure (logged; the freeze goes on), or null
   */
  public Throwable freeze(Object stay, StateHost host, FreezeReason reason) {
    welcomed.remove(Objects.requireNonNull(stay, "stay"));
    return dispatcher.freeze(host, reason);
  }

  /**
   * An error reply a host makes itself: {@code status}, JSON {@code {"error": code, "message":
   * message}} with its keys in that order in every JVM, as the dispatcher's own errors.
   *
   * @param code the machine-readable reason, {@code snake_case}
   * @param message for the person at the other end: what happened, what was kept, what to do
   */
  public static Response error(int status, String code, String message) {
    return Dispatcher.error(status, Objects.requireNonNull(code, "code"),
        Objects.requireNonNull(message, "message"));
  }

  /** The reply to a call whose user's {@link CryoApplication#onWake} failed: a 500, JSON. */
  public static Response wakeFailed() {
    return Dispatcher.error(500, "application_failed", "the application failed to wake this"
        + " user; the failure was logged");
  }

  /**
   * The reply to a call whose user's saved state the running version of the application cannot
   * read: a 503, JSON {@code {"error": "unreadable_parcel", "message": …}}, with
   * {@code Retry-After} and {@value #REASON_HEADER}. The message is for the person at the other
   * end: what happened, that nothing was lost, and what to do, once; it names nothing of the
   * application or the run. {@code why} goes to the log, for the operator.
   *
   * @param why what could not be read, and why: logged, never shown to the client
   */
  public static Response unreadableParcel(String why) {
    LOG.log(System.Logger.Level.INFO, () -> "a call was answered 503 " + UNREADABLE_PARCEL + ": "
        + why);
    return Dispatcher.error(503, UNREADABLE_PARCEL, "your saved state could not be read by the"
        + " version of the application running now; it is kept as it was, nothing was lost: try"
        + " again later")
        .withHeader("Retry-After", Integer.toString(UNREADABLE_RETRY_AFTER_SECONDS))
        .withHeader(REASON_HEADER, UNREADABLE_PARCEL);
  }
}
