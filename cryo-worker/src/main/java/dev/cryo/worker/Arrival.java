package dev.cryo.worker;

import dev.cryo.wire.protocol.Grant;
import dev.cryo.wire.protocol.HttpCall;
import java.util.Map;
import java.util.Objects;

/**
 * How one call is let into the worker ({@link Admission}): who it is for, from which connection
 * (and page), under which grant of the commander's, and which clocks it stamps. It is the worker's
 * inside, not an application's: an application sees the {@link dev.cryo.app.Request} its
 * {@link AppHost} makes of the wire's {@link HttpCall}, and every HTTP call arrives as
 * {@link #of(HttpCall)} says.
 *
 * <p>{@code user} is the identity the commander resolved; {@code null} means "anonymous", and the
 * connection's owner is then used (its guest, {@code guest_<connection id>}, for a new connection).
 * {@code grant} is the commander's leave to serve him: the generation the worker must hold him at,
 * and whether the call may create him (a birth) or wake his own parcel (a wake); without a wake
 * grant a user parcel is residue and is never touched, and without a birth or a wake grant nobody is
 * created. {@code pageId}, when not null, is a page of the connection the call is for: it is born
 * with {@code pageFields} when new, and its clocks are stamped too. Immutable and thread-safe.
 *
 * @param user the identity, or null for anonymous
 * @param connectionId the connection (browser, device) the call comes from
 * @param pageId the page the call is for, or null for a call from the connection itself
 * @param grant the commander's leave to serve the user, fenced by his generation
 * @param clocks which clocks the call stamps
 * @param pageFields the fields of the page if this call brings it into being
 */
record Arrival(String user, String connectionId, String pageId, Grant grant, Clocks clocks,
    Map<String, Object> pageFields) {

  /** Which clocks a call stamps up the chain page → connection → user. */
  enum Clocks {
    /** A technical contact (a beat): {@code last_refresh_ts} only; it never opens a request. */
    REFRESH,
    /** A call made by a page's code (a poll, a timer): also {@code last_rpc_ts}. */
    RPC,
    /** A call caused by a human (a click, a key, every HTTP call): also {@code last_user_ts}. */
    USER
  }

  /** Checks the parts and copies the page's fields. */
  Arrival {
    Objects.requireNonNull(connectionId, "connectionId");
    Objects.requireNonNull(grant, "grant");
    Objects.requireNonNull(clocks, "clocks");
    pageFields = pageFields == null ? Map.of() : Map.copyOf(pageFields);
  }

  /**
   * The arrival of an HTTP call: its user, its connection (no page: a call names its pages in its
   * request), its grant, stamping the clocks of a human event.
   */
  static Arrival of(HttpCall call) {
    return new Arrival(call.user(), call.connection(), null, call.grant(), Clocks.USER, Map.of());
  }

  /** Whether the call may wake the user's own parcel: its grant is a wake. */
  boolean wakes() {
    return grant.kind() == Grant.Kind.WAKE;
  }
}
