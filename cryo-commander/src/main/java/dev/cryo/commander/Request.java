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
 */
public record Request(String connectionId, String method, String path, String query,
    List<Map.Entry<String, String>> headers, byte[] body) {

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
