package dev.cryo.wire.protocol;

import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * One HTTP request routed to a worker.
 *
 * @param user the identity the commander resolved, or null for anonymous (the connection's owner,
 *     or its guest for a new connection)
 * @param connection the connection the request comes from (its cookie, checked by the front)
 * @param admit how the commander's grant lets the worker serve the user ({@link Grant}):
 *     {@code live}, {@code birth} or {@code wake}
 * @param generation the grant's generation: the worker serves the user only at it
 * @param parcelGeneration for a wake, the generation the user was frozen at (the oldest parcel the
 *     wake may read); 0 otherwise
 * @param method the HTTP method
 * @param path the path, decoded by the front
 * @param query the raw query string, "" for none
 * @param headers the request's headers, each {@code [name, value]}; among them
 *     {@code cryo-request-id}, the id the front minted for the request (never the client's), which
 *     the application reads as {@code call.requestId()} and the announcements the call causes
 *     carry ({@link AnnouncementMessage#request()})
 * @param body the request's body, empty for none
 * @param move for a move route, what the move did; null otherwise
 * @param socketless true when no page socket was open in the whole run as the commander sent the
 *     call: a push of the call whose target the worker holds reaches no socket, and the worker
 *     answers it without relaying it; null or false: every push is relayed (docs/socket.md, "Push")
 * @param credential the one-way hash of the secret the client's cookie carries for a connection
 *     whose cookie was rotated; null for a cookie that was never rotated (the connection's id is
 *     then its hash). The worker serves the call only when it matches the connection's own
 *     (refused {@code stale_credential} otherwise: a cookie a login or a logout retired)
 * @param successor the one-way hash of a fresh secret the front holds for this call, or null: a
 *     login or a logout in the call makes it the connection's credential, and the reply says so
 *     ({@code Cryo-Connection-Rotated}); the front then gives the client that secret
 */
public record HttpCall(String user, String connection, String admit, long generation,
    long parcelGeneration, String method, String path, String query, List<List<String>> headers,
    byte[] body, MoveInfo move, Boolean socketless, String credential, String successor) {

  /**
   * The header a worker's reply carries when the call rotated its connection's cookie, between the
   * worker, the commander and the front only (the front removes it, and one an application set):
   * {@value #ROTATED_LOGIN} — the connection's credential is the call's {@link #successor()} now;
   * {@value #ROTATED_ENDED} — the connection was ended (a logout, a forget), its cookie is dead.
   */
  public static final String ROTATED_HEADER = "Cryo-Connection-Rotated";

  /** {@link #ROTATED_HEADER}'s value after a login: the successor is the connection's credential. */
  public static final String ROTATED_LOGIN = "login";

  /** {@link #ROTATED_HEADER}'s value after a logout or a forget: the connection is ended. */
  public static final String ROTATED_ENDED = "ended";

  /**
   * The path of the front's own check of a cookie ({@code GET}): the worker answers it 204 once the
   * call's {@link #credential()} is the connection's, without the application, and refuses it as
   * any call otherwise. No client reaches it: the front serves nothing under {@code /_cryo/} to the
   * application, and refuses such a path in a socket's call.
   */
  public static final String CREDENTIAL_PATH = "/_cryo/credential";

  /** A call whose connection's cookie was never rotated and that can rotate none. */
  public HttpCall(String user, String connection, String admit, long generation,
      long parcelGeneration, String method, String path, String query, List<List<String>> headers,
      byte[] body, MoveInfo move, Boolean socketless) {
    this(user, connection, admit, generation, parcelGeneration, method, path, query, headers, body,
        move, socketless, null, null);
  }

  /** A call under {@code grant} carrying the cookie's {@code credential} and a {@code successor}. */
  public HttpCall(String user, String connection, Grant grant, String method, String path,
      String query, List<List<String>> headers, byte[] body, MoveInfo move, Boolean socketless,
      String credential, String successor) {
    this(user, connection, grant.kind().name().toLowerCase(Locale.ROOT), grant.generation(),
        grant.parcelGeneration(), method, path, query, headers, body, move, socketless, credential,
        successor);
  }

  /** Checks the required parts and the grant, and normalises the optional ones. */
  public HttpCall {
    Objects.requireNonNull(connection, "connection");
    grantOf(admit, generation, parcelGeneration); // refuses a grant that does not read
    Objects.requireNonNull(method, "method");
    Objects.requireNonNull(path, "path");
    query = query == null ? "" : query;
    headers = headers == null ? List.of() : headers;
    body = body == null ? new byte[0] : body;
  }

  /** A call under {@code grant}. */
  public HttpCall(String user, String connection, Grant grant, String method, String path,
      String query, List<List<String>> headers, byte[] body, MoveInfo move, Boolean socketless) {
    this(user, connection, grant.kind().name().toLowerCase(Locale.ROOT), grant.generation(),
        grant.parcelGeneration(), method, path, query, headers, body, move, socketless);
  }

  /** A call under {@code grant} whose pushes are all relayed ({@code socketless} null). */
  public HttpCall(String user, String connection, Grant grant, String method, String path,
      String query, List<List<String>> headers, byte[] body, MoveInfo move) {
    this(user, connection, grant, method, path, query, headers, body, move, null);
  }

  /** The commander's grant the call carries. */
  public Grant grant() {
    return grantOf(admit, generation, parcelGeneration);
  }

  private static Grant grantOf(String admit, long generation, long parcelGeneration) {
    Grant.Kind kind = admit == null ? null : switch (admit) {
      case "live" -> Grant.Kind.LIVE;
      case "birth" -> Grant.Kind.BIRTH;
      case "wake" -> Grant.Kind.WAKE;
      default -> null;
    };
    if (kind == null) {
      throw new IllegalArgumentException("a call's 'admit' is live, birth or wake, not "
          + (admit == null ? "missing" : "'" + admit + "'"));
    }
    return new Grant(kind, generation, parcelGeneration);
  }
}
