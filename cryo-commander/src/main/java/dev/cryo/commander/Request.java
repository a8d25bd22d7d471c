package dev.cryo.commander;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One HTTP request as the front hands it to {@link Commander#serve}. Immutable (the body array is
 * the caller's: it must not change it afterwards).
 *
 * @param connectionId the connection's id from its cookie, or one the front minted for a new
 *     connection (unknown to the maps, so served as anonymous)
 * @param method the HTTP method
 * @param path the decoded path
 * @param query the raw query string, "" for none
 * @param headers the request's headers, in order, names as received
 * @param body the body, empty for none
 * @param fromCookie whether {@code connectionId} came from the client's cookie, known to the maps
 *     when the front read it: when the maps have forgotten it by the time the request is routed
 *     (its user was lost meanwhile), the reply is {@link Reply#forgotten} and the front mints a new
 *     connection, never makes a user on an id a client brought; false for one the front minted
 * @param credential the one-way hash of the secret of a rotated cookie, null for a cookie never
 *     rotated (its connection's id is its hash): the worker serves the request only when it is the
 *     connection's ({@link dev.cryo.wire.protocol.HttpCall#credential()})
 * @param successor the one-way hash of a fresh secret the front holds for this request, or null:
 *     a login or a logout in the request rotates the cookie to it
 *     ({@link dev.cryo.wire.protocol.HttpCall#successor()})
 */
public record Request(String connectionId, String method, String path, String query,
    List<Map.Entry<String, String>> headers, byte[] body, boolean fromCookie, String credential,
    String successor) {

  /** A request whose cookie was never rotated and that can rotate none. */
  public Request(String connectionId, String method, String path, String query,
      List<Map.Entry<String, String>> headers, byte[] body, boolean fromCookie) {
    this(connectionId, method, path, query, headers, body, fromCookie, null, null);
  }

  /** A request on a connection the front minted (or a test's): not {@link #fromCookie}. */
  public Request(String connectionId, String method, String path, String query,
      List<Map.Entry<String, String>> headers, byte[] body) {
    this(connectionId, method, path, query, headers, body, false);
  }

  /** Checks the parts and normalises the optional ones. */
  public Request {
    Objects.requireNonNull(connectionId, "connectionId");
    Objects.requireNonNull(method, "method");
    Objects.requireNonNull(path, "path");
    query = query == null ? "" : query;
    headers = headers == null ? List.of() : List.copyOf(headers);
    body = body == null ? new byte[0] : body;
  }
}
