package dev.cryo.app;

import java.util.List;
import java.util.Map;

/** The header lookup {@link Request} and {@link Response} share. */
final class Headers {

  private Headers() {}

  /** The first value of header {@code name} (any case) in {@code headers}, or null. */
  static String first(List<Map.Entry<String, String>> headers, String name) {
    for (Map.Entry<String, String> header : headers) {
      if (header.getKey().equalsIgnoreCase(name)) {
        return header.getValue();
      }
    }
    return null;
  }
}
