package dev.cryo.freezer;

import java.time.Instant;
import java.util.Objects;

/**
 * The diagnostic header of a parcel: who wrote it, when, for which cause, from which group, and with
 * which codec. It is read for counting and for the operator, without decoding the payload; no
 * decision is ever taken on it (what is true about a user lives in the registers, never in a file).
 *
 * <p>Each text is kept to {@link ParcelFormat#MAX_HEADER_TEXT} UTF-8 bytes on disk; a character
 * with no UTF-8 form (a lone surrogate) is written as {@code ?}.
 *
 * @param writer the name answering for the write (a worker, the commander)
 * @param writtenAt when the parcel was written, to the millisecond
 * @param cause why it was written (freeze, login, ...)
 * @param group the group the writer belongs to; empty for the commander
 * @param codec the name of the codec that encoded the payload
 */
public record ParcelHeader(String writer, Instant writtenAt, String cause, String group, String codec) {

  /** Checks that no field is null. */
  public ParcelHeader {
    Objects.requireNonNull(writer, "writer");
    Objects.requireNonNull(writtenAt, "writtenAt");
    Objects.requireNonNull(cause, "cause");
    Objects.requireNonNull(group, "group");
    Objects.requireNonNull(codec, "codec");
  }
}
