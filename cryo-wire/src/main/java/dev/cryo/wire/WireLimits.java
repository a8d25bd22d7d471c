package dev.cryo.wire;

/**
 * The bounds of one wire. Both ends of a wire are expected to use the same limits: what one side
 * may send, the other accepts.
 *
 * @param maxFrameBytes the largest frame, fixed prelude + header + payload, in bytes
 * @param maxHeaderBytes the largest JSON header, in bytes (at most {@code maxFrameBytes})
 * @param maxPendingCalls the most calls this side keeps waiting for a reply; the next is refused
 *     before sending
 * @param maxAbandonedIds the most ids of timed-out calls kept to recognise late replies; one more
 *     closes the wire
 */
public record WireLimits(int maxFrameBytes, int maxHeaderBytes, int maxPendingCalls,
    int maxAbandonedIds) {

  /** 16 MiB: the default frame limit. */
  public static final int DEFAULT_MAX_FRAME_BYTES = 16 * 1024 * 1024;
  /** 64 KiB: the default header limit. */
  public static final int DEFAULT_MAX_HEADER_BYTES = 64 * 1024;
  /** The default number of pending calls. */
  public static final int DEFAULT_MAX_PENDING_CALLS = 256;
  /** The default number of abandoned ids. */
  public static final int DEFAULT_MAX_ABANDONED_IDS = 256;

  /**
   * Checks the limits.
   *
   * @throws IllegalArgumentException when a limit is not positive, or the header limit is too
   *     small for a header or larger than the frame limit
   */
  public WireLimits {
    if (maxHeaderBytes < 256 || maxFrameBytes < Frame.PRELUDE_BYTES + maxHeaderBytes) {
      throw new IllegalArgumentException("wire limits refused: the header limit (" + maxHeaderBytes
          + " bytes) must be at least 256 and fit in the frame limit (" + maxFrameBytes
          + " bytes, prelude of " + Frame.PRELUDE_BYTES + " included)");
    }
    if (maxPendingCalls < 1 || maxAbandonedIds < 1) {
      throw new IllegalArgumentException("wire limits refused: pending calls (" + maxPendingCalls
          + ") and abandoned ids (" + maxAbandonedIds + ") must be at least 1");
    }
  }

  /** Frame ≤ 16 MiB, header ≤ 64 KiB, 256 pending calls, 256 abandoned ids. */
  public static WireLimits defaults() {
    return new WireLimits(DEFAULT_MAX_FRAME_BYTES, DEFAULT_MAX_HEADER_BYTES,
        DEFAULT_MAX_PENDING_CALLS, DEFAULT_MAX_ABANDONED_IDS);
  }

  /**
   * The calls a side may have waiting beyond {@link #maxPendingCalls()}, for orders only
   * ({@link Wire#orderCall}): a quit or a freeze gets through a wire its ordinary calls fill.
   */
  public static final int RESERVED_ORDER_CALLS = 16;

  /**
   * How many inbound calls a well-behaved peer can have in flight on this side: its pending calls,
   * its reserve for orders, and the abandoned ones whose handlers may still run here. One more is
   * hostile.
   */
  int maxInboundCalls() {
    return maxPendingCalls + RESERVED_ORDER_CALLS + maxAbandonedIds;
  }
}
