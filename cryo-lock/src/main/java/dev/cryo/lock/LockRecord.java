package dev.cryo.lock;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.SecureRandom;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.OptionalLong;

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
  private static final byte[] MAGIC_LINE = (MAGIC + "\n").getBytes(StandardCharsets.US_ASCII);
  private static final int LONGEST_WORD = 255;
  private static final int LONGEST_DECIMAL = 19;

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
    if (bootId != null && !isWord(bootId)) {
      throw new IllegalArgumentException("boot id must be printable ASCII without spaces");
    }
    if (machineId != null && !isHex32(machineId)) {
      throw new IllegalArgumentException("machine id must be 32 lowercase hex digits");
    }
    if (host != null && !isWord(host)) {
      throw new IllegalArgumentException("host must be printable ASCII without spaces");
    }
    if (token != null && !isHex32(token)) {
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
    byte[] random = Tokens.INSTANCE.next();
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

  /**
   * Where the tokens come from: the kernel's random source ({@code /dev/urandom}), read for the
   * bytes of {@code BATCH} tokens at a time (one open and one read per batch), or a DRBG where it
   * cannot be read. Tokens only need to be unique and unguessable, and bytes of one request are as
   * unguessable as bytes of many. Made at the first fresh record (a JVM that only reads records
   * never sets up a generator: the security providers cost many classes at start-up).
   * Thread-safe.
   */
  private static final class Tokens {
    static final Tokens INSTANCE = new Tokens();
    private static final Path KERNEL_SOURCE = Path.of("/dev/urandom");
    private static final int TOKEN_BYTES = 16;
    private static final int BATCH = 64;
    private final byte[] batch = new byte[TOKEN_BYTES * BATCH];
    private int used = batch.length; // guarded by this
    private SecureRandom fallback; // guarded by this; made when the kernel's source fails

    synchronized byte[] next() {
      if (used == batch.length) {
        if (!fromKernel(batch)) {
          if (fallback == null) {
            fallback = drbg();
          }
          fallback.nextBytes(batch);
        }
        used = 0;
      }
      byte[] token = Arrays.copyOfRange(batch, used, used + TOKEN_BYTES);
      Arrays.fill(batch, used, used + TOKEN_BYTES, (byte) 0); // handed out once, kept nowhere
      used += TOKEN_BYTES;
      return token;
    }

    /** Fills {@code into} from the kernel's source; false (whatever was read) when it cannot. */
    private static boolean fromKernel(byte[] into) {
      try (FileChannel source = FileChannel.open(KERNEL_SOURCE, StandardOpenOption.READ)) {
        ByteBuffer buffer = ByteBuffer.wrap(into);
        while (buffer.hasRemaining()) {
          if (source.read(buffer) < 0) {
            return false;
          }
        }
        return true;
      } catch (IOException | RuntimeException e) {
        return false; // not Linux, no /dev, or an interrupt closed the channel: the DRBG then
      }
    }

    private static SecureRandom drbg() {
      try {
        return SecureRandom.getInstance("DRBG");
      } catch (java.security.NoSuchAlgorithmException e) {
        return new SecureRandom();
      }
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
      text.append("since ").append(IsoMillis.format(since)).append('\n');
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
      text.append(" since ").append(IsoMillis.format(since));
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
    LockRecord plain = parsePlain(bytes);
    return plain != null ? plain : parseStrictly(bytes);
  }

  /**
   * The record in {@code bytes} when they are plainly one, as this class writes it: the first line,
   * then {@code key value} lines of printable ASCII, each ending in a newline, every key known and
   * once, every value valid, {@code since} in the record's own shape ({@link IsoMillis}). Anything
   * else, even a record {@link #parseStrictly} accepts, gives {@code null}, and that parser decides
   * and words the refusal: so this one only has to agree with it on what it accepts, never to
   * match its messages. It exists for speed: a contended try reads a record, and the general
   * parser (a decoder, a map, regular expressions, a date-time formatter) was most of its work.
   */
  private static LockRecord parsePlain(byte[] bytes) {
    int length = bytes.length;
    if (length > MAX_BYTES || length <= MAGIC_LINE.length
        || !Arrays.equals(bytes, 0, MAGIC_LINE.length, MAGIC_LINE, 0, MAGIC_LINE.length)) {
      return null;
    }
    String pid = null;
    String start = null;
    String boot = null;
    String machine = null;
    String host = null;
    String holder = null;
    String token = null;
    String since = null;
    String companion = null;
    int at = MAGIC_LINE.length;
    while (at < length) {
      int space = -1;
      int end = at;
      for (; end < length && bytes[end] != '\n'; end++) {
        byte b = bytes[end];
        if (b < 0x20 || b > 0x7e) {
          return null;
        }
        if (b == ' ' && space < 0) {
          space = end;
        }
      }
      if (end == length || space <= at) {
        return null;
      }
      String value = new String(bytes, space + 1, end - space - 1, StandardCharsets.ISO_8859_1);
      String key = new String(bytes, at, space - at, StandardCharsets.ISO_8859_1);
      boolean repeated;
      switch (key) {
        case "pid" -> { repeated = pid != null; pid = value; }
        case "start" -> { repeated = start != null; start = value; }
        case "boot" -> { repeated = boot != null; boot = value; }
        case "machine" -> { repeated = machine != null; machine = value; }
        case "host" -> { repeated = host != null; host = value; }
        case "holder" -> { repeated = holder != null; holder = value; }
        case "token" -> { repeated = token != null; token = value; }
        case "since" -> { repeated = since != null; since = value; }
        case "companion" -> { repeated = companion != null; companion = value; }
        default -> repeated = true;
      }
      if (repeated) {
        return null;
      }
      at = end + 1;
    }
    long pidValue = plainDecimal(pid);
    long startValue = start == null ? -1 : plainDecimal(start);
    long companionPid = 0;
    long companionStart = -1;
    if (companion != null) {
      int space = companion.indexOf(' ');
      companionPid = plainDecimal(space < 0 ? companion : companion.substring(0, space));
      if (space >= 0) {
        companionStart = plainDecimal(companion.substring(space + 1));
      }
      if (companionPid <= 0 || companionStart < -1) {
        return null;
      }
    }
    Instant sinceValue = since == null ? null : IsoMillis.parse(since);
    if (pidValue <= 0 || startValue < -1 || (since != null && sinceValue == null)) {
      return null;
    }
    try {
      return new LockRecord(pidValue, startValue, boot, machine, host, holder, token, sinceValue,
          companionPid, companionStart);
    } catch (IllegalArgumentException e) {
      return null;
    }
  }

  /** A decimal of 1 to 19 ASCII digits that fits a {@code long}; -2 for anything else. */
  private static long plainDecimal(String text) {
    if (text == null || text.isEmpty() || text.length() > LONGEST_DECIMAL) {
      return -2;
    }
    long value = 0;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c < '0' || c > '9') {
        return -2;
      }
      value = value * 10 + (c - '0');
      if (value < 0) {
        return -2; // past Long.MAX_VALUE
      }
    }
    return value;
  }

  /** The general parser: any record, and the reason in words for what is none. */
  static LockRecord parseStrictly(byte[] bytes) throws MalformedRecordException {
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
    if (isDecimal(trimmed)) {
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
    if (!isDecimal(text)) {
      throw new MalformedRecordException(what + " is not a decimal number: '" + bounded(text) + "'");
    }
    try {
      return Long.parseLong(text);
    } catch (NumberFormatException e) {
      throw new MalformedRecordException(what + " is out of range");
    }
  }

  /** {@code [0-9]{1,19}}. */
  private static boolean isDecimal(String text) {
    return isAll(text, LONGEST_DECIMAL, '0', '9', '0', '9');
  }

  /** {@code [\x21-\x7e]{1,255}}: printable ASCII without spaces. */
  private static boolean isWord(String text) {
    return isAll(text, LONGEST_WORD, 0x21, 0x7e, 0x21, 0x7e);
  }

  /** {@code [0-9a-f]{32}}: a token or a machine id. */
  private static boolean isHex32(String text) {
    return text.length() == 32 && isAll(text, 32, '0', '9', 'a', 'f');
  }

  /** Whether {@code text} has 1 to {@code longest} characters, each in one of the two ranges. */
  private static boolean isAll(String text, int longest, int from, int to, int alsoFrom,
      int alsoTo) {
    int length = text.length();
    if (length == 0 || length > longest) {
      return false;
    }
    for (int i = 0; i < length; i++) {
      char c = text.charAt(i);
      if ((c < from || c > to) && (c < alsoFrom || c > alsoTo)) {
        return false;
      }
    }
    return true;
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
    if (holder.length() <= MAX_HOLDER_LENGTH && isAll(holder, MAX_HOLDER_LENGTH, 0x20, 0x7e,
        0x20, 0x7e)) {
      return holder; // printable ASCII within the bound: nothing to change (the common case)
    }
    StringBuilder clean = new StringBuilder(Math.min(holder.length(), MAX_HOLDER_LENGTH));
    holder.codePoints().limit(MAX_HOLDER_LENGTH).forEach(point ->
        clean.appendCodePoint(Character.isISOControl(point) || point == 0x2028 || point == 0x2029
            || (point >= Character.MIN_SURROGATE && point <= Character.MAX_SURROGATE)
            ? '?' : point));
    return clean.toString();
  }
}
