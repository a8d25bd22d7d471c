package dev.cryo.lock;

import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.OptionalLong;
import java.util.regex.Pattern;

/**
 * Who holds a lock: the content of one lockfile.
 *
 * <p>The file is human-readable, one {@code key value} pair a line, so that {@code cat .lock} tells
 * an operator who holds it:
 *
 * <pre>
 * cryo-lock 1
 * pid 4242
 * start 91325734
 * boot 3c1e0a4e-5f4e-4a5b-9a53-1f7c3e0b1d2a
 * machine 3d1219c7c4c5404aaa1f6d2a48adfda4
 * host build-7
 * holder nightly import
 * token 5f0c2b8e9d7a41c3b6e2f18a0d9c4e77
 * since 2026-11-29T16:31:05.123Z
 * companion 4250 91325790
 * </pre>
 *
 * <p>{@code start} is the process's start time in clock ticks since boot (Linux
 * {@code /proc/PID/stat}, field 22), which together with {@code boot} tells a live holder from a
 * reused pid, on the machine {@code machine} names ({@code /etc/machine-id}; see
 * {@link ProcessTable#machineId}); {@code machine} is left out when unknown, and a record without
 * one (an older writer's) is judged by its host name alone. A reader built before this key existed
 * reads a record that has it as malformed, and reclaims it after the grace period: the processes
 * that share a lock directory must all run a cryo that knows {@code machine}. {@code companion} is optional: a second process (pid and start) whose life also keeps
 * the lock held, used by {@code cryo lock run} for the command it runs; its start is left out when
 * unknown, as {@code start} is. A file holding only a
 * decimal pid (what older lockfiles contain) reads as a record with just a pid.
 *
 * <p>Parsing is strict: an unknown or repeated key, a missing required key, a value out of range,
 * invalid UTF-8 or more than {@link #MAX_BYTES} bytes is a {@link MalformedRecordException}.
 * Instances are immutable and thread-safe.
 *
 * @param pid the holder's process id (positive)
 * @param start the holder's start time in clock ticks since boot, or {@code -1} when unknown
 * @param bootId the boot id of the machine the holder runs on, or {@code null} when unknown
 * @param machineId the identity of the machine the holder runs on (32 lowercase hex digits), or
 *     {@code null} when unknown
 * @param host the holder's host name, or {@code null} when unknown
 * @param holder the holder's free-text name, or {@code null}
 * @param token the random token of this acquisition (32 lowercase hex), or {@code null}
 * @param since when the lock was taken, or {@code null}
 * @param companionPid a second process whose life keeps the lock held, or {@code 0}
 * @param companionStart that process's start in clock ticks since boot, or {@code -1}
 */
