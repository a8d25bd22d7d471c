package dev.cryo.control;

import java.time.OffsetDateTime;
import java.time.format.DateTimeFormatter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A stop request, as {@code stop-request} holds it (schema {@code cryo.stop/1}): exactly the fields
 * {@code schema}, {@code invocation_id} (the run it is for), {@code mode} ({@code drain} or
 * {@code now}) and {@code requested_at} (ISO-8601 with a zone offset). Immutable.
 *
 * @param invocationId the invocation of the server this request is bound to
 * @param mode how that server is to stop
 * @param requestedAt when the stop was requested
 */
public record StopRequest(String invocationId, StopMode mode, OffsetDateTime requestedAt) {

  /** The schema this class reads and writes. */
  public static final String SCHEMA = "cryo.stop/1";
  /** The file name in the run directory, beside {@code run.json}. */
  public static final String FILE_NAME = "stop-request";
  /** A request is a few hundred bytes; anything longer is not one. */
  public static final int MAX_BYTES = 4096;

  private static final List<String> FIELDS =
      List.of("schema", "invocation_id", "mode", "requested_at");

  /** Checks the fields. */
  public StopRequest {
    Objects.requireNonNull(mode, "mode");
    Objects.requireNonNull(requestedAt, "requestedAt");
    if (invocationId == null || !StrictJson.INVOCATION_ID.matcher(invocationId).matches()) {
      throw new IllegalArgumentException("not an invocation id: " + invocationId);
    }
  }

  /** The JSON document, as published at {@code stop-request}. */
  public byte[] toJson() {
    Map<String, Object> fields = new LinkedHashMap<>();
    fields.put("schema", SCHEMA);
    fields.put("invocation_id", invocationId);
    fields.put("mode", mode.code());
    fields.put("requested_at", requestedAt.format(DateTimeFormatter.ISO_OFFSET_DATE_TIME));
    return StrictJson.write(fields);
  }

  /**
   * Parses a request strictly: an unknown schema or field is refused, never skipped.
   *
   * @throws StrictJson.Malformed saying, bounded, why it does not parse
   */
  static StopRequest parse(byte[] bytes) throws StrictJson.Malformed {
    var object = StrictJson.object(bytes, FIELDS);
    StrictJson.schema(object, SCHEMA);
    String invocation = StrictJson.invocationId(object, "invocation_id");
    String mode = StrictJson.text(object, "mode");
    StopMode parsed = StopMode.ofCode(mode).orElseThrow(() ->
        new StrictJson.Malformed("mode is not drain or now: " + StrictJson.quote(mode)));
    return new StopRequest(invocation, parsed, StrictJson.timestamp(object, "requested_at"));
  }
}
