package dev.cryo.wire;

/**
 * What one side of a wire serves. The wire calls it from its own threads; an implementation is
 * thread-safe for {@link #onCall} (calls run concurrently).
 */
public interface WireHandler {

  /**
   * Serves one inbound call, on a virtual thread of its own (calls run concurrently); may block.
   *
   * @param method one of the wire's call methods
   * @param payload the call's payload (owned by the handler)
   * @return the reply's payload (not null; an empty array for none)
   * @throws WireRefusal to send an error reply with its code and message
   * @throws Exception any other exception sends an error reply with code {@code internal} (the
   *     exception is logged, not sent)
   */
  byte[] onCall(String method, byte[] payload) throws Exception;

  /**
   * One inbound event, on the wire's reader thread, in arrival order, before any later frame of
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
