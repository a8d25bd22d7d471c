package dev.cryo.front;

import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.eclipse.jetty.http.HttpParser;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.server.internal.HttpConnection;

/**
 * Closes a connection whose request takes longer than {@link ClientLimits#requestTimeout()} to
 * arrive — its headers, then its body, each within the timeout — however slowly its bytes keep
 * coming (one byte every 20 s resets Jetty's idle timeout for ever; this does not). A request that
 * has arrived whole and waits for its reply is not timed; nor is a connection idle between
 * requests (Jetty's idle timeout closes that one).
 *
 * <p>A Jetty connection listener, plus one daemon thread that looks at every HTTP/1 connection a
 * few times per timeout: a connection seen receiving the same request (its parser neither at the
 * start nor at the end of a message, and the same count of messages received) since longer than
 * the timeout is closed. Jetty's HTTP/1 connection class lives in a package Jetty calls internal;
 * its parser's state is volatile and read without a lock. Thread-safe.
 */
final class SlowRequests implements Connection.Listener, AutoCloseable {

  private static final System.Logger LOG = System.getLogger(SlowRequests.class.getName());

  /** Since when a connection has been receiving which message. */
  private record Receiving(long messagesIn, long since) {}

  private final long timeoutNanos;
  private final ConcurrentHashMap<HttpConnection, Receiving> connections =
      new ConcurrentHashMap<>();
  private final ScheduledExecutorService ticker;
  private final AtomicLong cut = new AtomicLong();
  private static final Receiving IDLE = new Receiving(-1, 0);

  SlowRequests(Duration timeout) {
    this.timeoutNanos = timeout.toNanos();
    this.ticker = Executors.newSingleThreadScheduledExecutor(runnable -> {
      Thread thread = new Thread(runnable, "cryo-front-slow-requests");
      thread.setDaemon(true);
      return thread;
    });
    long every = Math.max(50, timeout.toMillis() / 4);
    ticker.scheduleWithFixedDelay(this::sweep, every, every, TimeUnit.MILLISECONDS);
  }

  @Override
  public void onOpened(Connection connection) {
    if (connection instanceof HttpConnection http) {
      connections.put(http, IDLE);
    }
  }

  @Override
  public void onClosed(Connection connection) {
    if (connection instanceof HttpConnection http) {
      connections.remove(http);
    }
  }

  private void sweep() {
    try {
      long now = System.nanoTime();
      connections.replaceAll((connection, seen) -> {
        HttpParser parser = connection.getParser();
        boolean receiving = !parser.isStart() && (parser.inHeaderState()
            || parser.inContentState());
        if (!receiving) {
          return IDLE;
        }
        long messages = connection.getMessagesIn();
        if (seen.messagesIn() != messages) {
          return new Receiving(messages, now);
        }
        if (now - seen.since() > timeoutNanos) {
          cut.incrementAndGet();
          LOG.log(System.Logger.Level.DEBUG, "a request from "
              + connection.getEndPoint().getRemoteSocketAddress() + " took longer than the"
              + " request timeout to arrive; its connection was closed");
          connection.getEndPoint().close();
          return IDLE;
        }
        return seen;
      });
    } catch (RuntimeException e) {
      LOG.log(System.Logger.Level.WARNING, "the slow-request sweep failed (it runs again): " + e);
    }
  }

  /** The connections closed because a request took too long to arrive. */
  long cut() {
    return cut.get();
  }

  /** Stops the sweep; idempotent. */
  @Override
  public void close() {
    ticker.shutdownNow();
  }
}
