package dev.cryo.wire.protocol;

import java.util.List;

/**
 * A worker's reply to an {@link HttpCall}.
 *
 * @param status the HTTP status
 * @param headers the response's headers, each {@code [name, value]}
 * @param body the response's body
 * @param user the connection's owner after the call (a login changes it)
 * @param watermark the sequence of the last announcement the worker sent before this reply
 */
public record HttpResult(int status, List<List<String>> headers, byte[] body, String user,
    long watermark) {

  /** Normalises the optional parts. */
  public HttpResult {
    headers = headers == null ? List.of() : headers;
    body = body == null ? new byte[0] : body;
  }
}
