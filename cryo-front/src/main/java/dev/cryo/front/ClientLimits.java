package dev.cryo.front;

import java.time.Duration;
import java.util.Objects;

/**
 * What one client — one address, one browser connection — may hold of the public port, and what
 * all of them may hold together: the limits that keep a single client from taking the port from
 * everybody else (docs/security.md). Each has a {@code cryo serve} option.
 *
 * @param maxConnections TCP connections open at once on the port ({@code --max-connections}); one
 *     more is closed as soon as it is accepted, before a byte of it is read
 * @param maxConnectionsPerAddress TCP connections open at once from one client address
 *     ({@code --max-connections-per-address}); one more from that address is closed as soon as
 *     it is accepted. Behind a reverse proxy every client has the proxy's address: raise it to
 *     {@code maxConnections} there
 * @param requestTimeout how long a request may take to arrive: its headers within it, then its
 *     body within it ({@code --request-timeout}); a connection still receiving past it is closed,
 *     however slowly its bytes keep coming. The time a request waits for its reply is not counted
 * @param maxSockets page sockets open at once on the port ({@code --max-sockets}); one more is
 *     accepted and closed with 1013 (try again later)
 * @param maxSocketsPerConnection page sockets open at once for one browser connection (one
 *     cookie: its tabs) ({@code --max-sockets-per-connection}); one more is accepted and closed
 *     with 1008 (policy violation)
 */
public record ClientLimits(int maxConnections, int maxConnectionsPerAddress,
    Duration requestTimeout, int maxSockets, int maxSocketsPerConnection) {

  /**
   * 10,000 connections, 256 from one address, 30 s to send a request, 10,000 page sockets, 32 for
   * one browser connection.
   */
  public static final ClientLimits DEFAULTS = new ClientLimits(10_000, 256, Duration.ofSeconds(30),
      10_000, 32);

  /** Checks the limits. */
  public ClientLimits {
    Objects.requireNonNull(requestTimeout, "requestTimeout");
    if (maxConnections < 1 || maxConnectionsPerAddress < 1 || maxSockets < 1
        || maxSocketsPerConnection < 1 || requestTimeout.toMillis() < 100) {
      throw new IllegalArgumentException("client limits are at least one connection (in total"
          + " and per address), one socket (in total and per connection), and a request timeout"
          + " of at least 100 ms; got " + maxConnections + ", " + maxConnectionsPerAddress + ", "
          + requestTimeout + ", " + maxSockets + ", " + maxSocketsPerConnection);
    }
  }
}
