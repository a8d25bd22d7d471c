package dev.cryo.app;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What a handler answers: a status, headers and a body. Immutable and thread-safe; the factories
 * set {@code Content-Type}.
 *
 * <pre>{@code
 * return Response.json(201, Map.of("page", id));
 * return Response.html(page).withHeader("Cache-Control", "no-store");
 * return Response.seeOther("/api/state?page=" + id);
 * }</pre>
 */
public final class Response {

  /** The content type of a JSON body. */
  public static final String JSON = "application/json";

  private final int status;
  private final List<Map.Entry<String, String>> headers;
  private final byte[] body;

  private Response(int status, List<Map.Entry<String, String>> headers, byte[] body) {
    if (status < 100 || status > 599) {
      throw new IllegalArgumentException("an HTTP status is 100 to 599, got " + status);
    }
    this.status = status;
    this.headers = List.copyOf(headers);
    this.body = body;
  }

  /**
   * A response with {@code body} as it is.
   *
   * @param status 100 to 599
   * @param contentType the {@code Content-Type}, or null for none
   * @param body the body (copied), or null for none
   */
  public static Response bytes(int status, String contentType, byte[] body) {
    List<Map.Entry<String, String>> headers = new ArrayList<>();
    if (contentType != null) {
      headers.add(Map.entry("Content-Type", contentType));
    }
    return new Response(status, headers, body == null ? new byte[0] : body.clone());
  }

  /**
   * {@code value} written as JSON by Jackson (nulls kept), status 200.
   *
   * @throws IllegalArgumentException when Jackson cannot write it
   */
  public static Response json(Object value) {
    return json(200, value);
  }

  /** {@code value} written as JSON, with {@code status}; as {@link #json(Object)}. */
  public static Response json(int status, Object value) {
    return new Response(status, List.of(Map.entry("Content-Type", JSON)), Json.write(value));
  }

  /** UTF-8 text, {@code text/plain}. */
  public static Response text(int status, String text) {
    return bytes(status, "text/plain; charset=utf-8", text.getBytes(StandardCharsets.UTF_8));
  }

  /** A UTF-8 HTML page, status 200. */
  public static Response html(String page) {
    return bytes(200, "text/html; charset=utf-8", page.getBytes(StandardCharsets.UTF_8));
  }

  /** A response with no body. */
  public static Response empty(int status) {
    return new Response(status, List.of(), new byte[0]);
  }

  /**
   * {@code 303 See Other} to {@code location}: the client asks for it with a GET (browsers'
   * {@code fetch} and {@code curl -L} follow it).
   */
  public static Response seeOther(String location) {
    return new Response(303, List.of(Map.entry("Location", Objects.requireNonNull(location))),
        new byte[0]);
  }

  /** This response with one more header. */
  public Response withHeader(String name, String value) {
    List<Map.Entry<String, String>> more = new ArrayList<>(headers);
    more.add(Map.entry(Objects.requireNonNull(name), Objects.requireNonNull(value)));
    return new Response(status, more, body);
  }

  /** The status. */
  public int status() {
    return status;
  }

  /** The headers, in order. */
  public List<Map.Entry<String, String>> headers() {
    return headers;
  }

  /** The first value of header {@code name} (any case), or null. */
  public String header(String name) {
    return Headers.first(headers, name);
  }

  /** A copy of the body. */
  public byte[] body() {
    return body.clone();
  }

  /** The body as UTF-8 text. */
  public String bodyText() {
    return new String(body, StandardCharsets.UTF_8);
  }

  @Override
  public String toString() {
    return status + " (" + body.length + " bytes" + (header("Content-Type") == null ? ""
        : ", " + header("Content-Type")) + ")";
  }
}