public record LockRecord(
    long pid,
    long start,
    String bootId,
    String machineId,
    String host,
    String holder,
    String token,
    Instant since,
    long companionPid,
    long companionStart) {

  /** The largest lockfile, in bytes, that is read as a record. */
  public static final int MAX_BYTES = 4096;

  /** The longest holder name kept, in characters; a longer one is cut. */
  public static final int MAX_HOLDER_LENGTH = 200;

  private static final String MAGIC = "cryo-lock 1";
  private static final Pattern TOKEN = Pattern.compile("[0-9a-f]{32}");
  private static final Pattern MACHINE = TOKEN;
  private static final Pattern WORD = Pattern.compile("[\\x21-\\x7e]{1,255}");
  private static final Pattern DECIMAL = Pattern.compile("[0-9]{1,19}");
  /** Tokens only need to be unique; a DRBG draws them without a system call each. */
  private static final SecureRandom RANDOM = tokenSource();

  /** Validates the components; see the class documentation for their meaning. */
  public LockRecord {
    if (pid <= 0) {
      throw new IllegalArgumentException("pid must be positive: " + pid);
    }
    if (start < -1 || companionStart < -1 || companionPid < 0) {
      throw new IllegalArgumentException("start times are -1 or more, a companion pid 0 or more");
    }
    if (companionPid == 0 && companionStart != -1) {
      throw new IllegalArgumentException("a companion start needs a companion pid");
    }
    if (bootId != null && !WORD.matcher(bootId).matches()) {
      throw new IllegalArgumentException("boot id must be printable ASCII without spaces");
    }
    if (machineId != null && !MACHINE.matcher(machineId).matches()) {
      throw new IllegalArgumentException("machine id must be 32 lowercase hex digits");
    }
    if (host != null && !WORD.matcher(host).matches()) {
      throw new IllegalArgumentException("host must be printable ASCII without spaces");
    }
    if (token != null && !TOKEN.matcher(token).matches()) {
      throw new IllegalArgumentException("token must be 32 lowercase hex digits");
    }
    if (holder != null) {
      holder = sanitize(holder);
    }
  }

  /**
   * A fresh record for the given process, with a new random token and the current time.
   *
   * @param self the process that takes the lock
   * @param holder a free-text holder name; control characters become {@code ?}, and it is cut to
   *     {@link #MAX_HOLDER_LENGTH} characters
   */
  public static LockRecord fresh(ProcessIdentity self, String holder) {
    byte[] random = new byte[16];
    RANDOM.nextBytes(random);
    return new LockRecord(
        self.pid(),
        self.start(),
        self.bootId(),
        self.machineId(),
        self.host(),
        holder,
        HexFormat.of().formatHex(random),
        Instant.now().truncatedTo(ChronoUnit.MILLIS),
        0,
        -1);
  }

  private static SecureRandom tokenSource() {
    try {
      return SecureRandom.getInstance("DRBG");
    } catch (java.security.NoSuchAlgorithmException e) {
      return new SecureRandom();
    }
  }

  /**
   * A record without a machine id, as writers that record none (and this class before it did)
   * make it: the components in their older order.
   */
  public LockRecord(long pid, long start, String bootId, String host, String holder, String token,
      Instant since, long companionPid, long companionStart) {
    this(pid, start, bootId, null, host, holder, token, since, companionPid, companionStart);
  }

  /** This record with a companion process whose life also keeps the lock held. */
  public LockRecord withCompanion(long companionPid, long companionStart) {
    return new LockRecord(
        pid, start, bootId, machineId, host, holder, token, since, companionPid, companionStart);
  }

  /** Whether this record comes from a writer that wrote only a decimal pid. */
  public boolean isBarePid() {
    return token == null && bootId == null && machineId == null && host == null && start == -1;
  }

  /** The holder's start ticks, when recorded. */
  public OptionalLong startTicks() {
    return start < 0 ? OptionalLong.empty() : OptionalLong.of(start);
  }

  /** The file content of this record, in UTF-8. */
  public byte[] toBytes() {
    StringBuilder text = new StringBuilder(256).append(MAGIC).append('\n');
    text.append("pid ").append(pid).append('\n');
    if (start >= 0) {
      text.append("start ").append(start).append('\n');
    }
    appendLine(text, "boot", bootId);
    appendLine(text, "machine", machineId);
    appendLine(text, "host", host);
    appendLine(text, "holder", holder);
    appendLine(text, "token", token);
    if (since != null) {
      text.append("since ").append(since).append('\n');
    }
    if (companionPid > 0) {
      text.append("companion ").append(companionPid);
      if (companionStart >= 0) {
        text.append(' ').append(companionStart);
      }
      text.append('\n');
    }
    return text.toString().getBytes(StandardCharsets.UTF_8);
  }

  /** One line for messages: {@code pid 4242 on build-7 ("nightly import") since 2026-…}. */
  public String describe() {
    StringBuilder text = new StringBuilder("pid ").append(pid);
    if (host != null) {
      text.append(" on ").append(host);
    }
    if (holder != null && !holder.isEmpty()) {
      text.append(" (\"").append(holder).append("\")");
    }
    if (since != null) {
      text.append(" since ").append(since);
    }
    if (companionPid > 0) {
      text.append(", with companion pid ").append(companionPid);
    }
    return text.toString();
  }

  /**
   * Reads a record from the bytes of a lockfile.
   *
   * @throws MalformedRecordException when the bytes are not a record; the message says why
   */
  public static LockRecord parse(byte[] bytes) throws MalformedRecordException {
    if (bytes.length > MAX_BYTES) {
      throw new MalformedRecordException("the record is larger than " + MAX_BYTES + " bytes");
    }
    String text;
    try {
      text = StandardCharsets.UTF_8.newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(java.nio.ByteBuffer.wrap(bytes))
          .toString();
    } catch (CharacterCodingException e) {
      throw new MalformedRecordException("the record is not valid UTF-8");
    }
    String trimmed = text.strip();
    if (trimmed.isEmpty()) {
      throw new MalformedRecordException("the lockfile is empty");
    }
    if (DECIMAL.matcher(trimmed).matches()) {
      return new LockRecord(positive(trimmed, "pid"), -1, null, null, null, null, null, null, 0,
          -1);
    }
    String[] lines = text.split("\n", -1);
    if (!lines[0].equals(MAGIC)) {
      throw new MalformedRecordException("the first line is not '" + MAGIC + "'");
    }
    Map<String, String> fields = new LinkedHashMap<>();
    for (int i = 1; i < lines.length; i++) {
      String line = lines[i];
      if (line.isEmpty() && i == lines.length - 1) {
        break;
      }
      int space = line.indexOf(' ');
      if (space <= 0) {
        throw new MalformedRecordException("line " + (i + 1) + " is not 'key value'");
      }
      String key = line.substring(0, space);
      if (fields.put(key, line.substring(space + 1)) != null) {
        throw new MalformedRecordException("the key '" + key + "' appears twice");
      }
    }
    try {
      return fromFields(fields);
    } catch (IllegalArgumentException | DateTimeParseException e) {
      throw new MalformedRecordException(e.getMessage());
    }
  }

  private static LockRecord fromFields(Map<String, String> fields) throws MalformedRecordException {
    for (String key : fields.keySet()) {
      switch (key) {
        case "pid", "start", "boot", "machine", "host", "holder", "token", "since", "companion"
            -> { }
        default -> throw new MalformedRecordException("unknown key '" + bounded(key) + "'");
      }
    }
    String pid = fields.get("pid");
    if (pid == null) {
      throw new MalformedRecordException("the record has no pid");
    }
    long companionPid = 0;
    long companionStart = -1;
    String companion = fields.get("companion");
    if (companion != null) {
      String[] parts = companion.split(" ", -1);
      if (parts.length != 1 && parts.length != 2) {
        throw new MalformedRecordException("companion must be 'PID START', or 'PID' alone");
      }
      companionPid = positive(parts[0], "companion pid");
      if (parts.length == 2) {
        companionStart = decimal(parts[1], "companion start");
      }
    }
    String start = fields.get("start");
    String since = fields.get("since");
    return new LockRecord(
        positive(pid, "pid"),
        start == null ? -1 : decimal(start, "start"),
        fields.get("boot"),
        fields.get("machine"),
        fields.get("host"),
        fields.get("holder"),
        fields.get("token"),
        since == null ? null : Instant.parse(since),
        companionPid,
        companionStart);
  }

  private static long positive(String text, String what) throws MalformedRecordException {
    long value = decimal(text, what);
    if (value <= 0) {
      throw new MalformedRecordException(what + " must be positive");
    }
    return value;
  }

  private static long decimal(String text, String what) throws MalformedRecordException {
    if (!DECIMAL.matcher(text).matches()) {
      throw new MalformedRecordException(what + " is not a decimal number: '" + bounded(text) + "'");
    }
    try {
      return Long.parseLong(text);
    } catch (NumberFormatException e) {
      throw new MalformedRecordException(what + " is out of range");
    }
  }

  private static void appendLine(StringBuilder text, String key, String value) {
    if (value != null) {
      text.append(key).append(' ').append(value).append('\n');
    }
  }

  static String bounded(String text) {
    return text.length() <= 40 ? text : text.substring(0, 40) + "…";
  }

  /**
   * The holder name as a record keeps it: control characters, line separators and unpaired
   * surrogates (which UTF-8 cannot encode) become {@code ?}, cut to {@link #MAX_HOLDER_LENGTH}
   * code points.
   */
  static String sanitize(String holder) {
    StringBuilder clean = new StringBuilder(Math.min(holder.length(), MAX_HOLDER_LENGTH));
    holder.codePoints().limit(MAX_HOLDER_LENGTH).forEach(point ->
        clean.appendCodePoint(Character.isISOControl(point) || point == 0x2028 || point == 0x2029
            || (point >= Character.MIN_SURROGATE && point <= Character.MAX_SURROGATE)
            ? '?' : point));
    return clean.toString();
  }
}
