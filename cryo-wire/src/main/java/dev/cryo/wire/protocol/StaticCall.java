package dev.cryo.wire.protocol;

import java.util.List;
import java.util.Objects;

/**
 * One request for a static file of the application ({@code routes.staticResources}), routed to
 * any worker that declared its prefix; it belongs to no connection and no user, and the worker
 * serves it without entering anyone's turn. Answered with an {@link HttpResult} whose
 * {@code user} is null.
 *
 * @param method the HTTP method
 * @param path the path, decoded by the front
 * @param query the raw query string, "" for none
 * @param headers the request's headers, each {@code [name, value]}
 */
public record StaticCall(String method, String path, String query,
    List<List<String>> headers) {

  /** Checks the required parts and normalises the optional ones. */
  public StaticCall {
    Objects.requireNonNull(method, "method");
    Objects.requireNonNull(path, "path");
    query = query == null ? "" : query;
    headers = headers == null ? List.of() : headers;
  }
}
