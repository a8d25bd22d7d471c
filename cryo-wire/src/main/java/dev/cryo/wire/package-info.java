/**
 * The wire: a bidirectional framed RPC between the commander and one worker over one Unix domain
 * socket. Calls, replies and events, correlated by id, each side serving calls concurrently.
 *
 * <h2>Rules of the package</h2>
 *
 * <ul>
 *   <li>It carries opaque payloads and knows nothing of users (the messages of cryo's runtime are
 *       in {@link dev.cryo.wire.protocol}).
 *   <li>End of stream is death: every pending call fails, the handler hears it once.
 *   <li>A hostile or malformed frame closes that one wire with a logged reason; nothing is thrown
 *       out of its reader, and no other wire notices.
 *   <li>Everything is bounded: frame and header sizes, pending calls, abandoned ids.
 *   <li>One thread at a time reads a wire and handles every inbound frame in order: the wire's
 *       reader thread, or a caller waiting for its reply while nobody else reads and no other
 *       call of its side is in flight ({@code ReadTurn}). Events on it, before any later frame (so an event written
 *       before a reply is handled before the reply's future completes); each inbound call on a
 *       virtual thread of its own, or on it for a method the handler serves inline.
 *   <li>Frames are written whole, one at a time, in the order the writers took the wire's lock.
 *   <li>docs/wire.md is the protocol: frame layout, kinds, limits, timeouts, what closes a wire.
 * </ul>
 */
package dev.cryo.wire;
