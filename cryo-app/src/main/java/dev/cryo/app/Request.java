package dev.cryo.app;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * One HTTP request as the application sees it: method, path, raw query, headers and body.
 * Immutable and thread-safe; {@link #body()} returns a copy.
 */
public final class Request {

  private final String method;
  private final String path;
  private final String query;
  private final List<Map.Entry<String, String>> headers;
  private final byte[] body;

  private Request(String method, String path, String query,
      List<Map.Entry<String, String>> headers, byte[] body) {
    this.method = Objects.requireNonNull(method, "method").toUpperCase(Locale.ROOT);
    this.path = Objects.requireNonNull(path, "path");
    this.query = query == null ? "" : query;
    List<Map.Entry<String, String>> copy = new ArrayList<>();
    for (Map.Entry<String, String> header : headers == null
        ? List.<Map.Entry<String, String>>of() : headers) {
      copy.add(Map.entry(header.getKey(), header.getValue()));
    }
    this.headers = List.copyOf(copy);
    this.body = body == null ? new byte[0] : body.clone();
  }

  /**
   * A request.
   *
   * @param method the method, any case ({@code GET}, {@code POST}, …)
   * @param path the path, starting with {@code /}, not decoded
   * @param query the raw query after {@code ?}, or null / empty for none
   * @param headers the headers in arrival order (names as sent), or null for none
   * @param body the body, or null for none
   */
  public static Request of(String method, String path, String query,
      List<Map.Entry<String, String>> headers, byte[] body) {
    return new Request(method, path, query, headers, body);
  }

  /** A request without headers, its body JSON-free bytes or none; for tests. */
  public static Request of(String method, String pathAndQuery, byte[] body) {
    int mark = pathAndQuery.indexOf('?');
    return mark < 0 ? of(method, pathAndQuery, "", null, body)
        : of(method, pathAndQuery.substring(0, mark), pathAndQuery.substring(mark + 1), null, body);
  }

  /** The method, upper case. */
  public String method() {
    return method;
  }

  /** The path, as sent (not decoded). */
  public String path() {
    return path;
  }

  /** The raw query, without {@code ?}; empty when there is none. */
  public String query() {
    return query;
  }

  /** The headers in arrival order, names as sent. */
  public List<Map.Entry<String, String>> headers() {
    return headers;
  }

  /** The first value of header {@code name} (any case), or null. */
  public String header(String name) {
    return Headers.first(headers, name);
  }

  /** A copy of the body; empty when there is none. */
  public byte[] body() {
    return body.clone();
  }

  /** The body's length in bytes. */
  public int bodyLength() {
    return body.length;
  }

  /** The body as UTF-8 text. */
  public String bodyText() {
    return new String(body, StandardCharsets.UTF_8);
  }

  /** The query's parameters, decoded ({@code +} is a space), each name with its values in order. */
  public Map<String, List<String>> queryParameters() {
    Map<String, List<String>> parameters = new LinkedHashMap<>();
    if (query.isEmpty()) {
      return parameters;
    }
    for (String pair : query.split("&")) {
      if (pair.isEmpty()) {
        continue;
      }
      int equals = pair.indexOf('=');
      String name = decode(equals < 0 ? pair : pair.substring(0, equals));
      String value = equals < 0 ? "" : decode(pair.substring(equals + 1));
      parameters.computeIfAbsent(name, key -> new ArrayList<>()).add(value);
    }
    return parameters;
  }

  /** The first value of query parameter {@code name}, decoded, or null. */
  public String queryParameter(String name) {
    List<String> values = queryParameters().get(name);
    return values == null ? null : values.get(0);
  }

  private static String decode(String text) {
    try {
      return URLDecoder.decode(text, StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      return text; // a malformed escape is read as it is
    }
  }

  @Override
  public String toString() {
    return method + " " + path + (query.isEmpty() ? "" : "?" + query) + " (" + body.length
        + " bytes)";
  }
}
