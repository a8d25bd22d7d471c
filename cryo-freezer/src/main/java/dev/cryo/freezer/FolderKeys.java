package dev.cryo.freezer;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Objects;

/**
 * The one-way names of the freezer: a user's folder key and a connection's part of a parcel name,
 * each computed forward from an identity. Nothing ever derives an identity back from a name.
 *
 * <p>Every identity has a key, and two different identities never share one. A key is always one
 * valid file name: at most {@link #MAX_KEY_LENGTH} ASCII bytes, never empty, never {@code .} or
 * {@code ..}, never starting with a dot, never containing a separator, NUL or control character.
 *
 * <p>The rule: the letters, digits, {@code -}, {@code _} and {@code ~} stay as they are; every other
 * character is percent-encoded as the upper-case hex of its UTF-8 bytes ({@code %2E} for a dot,
 * {@code %2F} for a slash), and a lone surrogate, which has no UTF-8 form, as {@code %u} and its four
 * hex digits. Upper and lower case stay distinct byte-wise (a case-insensitive file system is not a
 * target). The empty identity is {@code %}, which no other identity produces. When the encoding
 * exceeds {@link #MAX_KEY_LENGTH}, the key is its first {@link #PREFIX_LENGTH} characters, a
 * {@code +} (never produced by the encoding, which turns it into {@code %2B}) and the SHA-256 of the
 * identity's UTF-16 code units in hex: the prefix keeps the key readable, the digest keeps it unique.
 *
 * <p>Pure functions, thread-safe.
 */
public final class FolderKeys {

  /** The longest key, in bytes: a connection parcel's name around it still fits in 255 bytes. */
  public static final int MAX_KEY_LENGTH = 200;

  /** How much of a too-long encoding a digested key keeps in front of its digest. */
  public static final int PREFIX_LENGTH = 120;

  private static final char[] HEX = "0123456789ABCDEF".toCharArray();

  private FolderKeys() {}

  /**
   * The key of {@code identity}: the name of its folder (for a user) or its part of a parcel name
   * (for a connection).
   *
   * @param identity any string, including empty, hostile or ill-formed ones
   * @return a single valid file name of at most {@link #MAX_KEY_LENGTH} ASCII bytes
   */
  public static String key(String identity) {
    Objects.requireNonNull(identity, "identity");
    if (identity.isEmpty()) {
      return "%";
    }
    // The encoding stops one character past the longest key: it never needs more room than that,
    // whatever the identity's length (and length * 3 could overflow).
    StringBuilder out = new StringBuilder((int) Math.min(identity.length() * 3L, MAX_KEY_LENGTH + 12));
    int i = 0;
    while (i < identity.length()) {
      char c = identity.charAt(i);
      if (isKept(c)) {
        out.append(c);
        i++;
        continue;
      }
      int codePoint = identity.codePointAt(i);
      int width = Character.charCount(codePoint);
      if (Character.isSurrogate(c) && width == 1) {
        out.append("%u").append(HEX[c >> 12 & 0xF]).append(HEX[c >> 8 & 0xF])
            .append(HEX[c >> 4 & 0xF]).append(HEX[c & 0xF]);
      } else {
        for (byte b : identity.substring(i, i + width).getBytes(StandardCharsets.UTF_8)) {
          out.append('%').append(HEX[b >> 4 & 0xF]).append(HEX[b & 0xF]);
        }
      }
      i += width;
      if (out.length() > MAX_KEY_LENGTH) {
        break;
      }
    }
    if (out.length() <= MAX_KEY_LENGTH && i >= identity.length()) {
      return out.toString();
    }
    return out.substring(0, PREFIX_LENGTH) + '+' + digest(identity);
  }

  private static boolean isKept(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
        || c == '-' || c == '_' || c == '~';
  }

  /** The SHA-256 of the identity's UTF-16 code units, big-endian, through a small buffer. */
  private static String digest(String identity) {
    MessageDigest sha;
    try {
      sha = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java platform provides SHA-256", e);
    }
    byte[] units = new byte[2 * Math.min(identity.length(), 4096)];
    for (int start = 0; start < identity.length(); start += units.length / 2) {
      int end = Math.min(identity.length(), start + units.length / 2);
      for (int i = start; i < end; i++) {
        char c = identity.charAt(i);
        units[2 * (i - start)] = (byte) (c >> 8);
        units[2 * (i - start) + 1] = (byte) c;
      }
      sha.update(units, 0, 2 * (end - start));
    }
    return HexFormat.of().formatHex(sha.digest());
  }
}
