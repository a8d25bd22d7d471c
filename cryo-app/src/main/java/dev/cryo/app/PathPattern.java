package dev.cryo.app;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * A route's path: literal segments and {@code {name}} parameters, each one whole segment
 * ({@code /items/{id}/notes}). Matches a path segment by segment, parameters decoded. Immutable.
 */
final class PathPattern {

  private static final Pattern PARAMETER = Pattern.compile("\\{([A-Za-z][A-Za-z0-9_]*)}");

  private final String text;
  private final List<String> segments; // a literal, or null for a parameter
  private final List<String> names;    // the parameter's name, or null for a literal

  private PathPattern(String text, List<String> segments, List<String> names) {
    this.text = text;
    this.segments = segments;
    this.names = names;
  }

  /**
   * Parses a pattern.
   *
   * @throws IllegalArgumentException for a pattern not starting with {@code /}, a malformed or
   *     repeated parameter, or a path under {@code /_cryo/} (the runtime's own)
   */
  static PathPattern parse(String text) {
    if (text == null || !text.startsWith("/")) {
      throw new IllegalArgumentException("a route's path starts with '/', got '" + text + "'");
    }
    if (text.equals("/_cryo") || text.startsWith("/_cryo/")) {
      throw new IllegalArgumentException("paths under /_cryo/ are the runtime's; route '" + text
          + "' was not declared: choose another path");
    }
    List<String> segments = new ArrayList<>();
    List<String> names = new ArrayList<>();
    for (String segment : split(text)) {
      var matcher = PARAMETER.matcher(segment);
      if (matcher.matches()) {
        String name = matcher.group(1);
        if (names.contains(name)) {
          throw new IllegalArgumentException("route '" + text + "' names parameter {" + name
              + "} twice");
        }
        segments.add(null);
        names.add(name);
      } else if (segment.indexOf('{') >= 0 || segment.indexOf('}') >= 0) {
        throw new IllegalArgumentException("route '" + text + "' has a malformed segment '"
            + segment + "': a parameter is a whole segment such as {id}");
      } else {
        segments.add(segment);
        names.add(null);
      }
    }
    return new PathPattern(text, Collections.unmodifiableList(segments),
        Collections.unmodifiableList(names));
  }

  private static List<String> split(String path) {
    List<String> out = new ArrayList<>();
    for (String segment : path.substring(1).split("/", -1)) {
      out.add(segment);
    }
    if (out.size() == 1 && out.get(0).isEmpty()) {
      return List.of(); // "/"
    }
    return out;
  }

  /** The parameters of {@code path} when it matches, else null. */
  Map<String, String> match(String path) {
    if (!path.startsWith("/")) {
      return null;
    }
    List<String> parts = split(path);
    if (parts.size() != segments.size()) {
      return null;
    }
    Map<String, String> parameters = new LinkedHashMap<>();
    for (int i = 0; i < parts.size(); i++) {
      String literal = segments.get(i);
      if (literal == null) {
        if (parts.get(i).isEmpty()) {
          return null;
        }
        parameters.put(names.get(i), decode(parts.get(i)));
      } else if (!literal.equals(parts.get(i))) {
        return null;
      }
    }
    return parameters;
  }

  /** Whether the pattern has no parameter. */
  boolean isLiteral() {
    return !names.stream().anyMatch(name -> name != null);
  }

  /** How many literal segments: the more, the more specific. */
  int literalCount() {
    return (int) segments.stream().filter(segment -> segment != null).count();
  }

  /** Whether the pattern names {@code name}. */
  boolean names(String name) {
    return names.contains(name);
  }

  /** The same shape: equal literals, parameters in the same places (whatever their names). */
  boolean sameShape(PathPattern other) {
    return segments.equals(other.segments);
  }

  private static String decode(String segment) {
    try {
      return URLDecoder.decode(segment.replace("+", "%2B"), StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      return segment;
    }
  }

  @Override
  public String toString() {
    return text;
  }
}
