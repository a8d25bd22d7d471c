package dev.cryo.front;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.regex.Pattern;
import org.eclipse.jetty.http.HttpCookie;

/**
 * The connection cookie, {@value #NAME}: 128 random bits minted by cryo for a new connection, in
 * base64url without padding (22 characters), {@code HttpOnly}, {@code SameSite=Lax},
 * {@code Path=/}, and {@code Secure} when the front is configured so. Thread-safe.
 *
 * <p>The cookie's value is a bearer secret and never leaves the front: the connection's id, which
 * the commander, the workers, the freezer and the application see (a guest is named after it), is
 * {@link #connectionIdOf} the value — the first 128 bits of its SHA-256 — so nothing they show or
 * log can be replayed as somebody's cookie.
 *
 * <p><b>Rotation.</b> A login or a logout retires the cookie the browser had: a login answers with
 * a new value, {@code ID.SECRET} ({@link #rotated}): the connection keeps its id, {@code ID}, and
 * from then on only the new secret reaches it — the worker holding the connection serves a call
 * only when the one-way hash of its secret ({@link #credentialOf}) is the connection's credential,
 * which the login set in the same call. The value the browser had before (and anybody who copied
 * it) reaches a fresh guest. A logout or a forget answers with {@link #clear}.
 */
final class ConnectionCookie {

  /** The cookie's name. */
  static final String NAME = "cryo_connection";

  /** How long a browser keeps the cookie: 30 days, renewed by nothing but a new connection. */
  static final long MAX_AGE_SECONDS = 30L * 24 * 3600;

  private static final Pattern VALUE =
      Pattern.compile("[A-Za-z0-9_-]{22}(\\.[A-Za-z0-9_-]{22})?");
  private static final SecureRandom RANDOM = new SecureRandom();

  private final boolean secure;

  ConnectionCookie(boolean secure) {
    this.secure = secure;
  }

  /** A new cookie value: 128 bits from a {@link SecureRandom}. */
  static String mint() {
    byte[] bits = new byte[16];
    RANDOM.nextBytes(bits);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(bits);
  }

  /**
   * A SHA-256 digest never used, cloned for each id: the provider lookup of
   * {@link MessageDigest#getInstance} costs several times the hash of a cookie.
   */
  private static final MessageDigest SHA_256 = sha256();

  /** The connection id of the cookie value {@code secret}: one way, 128 bits of its SHA-256. */
  static String connectionIdOf(String secret) {
    byte[] digest = fresh().digest(secret.getBytes(StandardCharsets.US_ASCII));
    return Base64.getUrlEncoder().withoutPadding().encodeToString(Arrays.copyOf(digest, 16));
  }

  private static MessageDigest fresh() {
    try {
      return (MessageDigest) SHA_256.clone();
    } catch (CloneNotSupportedException e) {
      return sha256(); // a provider whose digest does not clone: looked up each time
    }
  }

  private static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java runtime has SHA-256", e);
    }
  }

  /**
   * The connection id a well-formed cookie {@code value} names: the hash of a value never rotated,
   * the {@code ID} of a rotated {@code ID.SECRET}.
   */
  static String connectionOf(String value) {
    int dot = value.indexOf('.');
    return dot < 0 ? connectionIdOf(value) : value.substring(0, dot);
  }

  /**
   * The credential a well-formed cookie {@code value} proves: null for a value never rotated (its
   * hash is the connection's id), the hash of the {@code SECRET} of a rotated {@code ID.SECRET}.
   */
  static String credentialOf(String value) {
    int dot = value.indexOf('.');
    return dot < 0 ? null : connectionIdOf(value.substring(dot + 1));
  }

  /** The value of a rotated cookie: connection {@code connectionId}, proven by {@code secret}. */
  static String rotated(String connectionId, String secret) {
    return connectionId + "." + secret;
  }

  /** The {@code Set-Cookie} value that makes the browser drop the cookie (a logout, a forget). */
  String clear() {
    return NAME + "=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax" + (secure ? "; Secure" : "");
  }

  /**
   * The well-formed cookie value the cookies carry, or null: a value of another shape is ignored
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

  /** The {@code Set-Cookie} value that gives the browser the cookie value {@code secret}. */
  String setCookie(String secret) {
    return NAME + "=" + secret + "; Path=/; Max-Age=" + MAX_AGE_SECONDS
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
