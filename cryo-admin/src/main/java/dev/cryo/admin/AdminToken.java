package dev.cryo.admin;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.Locale;
import java.util.Objects;

/**
 * The admin token ({@code --admin-token}): a shared secret a request proves it knows with
 * {@code Authorization: Bearer TOKEN} (scripts, Prometheus' {@code authorization} setting) or
 * {@code Authorization: Basic} with any user name and the token as the password (a browser asks
 * for it itself and sends it again to the page's live stream). Immutable and thread-safe.
 *
 * <p>A token is {@value #MIN_LENGTH} to {@value #MAX_LENGTH} printable ASCII characters without
 * spaces. The comparison is in constant time: both sides are hashed with SHA-256 and the digests
 * compared with {@link MessageDigest#isEqual}, so neither the length nor a common prefix of a
 * guess shows in the time of the answer.
 */
public final class AdminToken {

  /** The shortest token accepted: 16 characters (about 96 bits when random base64). */
  public static final int MIN_LENGTH = 16;
  /** The longest token accepted. */
  public static final int MAX_LENGTH = 512;

  private final byte[] digest;

  private AdminToken(String token) {
    this.digest = sha256(token);
  }

  /**
   * The token {@code value}.
   *
   * @throws IllegalArgumentException when it is shorter than {@value #MIN_LENGTH} or longer than
   *     {@value #MAX_LENGTH} characters, or holds a character outside printable ASCII
   *     ({@code !} to {@code ~}); the message says which, never the token
   */
  public static AdminToken of(String value) {
    Objects.requireNonNull(value, "value");
    if (value.length() < MIN_LENGTH || value.length() > MAX_LENGTH) {
      throw new IllegalArgumentException("the admin token has " + value.length()
          + " characters; it needs " + MIN_LENGTH + " to " + MAX_LENGTH
          + " (make one with: head -c 24 /dev/urandom | base64)");
    }
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c < '!' || c > '~') {
        throw new IllegalArgumentException("the admin token holds a character that is not"
            + " printable ASCII (at index " + i + "); use letters, digits and punctuation only");
      }
    }
    return new AdminToken(value);
  }

  /**
   * Whether an {@code Authorization} header's value proves the token: {@code Bearer TOKEN}, or
   * {@code Basic} of {@code USER:TOKEN}; null, other schemes and malformed values are false.
   */
  public boolean acceptsAuthorization(String header) {
    if (header == null) {
      return false;
    }
    String value = header.strip();
    int space = value.indexOf(' ');
    if (space < 0) {
      return false;
    }
    String scheme = value.substring(0, space).toLowerCase(Locale.ROOT);
    String credentials = value.substring(space + 1).strip();
    String presented = switch (scheme) {
      case "bearer" -> credentials;
      case "basic" -> basicPassword(credentials);
      default -> null;
    };
    return presented != null && MessageDigest.isEqual(digest, sha256(presented));
  }

  private static String basicPassword(String credentials) {
    try {
      String decoded = new String(Base64.getDecoder().decode(credentials),
          StandardCharsets.UTF_8);
      int colon = decoded.indexOf(':');
      return colon < 0 ? null : decoded.substring(colon + 1);
    } catch (IllegalArgumentException e) {
      return null; // not base64: proves nothing
    }
  }

  private static byte[] sha256(String value) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(value.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java runtime has SHA-256", e);
    }
  }

  /** Never the token itself. */
  @Override
  public String toString() {
    return "AdminToken[hidden]";
  }
}
