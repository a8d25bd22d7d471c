package dev.cryo.freezer;

import java.time.Instant;
import java.util.Objects;

/**
 * The diagnostic header of a parcel: who wrote it, when, for which cause, from which group, and with
 * which codec. It is read for counting and for the operator, without decoding the payload. What is
 * true about a user lives in the registers, never in a file; the one decision taken on a header is
 * the expiry of the frozen: how old it is ({@code writtenAt}), and whether its cause is
 * {@link #EMPTY_GUEST_CAUSE}, which only shortens how long the parcel is kept; and, at the start
 * after a commander was killed, whether a user its journal never heard of left a parcel of cause
 * {@link #COMMANDER_LOST_CAUSE} written by a stay of that run (the commander's {@code Adoption}).
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

  /**
   * The cause a worker writes on the parcels of a guest frozen by its idle valve while he held
   * nothing: his user store, and the stores of every connection and page of his, were empty in the
   * parcels written. The run's expiry keeps such a parcel for its own short time
   * ({@code --frozen-empty-guest-ttl}) instead of a guest's: a flood of visitors who never wrote
   * anything leaves no lasting disk.
   */
  public static final String EMPTY_GUEST_CAUSE = "idle_empty_guest";

  /**
   * The cause of a checkpoint: the state of a user written behind while he stays awake, one
   * parcel holding his connections' parcels too. A wake reads it as any user parcel; after his
   * worker died, the commander freezes him at it when it is of the stay that died.
   */
  public static final String CHECKPOINT_CAUSE = "checkpoint";

  /**
   * The cause a worker writes on the parcels of the quit it runs on its own when its commander is
   * gone (killed): each is the newest state of a user awake at that moment, newer than anything
   * the killed commander's journal may have recorded of him.
   */
  public static final String COMMANDER_LOST_CAUSE = "commander_lost";

  /** Checks that no field is null. */
  public ParcelHeader {
    Objects.requireNonNull(writer, "writer");
    Objects.requireNonNull(writtenAt, "writtenAt");
    Objects.requireNonNull(cause, "cause");
    Objects.requireNonNull(group, "group");
    Objects.requireNonNull(codec, "codec");
  }
}
