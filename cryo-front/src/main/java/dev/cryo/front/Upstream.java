package dev.cryo.front;

import dev.cryo.commander.Commander;
import dev.cryo.commander.PushSink;
import dev.cryo.commander.Reply;
import dev.cryo.commander.Request;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What the front serves requests through: the commander, or a stand-in in a test. Implementations
 * are called concurrently, from the front's virtual threads, and may block.
 */
public interface Upstream {

  /** Whether {@code connectionId} is a connection the run knows. */
  boolean knowsConnection(String connectionId);

  /** Serves one request; never throws for a refusal (it is a reply with its status). */
  Reply serve(Request request);

  /**
   * Whether the run admits new work: a socket's handshake is refused with 1013 otherwise. The
   * default admits.
   */
  default boolean admits() {
    return true;
  }

  /** The connection of {@code page}, when the run knows it; the default knows no page. */
  default Optional<String> connectionOfPage(String page) {
    return Optional.empty();
  }

  /**
   * Whether a cookie naming {@code connectionId} and proving {@code credential}
   * ({@link ConnectionCookie#credentialOf}, null for a cookie never rotated) still reaches the
   * connection: false when a login or a logout retired it, or the connection was forgotten. May
   * block (it asks the worker holding the connection, waking its user). The default: true.
   */
  default boolean provesConnection(String connectionId, String credential) {
    return true;
  }

  /**
   * Whether {@code path} is one of the application's static files ({@code routes.staticResources}),
   * served by {@link #serveStatic} without a connection; the default serves none.
   */
  default boolean servesStatic(String path) {
    return false;
  }

  /**
   * Serves a request for a static file, for no connection and no user; never throws (a refusal is
   * a reply). The default has none: 404.
   */
  default Reply serveStatic(String method, String path, String query,
      List<Map.Entry<String, String>> headers) {
    return new Reply(404, List.of(), new byte[0]);
  }

  /** Sends the run's pushes to {@code sink} (the front's sockets); the default pushes nothing. */
  default void pushSink(PushSink sink) {}

  /** The commander as the front's upstream. */
  static Upstream of(Commander commander) {
    return new Upstream() {
      @Override
      public boolean knowsConnection(String connectionId) {
        return commander.knowsConnection(connectionId);
      }

      @Override
      public boolean provesConnection(String connectionId, String credential) {
        Reply reply = commander.serve(new Request(connectionId, "GET",
            dev.cryo.wire.protocol.HttpCall.CREDENTIAL_PATH, "", java.util.List.of(), null, true,
            credential, null));
        return reply.status() == 204; // a retired cookie is refused, however recently
      }

      @Override
      public Reply serve(Request request) {
        return commander.serve(request);
      }

      @Override
      public boolean admits() {
        return commander.admits();
      }

      @Override
      public Optional<String> connectionOfPage(String page) {
        return commander.connectionOfPage(page);
      }

      @Override
      public void pushSink(PushSink sink) {
        commander.pushSink(sink);
      }

      @Override
      public boolean servesStatic(String path) {
        return commander.servesStatic(path);
      }

      @Override
      public Reply serveStatic(String method, String path, String query,
          List<Map.Entry<String, String>> headers) {
        return commander.serveStatic(method, path, query, headers);
      }
    };
  }
}
