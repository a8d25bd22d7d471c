package dev.cryo.front;

import dev.cryo.commander.Commander;
import dev.cryo.commander.Reply;
import dev.cryo.commander.Request;

/**
 * What the front serves requests through: the commander, or a stand-in in a test. Implementations
 * are called concurrently, from the front's virtual threads, and may block.
 */
public interface Upstream {

  /** Whether {@code connectionId} is a connection the run knows. */
  boolean knowsConnection(String connectionId);

  /** Serves one request; never throws for a refusal (it is a reply with its status). */
  Reply serve(Request request);

  /** The commander as the front's upstream. */
  static Upstream of(Commander commander) {
    return new Upstream() {
      @Override
      public boolean knowsConnection(String connectionId) {
        return commander.knowsConnection(connectionId);
      }

      @Override
      public Reply serve(Request request) {
        return commander.serve(request);
      }
    };
  }
}
