package dev.cryo.front;

import java.security.SecureRandom;
import java.util.Base64;
import java.util.List;
import java.util.regex.Pattern;
import org.eclipse.jetty.http.HttpCookie;

/**
 * The connection cookie, {@value #NAME}: 128 random bits minted by cryo for a new connection, in
 * base64url without padding (22 characters), {@code HttpOnly}, {@code SameSite=Lax},
 * {@code Path=/}, and {@code Secure} when the front is configured so. Thread-safe.
 */
final class ConnectionCookie {

  /** The cookie's name. */
  static final String NAME = "cryo_connection";

  /** How long a browser keeps the cookie: 30 days, renewed by nothing but a new connection. */
  static final long MAX_AGE_SECONDS = 30L * 24 * 3600;

  private static final Pattern VALUE = Pattern.compile("[A-Za-z0-9_-]{22}");
  private static final SecureRandom RANDOM = new SecureRandom();

  private final boolean secure;

  ConnectionCookie(boolean secure) {
    this.secure = secure;
  }

  /** A new connection id: 128 bits from a {@link SecureRandom}. */
  static String mint() {
    byte[] bits = new byte[16];
    RANDOM.nextBytes(bits);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(bits);
  }

  /**
   * The well-formed connection id the cookies carry, or null: a value of another shape is ignored
   * (it can only be forged), and with several cookies of the name the request is anonymous.
   */
  static String read(List<HttpCookie> cookies) {
    String found = null;
    for (HttpCookie cookie : cookies) {
      if (!NAME.equals(cookie.getName())) {
        continue;
      }
      if (found != null || !VALUE.matcher(cookie.getValue()).matches()) {
        return null;
      }
      found = cookie.getValue();
    }
    return found;
  }

  /** The {@code Set-Cookie} value that gives the browser {@code connectionId}. */
  String setCookie(String connectionId) {
    return NAME + "=" + connectionId + "; Path=/; Max-Age=" + MAX_AGE_SECONDS
        + "; HttpOnly; SameSite=Lax" + (secure ? "; Secure" : "");
  }

  /**
   * A {@code Cookie} header's value without this cookie, so the application never sees the
   * connection's credential; null when nothing is left.
   */
  static String strip(String cookieHeader) {
    StringBuilder kept = new StringBuilder();
    for (String part : cookieHeader.split(";")) {
      String trimmed = part.trim();
      if (trimmed.isEmpty() || trimmed.startsWith(NAME + "=")) {
        continue;
      }
      if (!kept.isEmpty()) {
        kept.append("; ");
      }
      kept.append(trimmed);
    }
    return kept.isEmpty() ? null : kept.toString();
  }
}
