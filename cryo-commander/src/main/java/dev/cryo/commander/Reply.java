package dev.cryo.commander;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The answer to one {@link Request}: the worker's reply, or the commander's own (503 with
 * {@code Retry-After}, 502, 500). Immutable (the body array must not be changed).
 *
 * @param status the HTTP status
 * @param headers the headers, in order
 * @param body the body
 */
public record Reply(int status, List<Map.Entry<String, String>> headers, byte[] body) {

  /** Checks the parts. */
  public Reply {
    headers = headers == null ? List.of() : List.copyOf(headers);
    body = body == null ? new byte[0] : body;
  }

  /**
   * The header that marks a reply of the commander's own (a 503, 502, 504, 500 written by the
   * run, not by the application): its text is for the operator and may name workers or the
   * freezer, so the front shows a client a sentence of its own instead, and never this header.
   */
  public static final String RUNTIME_HEADER = "Cryo-Runtime-Reply";

  /** Whether this is a reply of the commander's own ({@link #RUNTIME_HEADER}). */
  public boolean runtimeReply() {
    return header(RUNTIME_HEADER) != null;
  }

  /**
   * The header of {@link #forgotten}: the request's connection, read from its cookie, is no longer
   * one the run knows. Between the commander and the front only; never sent to a client.
   */
  public static final String FORGOTTEN_HEADER = "Cryo-Connection-Forgotten";

  /**
   * The reply to a request whose connection came from a cookie and was forgotten before it was
   * routed (its user was lost meanwhile): nothing was served. The front mints a new connection and
   * serves the request again on it, so that no user is ever made on an id a client brought.
   */
  public static Reply forgotten(String connection) {
    return text(503, "connection '" + connection + "' was forgotten before its request was"
        + " routed (its user was lost); nothing was served", Map.entry(FORGOTTEN_HEADER, "1"),
        Map.entry("Retry-After", "0"));
  }

  /**
   * The header a worker's reply carries when its call rotated the connection's cookie
   * ({@link dev.cryo.wire.protocol.HttpCall#ROTATED_HEADER}): {@link #ROTATED_LOGIN} or
   * {@link #ROTATED_ENDED}. Between the runtime and the front only; never sent to a client.
   */
  public static final String ROTATED_HEADER = dev.cryo.wire.protocol.HttpCall.ROTATED_HEADER;

  /** A login rotated the cookie to the request's successor. */
  public static final String ROTATED_LOGIN = dev.cryo.wire.protocol.HttpCall.ROTATED_LOGIN;

  /** A logout or a forget ended the connection: its cookie is dead. */
  public static final String ROTATED_ENDED = dev.cryo.wire.protocol.HttpCall.ROTATED_ENDED;

  /** Whether this is a {@link #forgotten} reply. */
  public boolean forgottenConnection() {
    return header(FORGOTTEN_HEADER) != null;
  }

  /** A 503 with {@code Retry-After: seconds}, its body the sentence {@code why}. */
  static Reply unavailable(long seconds, String why) {
    return text(503, why, Map.entry("Retry-After", Long.toString(seconds)));
  }

  /** A plain-text reply of the commander's own. */
  @SafeVarargs
  static Reply text(int status, String body, Map.Entry<String, String>... extra) {
    Objects.requireNonNull(body, "body");
    List<Map.Entry<String, String>> headers = new java.util.ArrayList<>();
    headers.add(Map.entry("Content-Type", "text/plain; charset=utf-8"));
    headers.add(Map.entry(RUNTIME_HEADER, "1"));
    headers.addAll(List.of(extra));
    return new Reply(status, headers, (body + "\n").getBytes(StandardCharsets.UTF_8));
  }

  /** The first value of header {@code name} (case-insensitive), or null. */
  public String header(String name) {
    for (Map.Entry<String, String> header : headers) {
      if (header.getKey().equalsIgnoreCase(name)) {
        return header.getValue();
      }
    }
    return null;
  }

  /** The body as UTF-8 text. */
  public String bodyText() {
    return new String(body, StandardCharsets.UTF_8);
  }
}
