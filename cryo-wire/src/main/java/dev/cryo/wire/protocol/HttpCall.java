package dev.cryo.wire.protocol;

import java.util.List;
import java.util.Objects;

/**
 * One HTTP request routed to a worker.
 *
 * @param user the identity the commander resolved, or null for anonymous (the connection's owner,
 *     or its guest for a new connection)
 * @param connection the connection the request comes from (its cookie, checked by the front)
 * @param frozen the commander's verdict that the user is in the freezer
 * @param method the HTTP method
 * @param path the path, decoded by the front
 * @param query the raw query string, "" for none
 * @param headers the request's headers, each {@code [name, value]}
 * @param body the request's body, empty for none
 * @param move for a move route, what the move did; null otherwise
 * @param socketless true when no page socket was open in the whole run as the commander sent the
 *     call: a push of the call whose target the worker holds reaches no socket, and the worker
 *     answers it without relaying it; null or false: every push is relayed (docs/socket.md, "Push")
 */
public record HttpCall(String user, String connection, boolean frozen, String method,
    String path, String query, List<List<String>> headers, byte[] body, MoveInfo move,
    Boolean socketless) {

  /** Checks the required parts and normalises the optional ones. */
  public HttpCall {
    Objects.requireNonNull(connection, "connection");
    Objects.requireNonNull(method, "method");
    Objects.requireNonNull(path, "path");
    query = query == null ? "" : query;
    headers = headers == null ? List.of() : headers;
    body = body == null ? new byte[0] : body;
  }

  /** A call whose pushes are all relayed ({@code socketless} null). */
  public HttpCall(String user, String connection, boolean frozen, String method, String path,
      String query, List<List<String>> headers, byte[] body, MoveInfo move) {
    this(user, connection, frozen, method, path, query, headers, body, move, null);
  }
}
