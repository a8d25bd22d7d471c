package dev.cryo.worker;

import dev.cryo.app.Response;
import dev.cryo.register.ConnectionRow;
import dev.cryo.wire.protocol.HttpCall;
import dev.cryo.wire.protocol.RefusalReason;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Map;
import java.util.Objects;

/**
 * The credential of a connection whose cookie was rotated (docs/security.md, "The connection
 * cookie"): two plain fields of its row, so that they travel with it in its parcel wherever it goes
 * — the one-way hash of the secret its cookie carries ({@link #CREDENTIAL}) and when the cookie
 * before it was retired ({@link #RETIRED_AT}). Checks a call's cookie against them, and sets and
 * restores them for the call that rotates ({@code AppHost}'s login, logout and forget). Stateless;
 * the caller holds what guards the row (the call's turn).
 */
final class ConnectionCredentials {

  private static final System.Logger LOG =
      System.getLogger(ConnectionCredentials.class.getName());
  private static final SecureRandom RANDOM = new SecureRandom();

  private ConnectionCredentials() {}

  /**
   * The connection row's field holding its credential: the one-way hash of the secret its cookie
   * carries since a login rotated it ({@link HttpCall#credential()}), or, after a logout or a
   * forget, a value no cookie carries. A connection without it was never rotated: its own id is
   * its cookie's hash. A plain field of the row, so it travels with the connection wherever the
   * connection goes — a freeze, a wake, a move, a login tail, a drain — in its parcel.
   */
  static final String CREDENTIAL = "credential";

  /**
   * The connection row's field holding when its cookie was last retired (epoch milliseconds, the
   * worker's clock): a login's rotation, a logout's or a forget's end. Within
   * {@link #RETIRED_COOKIE_GRACE} of it a retired cookie is refused {@link
   * RefusalReason#COOKIE_ROTATED} — nothing served, no cookie set, so the browser keeps the cookie
   * the login gave it — and only after it is it answered as a connection the run does not know.
   */
  static final String RETIRED_AT = "retired_at";

  /**
   * How long a retired cookie is refused rather than answered as a new visitor's: longer than any
   * request sent before the browser took the new cookie can take to reach the worker (a user's
   * hold and a call's timeout), so that none of them gives the browser a guest's cookie in place
   * of the login's. A client still holding the old cookie after it (a reply it never read) starts
   * afresh as a guest.
   */
  static final Duration RETIRED_COOKIE_GRACE = Duration.ofSeconds(60);

  /**
   * What a connection's row holds: its credential (null: never rotated) and when the cookie before
   * it was retired (epoch milliseconds, null: never).
   */
  record Held(Object credential, Object retiredAt) {}

  /**
   * Refuses a call whose cookie does not prove the connection's credential ({@link #CREDENTIAL}):
   * a connection never rotated is reached by the cookie whose hash is its id (no credential), a
   * rotated one only by the cookie of its last rotation — or by the request that rotated it, sent
   * again ({@code successor} is the credential): true then, and its reply must carry the rotation.
   */
  static boolean check(Worker worker, RequestSlot slot, String credential, String successor) {
    ConnectionRow row = worker.registry().connectionItems().get(slot.connectionId()).orElse(null);
    Object held = row == null ? null : row.get(CREDENTIAL);
    if (Objects.equals(held, credential)) {
      return false;
    }
    if (successor != null && successor.equals(held)) {
      // The request whose login rotated the cookie, sent again by the commander (its reply was
      // lost: a worker died, a wire timed out): only the front that minted the successor for it
      // holds its secret, so it proves the connection, and its reply must give that secret.
      return true;
    }
    long retiredAt = row != null && row.get(RETIRED_AT) instanceof Number at ? at.longValue() : 0;
    long since = worker.clock().millis() - retiredAt;
    if (retiredAt > 0 && since < RETIRED_COOKIE_GRACE.toMillis()) {
      throw new WorkerException(RefusalReason.COOKIE_ROTATED, slot.user(), "the cookie of"
          + " connection '" + slot.connectionId() + "' was retired " + Math.max(0, since)
          + " ms ago by a login or a logout on it; nothing was served and no cookie is set: the"
          + " browser's next request carries the cookie the login gave it");
    }
    throw new WorkerException(RefusalReason.STALE_CREDENTIAL, slot.user(), "the cookie of"
        + " connection '" + slot.connectionId() + "' was retired by a login or a logout on it;"
        + " nothing was served: the request is answered as from a connection the run does not"
        + " know");
  }

  /** {@code response} without a rotation header the application may have set: the runtime's own. */
  static Response withoutRotationHeader(Response response) {
    if (response.header(HttpCall.ROTATED_HEADER) == null) {
      return response;
    }
    LOG.log(System.Logger.Level.WARNING, "the application set the runtime's own header "
        + HttpCall.ROTATED_HEADER + "; it was removed from the reply");
    Response kept = Response.bytes(response.status(), null, response.body());
    for (Map.Entry<String, String> header : response.headers()) {
      if (!header.getKey().equalsIgnoreCase(HttpCall.ROTATED_HEADER)) {
        kept = kept.withHeader(header.getKey(), header.getValue());
      }
    }
    return kept;
  }

  /** What the row of {@code connectionId} holds now (nulls when it is not here). */
  static Held held(Worker worker, String connectionId) {
    return worker.registry().connectionItems().get(connectionId)
        .map(row -> new Held(row.get(CREDENTIAL), row.get(RETIRED_AT)))
        .orElse(new Held(null, null));
  }

  /**
   * Sets the row of {@code connectionId} to hold {@code held}.
   *
   * @throws WorkerException {@link RefusalReason#UNKNOWN_CONNECTION} when it is not here
   */
  static void set(Worker worker, String connectionId, Held held) {
    ConnectionRow row = worker.registry().connectionItems().get(connectionId)
        .orElseThrow(() -> worker.unknownConnection(connectionId));
    setOrRemove(row, CREDENTIAL, held.credential());
    setOrRemove(row, RETIRED_AT, held.retiredAt());
  }

  /**
   * Gives the row of {@code connectionId} back {@code before}, if it is still here and still holds
   * {@code rotatedTo} (a rotation no reply will carry); else leaves it as it is.
   */
  static void restore(Worker worker, String connectionId, Object rotatedTo, Held before) {
    ConnectionRow row = worker.registry().connectionItems().get(connectionId).orElse(null);
    if (row != null && before != null && Objects.equals(row.get(CREDENTIAL), rotatedTo)) {
      set(worker, connectionId, before);
    }
  }

  /** A credential no cookie carries: 128 random bits, in another alphabet than a hash's. */
  static String retired() {
    byte[] bits = new byte[16];
    RANDOM.nextBytes(bits);
    return "retired:" + HexFormat.of().formatHex(bits);
  }

  private static void setOrRemove(ConnectionRow row, String field, Object value) {
    if (value == null) {
      row.remove(field);
    } else {
      row.set(field, value);
    }
  }
}
