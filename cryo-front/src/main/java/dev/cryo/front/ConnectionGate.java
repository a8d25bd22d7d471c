package dev.cryo.front;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.eclipse.jetty.io.Connection;

/**
 * Counts the public port's TCP connections, in total and per client address, and closes a new one
 * at once — before a byte of it is read — when it would take either count past its limit
 * ({@link ClientLimits#maxConnections()}, {@link ClientLimits#maxConnectionsPerAddress()}). The
 * client sees its connection closed (no HTTP reply: answering would cost what the limit saves);
 * the refusals are counted for the metrics, and the first of every minute is logged.
 *
 * <p>A Jetty connection listener: Jetty calls it on its I/O threads as connections open and
 * close. Thread-safe and lock-free but for the per-address map's own updates.
 */
final class ConnectionGate implements Connection.Listener {

  private static final System.Logger LOG = System.getLogger(ConnectionGate.class.getName());

  private final int maxTotal;
  private final int maxPerAddress;
  private final AtomicInteger open = new AtomicInteger();
  private final ConcurrentHashMap<InetAddress, Integer> perAddress = new ConcurrentHashMap<>();
  /** The connections counted, each with its address: a refused one is never counted down. */
  private final ConcurrentHashMap<Connection, InetAddress> counted = new ConcurrentHashMap<>();
  private final AtomicLong refused = new AtomicLong();
  private final AtomicLong lastLogged = new AtomicLong(System.nanoTime() - 120_000_000_000L);

  ConnectionGate(int maxTotal, int maxPerAddress) {
    this.maxTotal = maxTotal;
    this.maxPerAddress = maxPerAddress;
  }

  @Override
  public void onOpened(Connection connection) {
    InetAddress address = addressOf(connection.getEndPoint().getRemoteSocketAddress());
    if (open.incrementAndGet() > maxTotal) {
      open.decrementAndGet();
      refuse(connection, "the port has " + maxTotal + " connections open (--max-connections)");
      return;
    }
    boolean[] admitted = {true};
    perAddress.compute(address, (a, count) -> {
      int now = count == null ? 0 : count;
      if (now >= maxPerAddress) {
        admitted[0] = false;
        return count;
      }
      return now + 1;
    });
    if (!admitted[0]) {
      open.decrementAndGet();
      refuse(connection, address.getHostAddress() + " has " + maxPerAddress + " connections"
          + " open (--max-connections-per-address)");
      return;
    }
    counted.put(connection, address);
  }

  @Override
  public void onClosed(Connection connection) {
    InetAddress address = counted.remove(connection);
    if (address == null) {
      return; // refused: never counted
    }
    open.decrementAndGet();
    perAddress.computeIfPresent(address, (a, count) -> count <= 1 ? null : count - 1);
  }

  private void refuse(Connection connection, String why) {
    refused.incrementAndGet();
    long now = System.nanoTime();
    long last = lastLogged.get();
    if (now - last > 60_000_000_000L && lastLogged.compareAndSet(last, now)) {
      LOG.log(System.Logger.Level.WARNING, "a new connection was closed at once: " + why
          + "; the others are served as before (this line comes at most once a minute; the"
          + " metric cryo_front_connections_refused_total counts them all)");
    }
    connection.getEndPoint().close();
  }

  private static InetAddress addressOf(SocketAddress address) {
    if (address instanceof InetSocketAddress inet && inet.getAddress() != null) {
      return inet.getAddress();
    }
    return InetAddress.getLoopbackAddress(); // a Unix socket or unknown: one address for all
  }

  /** The connections open now (counted ones). */
  int open() {
    return open.get();
  }

  /** The connections closed at once since the front started. */
  long refused() {
    return refused.get();
  }
}
