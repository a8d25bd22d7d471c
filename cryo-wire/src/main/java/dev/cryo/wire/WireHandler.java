package dev.cryo.wire;

/**
 * What one side of a wire serves. The wire calls it from its own threads; an implementation is
 * thread-safe for {@link #onCall} (calls run concurrently).
 */
public interface WireHandler {

  /**
   * Serves one inbound call, on a virtual thread of its own (calls run concurrently); may block.
   * A method the handler serves inline ({@link #servesInline}) runs instead on the thread that
   * reads the wire, and must not block.
   *
   * @param method one of the wire's call methods
   * @param payload the call's payload (owned by the handler)
   * @return the reply's payload (not null; an empty array for none), written to the socket as it
   *     is once onCall returned, not copied first: do not change it afterwards
   * @throws WireRefusal to send an error reply with its code and message
   * @throws Exception any other exception sends an error reply with code {@code internal} (the
   *     exception is logged, not sent)
   */
  byte[] onCall(String method, byte[] payload) throws Exception;

  /**
   * Whether calls of this method may be served inline: on the thread that reads the wire, which
   * then writes the reply itself, instead of on a virtual thread of their own. That saves a
   * thread hand-off per call (docs/benchmarks.md, "cryo-wire"), and costs the concurrency: while
   * such a call runs, the wire reads nothing, so later frames (events, replies, other calls) wait
   * for it. Say true only for a method whose handler is quick, never blocks (no lock held long,
   * no I/O, no call of its own on this wire) and returns a small reply. Asked once per call method
   * when the wire opens; the default is false for every method.
   *
   * @param method one of the wire's call methods
   * @return true to serve its calls inline
   */
  default boolean servesInline(String method) {
    return false;
  }

  /**
   * One inbound event, on the thread that reads the wire (its reader thread, or a caller of this
   * side reading for its reply, see {@link Wire}), in arrival order, before any later frame of
   * this wire is handled: an event written before a reply is handled before that reply's future
   * completes. Must not block for long (the wire reads nothing meanwhile). An exception thrown here
   * is logged and the wire goes on.
   *
   * @param method one of the wire's event methods
   * @param payload the event's payload (owned by the handler)
   */
  void onEvent(String method, byte[] payload);

  /**
   * The wire ended (end of stream = death of the peer, a hostile frame, close()); called once, on
   * the wire's reader thread, after every pending call's future has failed with {@link
   * WireClosedException} and after the last event was handled.
   *
   * @param reason {@code code: sentence}, the code one of those docs/wire.md lists
   */
  void onClosed(String reason);
}
