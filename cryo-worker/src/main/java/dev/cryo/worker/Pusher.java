package dev.cryo.worker;

import dev.cryo.app.Pushed;

/**
 * Where an application's pushes go: in the worker process, the wire call {@code push} to the
 * commander, which writes them to the front's sockets. Called on the thread of the call that
 * pushes, inside the user's turn, with no lock of the worker held; it may block for one round trip.
 * Implementations must be thread-safe.
 */
@FunctionalInterface
public interface Pusher {

  /** The pusher of a worker alone (no commander, no sockets): every push reaches nothing. */
  Pusher NOWHERE = (target, key, json) -> Pushed.NOTHING;

  /**
   * Pushes one message.
   *
   * @param target {@code page}, {@code connection} or {@code user}
   *     ({@link dev.cryo.wire.protocol.PushMessage})
   * @param key the page id, connection id or user
   * @param json the message, as JSON bytes
   * @return what it reached; a failure to reach the commander is {@link Pushed#NOTHING}, logged
   */
  Pushed push(String target, String key, byte[] json);
}
