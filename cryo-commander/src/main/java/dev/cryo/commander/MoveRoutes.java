package dev.cryo.commander;

import java.util.List;

/**
 * Matches a request against an application's move routes, each {@code [METHOD, PATH]}. A route's
 * path matches segment by segment: a literal segment matches itself, {@code {name}} or {@code *}
 * matches any one segment that is not empty, and a last segment {@code **} matches the rest (one segment or more).
 * The method matches case-insensitively. Stateless.
 */
final class MoveRoutes {

  private MoveRoutes() {
  }

  /** Whether {@code method path} is one of {@code routes}. */
  static boolean matches(List<List<String>> routes, String method, String path) {
    for (List<String> route : routes) {
      if (route.size() >= 2 && route.get(0).equalsIgnoreCase(method)
          && pathMatches(route.get(1), path)) {
        return true;
      }
    }
    return false;
  }

  static boolean pathMatches(String pattern, String path) {
    String[] want = split(pattern);
    String[] got = split(path);
    for (int i = 0; i < want.length; i++) {
      if (want[i].equals("**") && i == want.length - 1) {
        return got.length > i;
      }
      if (i >= got.length) {
        return false;
      }
      boolean wildcard = want[i].equals("*")
          || (want[i].startsWith("{") && want[i].endsWith("}") && want[i].length() > 2);
      if (wildcard ? got[i].isEmpty() : !want[i].equals(got[i])) {
        return false;
      }
    }
    return want.length == got.length;
  }

  private static String[] split(String path) {
    String trimmed = path.startsWith("/") ? path.substring(1) : path;
    if (trimmed.endsWith("/")) {
      trimmed = trimmed.substring(0, trimmed.length() - 1);
    }
    return trimmed.isEmpty() ? new String[0] : trimmed.split("/", -1);
  }
}
