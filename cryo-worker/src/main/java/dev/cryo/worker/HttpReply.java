package dev.cryo.worker;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The reply of an HTTP call served by an {@link AppHost}: what the worker's process entry point
 * sends back on the wire as {@code {status, headers, body}}. Immutable; {@link #body()} is the
 * array itself, not a copy — do not change it.
 *
 * @param status the HTTP status, 100 to 599
 * @param headers the headers in order, each a {@code [name, value]} pair
 * @param body the body, possibly empty
 */
public record HttpReply(int status, List<List<String>> headers, byte[] body) {

  /** Checks the status and copies the headers. */
  public HttpReply {
    if (status < 100 || status > 599) {
      throw new IllegalArgumentException("an HTTP status is 100 to 599, got " + status);
    }
    List<List<String>> copy = new ArrayList<>();
    for (List<String> header : headers) {
      if (header.size() != 2) {
        throw new IllegalArgumentException("a header is a [name, value] pair, got " + header);
      }
      copy.add(List.of(header.get(0), header.get(1)));
    }
    headers = List.copyOf(copy);
    body = Objects.requireNonNull(body, "body");
  }

  /** The first value of header {@code name} (any case), or null. */
  public String header(String name) {
    for (List<String> header : headers) {
      if (header.get(0).equalsIgnoreCase(name)) {
        return header.get(1);
      }
    }
    return null;
  }
}
