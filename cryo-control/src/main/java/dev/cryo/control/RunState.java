package dev.cryo.control;

import dev.cryo.control.ControlException.Reason;
import java.security.SecureRandom;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One run of the server, as {@code run.json} records it (schema {@code cryo.run/1}): its invocation
 * id (32 lowercase hex digits, random per run), its pid, when it started and, once it is over, when
 * it ended. Only the holder of the run's lock writes it, by replacing it whole; everybody reads it
 * strictly ({@link #parse}). Immutable.
 *
 * @param invocationId the run's invocation id
 * @param pid the server's process id
 * @param startedAt when the run started
 * @param endedAt when the run ended, {@code null} while it runs
 */
public record RunState(String invocationId, long pid, OffsetDateTime startedAt,
    OffsetDateTime endedAt) {

  /** The schema this class reads and writes. */
  public static final String SCHEMA = "cryo.run/1";
  /** The file name in the run directory. */
  public static final String FILE_NAME = "run.json";
  /** The most bytes a {@code run.json} may hold. */
  public static final int MAX_BYTES = 4096;

  private static final SecureRandom RANDOM = new SecureRandom();
  private static final List<String> FIELDS = List.of("schema", "invocation_id", "pid",
      "started_at");

  /** Checks the fields. */
  public RunState {
    Objects.requireNonNull(invocationId, "invocationId");
    Objects.requireNonNull(startedAt, "startedAt");
    if (!StrictJson.INVOCATION_ID.matcher(invocationId).matches()) {
      throw new IllegalArgumentException("not an invocation id: " + invocationId);
    }
    if (pid <= 0) {
      throw new IllegalArgumentException("pid must be positive, got " + pid);
    }
  }

  /** A fresh run of this process, started now, with a new random invocation id. */
  public static RunState begin() {
    return new RunState(newInvocationId(), ProcessHandle.current().pid(), now(), null);
  }

  /** A new random invocation id: 32 lowercase hex digits (128 random bits). */
  public static String newInvocationId() {
    byte[] bytes = new byte[16];
    RANDOM.nextBytes(bytes);
    return HexFormat.of().formatHex(bytes);
  }

  /** This run, ended at {@code when}. */
  public RunState endedAt(OffsetDateTime when) {
    return new RunState(invocationId, pid, startedAt, Objects.requireNonNull(when));
  }

  /** Whether the run has ended. */
  public boolean hasEnded() {
    return endedAt != null;
  }

  /** The JSON document, as written to {@code run.json}. */
  public byte[] toJson() {
    Map<String, Object> fields = new LinkedHashMap<>();
    fields.put("schema", SCHEMA);
    fields.put("invocation_id", invocationId);
    fields.put("pid", pid);
    fields.put("started_at", startedAt.format(DateTimeFormatter.ISO_OFFSET_DATE_TIME));
    if (endedAt != null) {
      fields.put("ended_at", endedAt.format(DateTimeFormatter.ISO_OFFSET_DATE_TIME));
    }
    return StrictJson.write(fields);
  }

  /**
   * Parses a {@code run.json} strictly.
   *
   * @param where the file, for the message
   * @throws ControlException {@code MALFORMED_RUN_STATE} saying why it does not load
   */
  public static RunState parse(byte[] bytes, String where) throws ControlException {
    try {
      var object = StrictJson.object(bytes, FIELDS, List.of("ended_at"));
      StrictJson.schema(object, SCHEMA);
      return new RunState(StrictJson.invocationId(object, "invocation_id"),
          StrictJson.positive(object, "pid"), StrictJson.timestamp(object, "started_at"),
          object.has("ended_at") ? StrictJson.timestamp(object, "ended_at") : null);
    } catch (StrictJson.Malformed e) {
      throw new ControlException(Reason.MALFORMED_RUN_STATE, where + " does not load: it "
          + e.getMessage() + "; nothing was changed: only the server writes it, stop it and"
          + " remove the file if no server runs");
    }
  }

  static OffsetDateTime now() {
    return OffsetDateTime.now(ZoneOffset.UTC).truncatedTo(ChronoUnit.MILLIS);
  }
}
