package dev.cryo.lock.crossprocess;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.StandardProtocolFamily;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * An independent judge of mutual exclusion across processes, in the manner of Lucene's {@code
 * LockVerifyServer}: every holder reports when it enters and leaves the critical section of a lock,
 * and waits for the verifier's acknowledgement before going on. The verifier records a violation
 * when a client enters a lock that another client holds, or leaves a lock it does not hold.
 *
 * <h2>Why the verdict is exact</h2>
 *
 * <p>A client reports {@code ENTER} after acquiring and waits for the acknowledgement before its
 * critical section; it reports {@code LEAVE} and waits for the acknowledgement before releasing. So
 * with a correct lock, the verifier has processed the previous holder's {@code LEAVE} before the next
 * holder can even acquire, let alone report: one single-threaded event loop sees every report in an
 * order that respects real time, and any {@code ENTER} that finds another holder is an overlap.
 *
 * <p>A holder killed inside its critical section never says {@code LEAVE}. Its death closes its
 * connection: the kernel closes a process's sockets when its last thread exits, before that thread
 * is gone from the process table, and a lock acquirer can only reclaim the lock after that (a
 * process whose main thread is a zombie while other threads remain counts as alive). So when an {@code ENTER} finds a holder, the
 * verifier reads that holder's connection without blocking: end of stream (or a reset) means the
 * holder died before the newcomer acquired, and its hold ends there; pending data or silence means it
 * is alive inside its critical section: an overlap. Loopback delivers the end of stream within the
 * closing process's own exit, so this never forgives a live holder.
 *
 * <h2>Protocol</h2>
 *
 * <p>TCP on 127.0.0.1 only. The client sends its id (int) and pid (long), then waits for one {@link
 * #GO} byte (the starting gun, fired by {@link #start()}; at once for clients that connect later).
 * Then it sends two-byte messages: an operation ({@link #ENTER}, {@link #LEAVE}, {@link #DONE}) and
 * a lock index (0-127); {@code ENTER} and {@code LEAVE} are acknowledged by echoing the operation
 * byte. {@link Client} is the client side.
 */
public final class LockVerifier implements AutoCloseable {

  /** Operation: the client is inside the critical section of the lock. */
  public static final byte ENTER = 1;
  /** Operation: the client is leaving the critical section of the lock (it still holds the lock). */
  public static final byte LEAVE = 2;
  /** Operation: the client finished its work and will disconnect. */
  public static final byte DONE = 3;
  /** The starting gun, sent by the verifier. */
  public static final byte GO = 4;

  private static final int HELLO_BYTES = Integer.BYTES + Long.BYTES;
  private static final int MAX_VIOLATIONS_KEPT = 50;

  private final ServerSocketChannel server;
  private final Selector selector;
  private final Thread loop;
  private final Object monitor = new Object();

  // Touched by the event loop only.
  private final Map<Integer, Set<Connection>> holders = new HashMap<>();
  private final Map<Integer, Long> entersPerLock = new HashMap<>();
  private final List<Connection> toProcess = new ArrayList<>();

  // Guarded by monitor.
  private final List<String> violations = new ArrayList<>();
  private final Map<Integer, Long> entersPerClient = new HashMap<>();
  private final Set<Integer> insideNow = new LinkedHashSet<>();
  private long violationCount;
  private long enters;
  private long diedInside;
  private int connected;
  private int done;
  private boolean started;
  private IOException failure;

  private LockVerifier() throws IOException {
    selector = Selector.open();
    server = ServerSocketChannel.open(StandardProtocolFamily.INET);
    server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
    server.configureBlocking(false);
    server.register(selector, SelectionKey.OP_ACCEPT);
    loop = new Thread(this::run, "lock-verifier");
    loop.setDaemon(true);
  }

  /** Opens a verifier listening on an ephemeral port of 127.0.0.1; {@link #start()} fires the gun. */
  public static LockVerifier open() throws IOException {
    LockVerifier verifier = new LockVerifier();
    verifier.loop.start();
    return verifier;
  }

  /** The port clients connect to on 127.0.0.1. */
  public int port() {
    try {
      return ((InetSocketAddress) server.getLocalAddress()).getPort();
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Fires the starting gun: every connected client, and every later one, may begin. */
  public void start() {
    synchronized (monitor) {
      started = true;
    }
    selector.wakeup();
  }

  /** Waits until {@code count} clients have connected (said hello) in total. */
  public void awaitConnected(int count, Duration timeout) throws InterruptedException {
    if (!awaitCounter(() -> connected >= count, timeout)) {
      throw new AssertionError("only " + connected() + " of " + count + " clients connected within "
          + timeout);
    }
  }

  /**
   * Waits until {@code count} clients have reported {@link #DONE} in total, or a violation is seen.
   *
   * @return false when the timeout passed first
   */
  public boolean awaitDone(int count, Duration timeout) throws InterruptedException {
    return awaitCounter(() -> done >= count || violationCount > 0, timeout);
  }

  /**
   * Waits until {@code count} critical sections have been entered in total, or a violation is seen.
   *
   * @return false when the timeout passed first
   */
  public boolean awaitEnters(long count, Duration timeout) throws InterruptedException {
    return awaitCounter(() -> enters >= count || violationCount > 0, timeout);
  }

  /** How many clients have connected in total. */
  public int connected() {
    synchronized (monitor) {
      return connected;
    }
  }

  /** How many clients have reported {@link #DONE}. */
  public int done() {
    synchronized (monitor) {
      return done;
    }
  }

  /** How many critical sections were entered, all locks and clients together. */
  public long enters() {
    synchronized (monitor) {
      return enters;
    }
  }

  /** How many critical sections the client with this id entered. */
  public long entersOf(int clientId) {
    synchronized (monitor) {
      return entersPerClient.getOrDefault(clientId, 0L);
    }
  }

  /** How many holders died inside a critical section (their connection ended while holding). */
  public long diedInside() {
    synchronized (monitor) {
      return diedInside;
    }
  }

  /** How many violations were seen. */
  public long violationCount() {
    synchronized (monitor) {
      return violationCount;
    }
  }

  /** The violations seen (the first {@value #MAX_VIOLATIONS_KEPT}), in words. */
  public List<String> violations() {
    synchronized (monitor) {
      return List.copyOf(violations);
    }
  }

  /** Throws an {@link AssertionError} listing the violations, if there was any. */
  public void assertNoViolations() {
    synchronized (monitor) {
      if (failure != null) {
        throw new AssertionError("the verifier itself failed", failure);
      }
      if (violationCount > 0) {
        throw new AssertionError(violationCount + " mutual-exclusion violation(s) in " + enters
            + " entries; first ones:\n  " + String.join("\n  ", violations));
      }
    }
  }

  /** Whether the given client is inside the critical section of any lock right now. */
  public boolean isInside(int clientId) {
    synchronized (monitor) {
      return insideNow.contains(clientId);
    }
  }

  @Override
  public void close() throws IOException {
    selector.close();
    server.close();
    try {
      loop.join(TimeUnit.SECONDS.toMillis(5));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private interface Condition {
    boolean holds();
  }

  private boolean awaitCounter(Condition condition, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    synchronized (monitor) {
      while (!condition.holds()) {
        if (failure != null) {
          throw new AssertionError("the verifier failed", failure);
        }
        long remaining = deadline - System.nanoTime();
        if (remaining <= 0) {
          return false;
        }
        TimeUnit.NANOSECONDS.timedWait(monitor, remaining);
      }
      return true;
    }
  }

  private void run() {
    boolean gunFired = false;
    try {
      while (true) {
        selector.select(100);
        boolean startedNow;
        synchronized (monitor) {
          startedNow = started;
        }
        for (SelectionKey key : selector.selectedKeys()) {
          if (!key.isValid()) {
            continue;
          }
          if (key.isAcceptable()) {
            accept();
          } else if (key.isReadable()) {
            readFrom((Connection) key.attachment(), startedNow);
          }
        }
        selector.selectedKeys().clear();
        while (!toProcess.isEmpty()) {
          process(toProcess.remove(0), startedNow);
        }
        if (startedNow && !gunFired) {
          gunFired = true;
          for (SelectionKey key : selector.keys()) {
            if (key.attachment() instanceof Connection connection && connection.greeted) {
              fire(connection);
            }
          }
        }
      }
    } catch (ClosedSelectorException e) {
      // closed: done
    } catch (IOException | RuntimeException e) {
      synchronized (monitor) {
        failure = e instanceof IOException io ? io : new IOException(e);
        monitor.notifyAll();
      }
    }
  }

  private void accept() throws IOException {
    SocketChannel channel;
    while ((channel = server.accept()) != null) {
      channel.configureBlocking(false);
      channel.socket().setTcpNoDelay(true);
      Connection connection = new Connection(channel);
      connection.key = channel.register(selector, SelectionKey.OP_READ, connection);
    }
  }

  private void readFrom(Connection connection, boolean startedNow) throws IOException {
    fill(connection);
    process(connection, startedNow);
  }

  /**
   * Reads everything available without blocking; returns false when the peer is gone (end of stream
   * or reset), after what it sent before going has been buffered.
   */
  private boolean fill(Connection connection) {
    while (!connection.ended && connection.in.hasRemaining()) {
      try {
        int read = connection.channel.read(connection.in);
        if (read < 0) {
          connection.ended = true;
        } else if (read == 0) {
          break;
        }
      } catch (IOException e) {
        connection.ended = true;
      }
    }
    return !connection.ended;
  }

  private void process(Connection connection, boolean startedNow) throws IOException {
    ByteBuffer in = connection.in;
    in.flip();
    try {
      if (!connection.greeted) {
        if (in.remaining() < HELLO_BYTES) {
          return;
        }
        connection.id = in.getInt();
        connection.pid = in.getLong();
        connection.greeted = true;
        synchronized (monitor) {
          connected++;
          monitor.notifyAll();
        }
        if (startedNow) {
          fire(connection);
        }
      }
      while (in.remaining() >= 2 && !connection.gone) {
        byte operation = in.get();
        int lock = in.get();
        switch (operation) {
          case ENTER -> enter(connection, lock);
          case LEAVE -> leave(connection, lock);
          case DONE -> {
            synchronized (monitor) {
              done++;
              monitor.notifyAll();
            }
          }
          default -> violation("client " + connection.id + " (pid " + connection.pid
              + ") sent an unknown operation " + operation);
        }
        if (operation == ENTER || operation == LEAVE) {
          reply(connection, operation);
        }
      }
    } finally {
      in.compact();
    }
    if (connection.ended && !connection.gone) {
      closed(connection);
    }
  }

  private void enter(Connection connection, int lock) throws IOException {
    Set<Connection> current = holders.computeIfAbsent(lock, k -> new LinkedHashSet<>());
    if (current.contains(connection)) {
      violation("client " + connection.id + " (pid " + connection.pid + ") entered lock " + lock
          + " again while inside it");
    }
    for (Connection other : List.copyOf(current)) {
      if (other == connection) {
        continue;
      }
      // Did the other holder die before this one acquired? Its end of stream is queued if so.
      if (!fill(other)) {
        process(other, true); // what it said before dying, then its end
        continue;
      }
      toProcess.add(other); // what it sent meanwhile is handled after this entry
      violation("overlap on lock " + lock + ": client " + connection.id + " (pid "
          + connection.pid + ") entered while client " + other.id + " (pid " + other.pid
          + ") was inside (entry " + (entersPerLock.getOrDefault(lock, 0L) + 1) + " of the lock)");
    }
    current.add(connection);
    entersPerLock.merge(lock, 1L, Long::sum);
    synchronized (monitor) {
      enters++;
      entersPerClient.merge(connection.id, 1L, Long::sum);
      insideNow.add(connection.id);
      monitor.notifyAll();
    }
  }

  private void leave(Connection connection, int lock) {
    Set<Connection> current = holders.get(lock);
    if (current == null || !current.remove(connection)) {
      violation("client " + connection.id + " (pid " + connection.pid + ") left lock " + lock
          + " without having entered it; inside: " + describe(current));
    }
    if (holders.values().stream().noneMatch(set -> set.contains(connection))) {
      synchronized (monitor) {
        insideNow.remove(connection.id);
      }
    }
  }

  private void closed(Connection connection) throws IOException {
    if (connection.gone) {
      return;
    }
    connection.gone = true;
    for (Set<Connection> set : holders.values()) {
      if (set.remove(connection)) {
        synchronized (monitor) {
          diedInside++;
        }
      }
    }
    synchronized (monitor) {
      insideNow.remove(connection.id);
      monitor.notifyAll();
    }
    if (connection.key != null) {
      connection.key.cancel();
    }
    connection.channel.close();
  }

  private static String describe(Set<Connection> connections) {
    if (connections == null || connections.isEmpty()) {
      return "nobody";
    }
    List<String> names = new ArrayList<>();
    for (Connection connection : connections) {
      names.add("client " + connection.id + " (pid " + connection.pid + ")");
    }
    return String.join(", ", names);
  }

  private void fire(Connection connection) throws IOException {
    if (!connection.fired && !connection.gone) {
      connection.fired = true;
      reply(connection, GO);
    }
  }

  private static void reply(Connection connection, byte value) {
    if (connection.gone) {
      return;
    }
    try {
      ByteBuffer out = ByteBuffer.wrap(new byte[] {value});
      while (out.hasRemaining()) {
        // One byte into an almost empty send buffer: never blocks in practice.
        if (connection.channel.write(out) == 0) {
          Thread.onSpinWait();
        }
      }
    } catch (IOException e) {
      connection.ended = true; // the peer is gone; the read side will notice
    }
  }

  private void violation(String text) {
    synchronized (monitor) {
      violationCount++;
      if (violations.size() < MAX_VIOLATIONS_KEPT) {
        violations.add(text);
      }
      monitor.notifyAll();
    }
  }

  /** One client's connection, seen from the event loop. */
  private static final class Connection {
    final SocketChannel channel;
    final ByteBuffer in = ByteBuffer.allocate(4096);
    SelectionKey key;
    int id = -1;
    long pid = -1;
    boolean greeted;
    boolean fired;
    boolean ended;
    boolean gone;

    Connection(SocketChannel channel) {
      this.channel = channel;
    }
  }

  /**
   * The client side, used by child processes: connect, wait for the gun, then report each entry and
   * exit of a critical section and wait for the acknowledgement. Not thread-safe.
   */
  public static final class Client implements AutoCloseable {
    private final Socket socket;
    private final DataInputStream in;
    private final DataOutputStream out;

    private Client(Socket socket) throws IOException {
      this.socket = socket;
      socket.setTcpNoDelay(true);
      this.in = new DataInputStream(socket.getInputStream());
      this.out = new DataOutputStream(socket.getOutputStream());
    }

    /** Connects to the verifier on 127.0.0.1:{@code port} and waits for the starting gun. */
    public static Client connect(int port, int clientId) throws IOException {
      Client client = new Client(new Socket(InetAddress.getLoopbackAddress(), port));
      client.out.writeInt(clientId);
      client.out.writeLong(ProcessHandle.current().pid());
      client.out.flush();
      client.expect(GO);
      return client;
    }

    /** Reports entering the critical section of {@code lock}; returns once acknowledged. */
    public void enter(int lock) throws IOException {
      send(ENTER, lock);
      expect(ENTER);
    }

    /** Reports leaving the critical section of {@code lock}; returns once acknowledged. */
    public void leave(int lock) throws IOException {
      send(LEAVE, lock);
      expect(LEAVE);
    }

    /** Reports that this client is done. */
    public void done() throws IOException {
      send(DONE, 0);
    }

    private void send(byte operation, int lock) throws IOException {
      out.write(new byte[] {operation, (byte) lock});
      out.flush();
    }

    private void expect(byte value) throws IOException {
      int got = in.read();
      if (got < 0) {
        throw new EOFException("the verifier closed the connection");
      }
      if (got != value) {
        throw new IOException("the verifier answered " + got + " instead of " + value);
      }
    }

    @Override
    public void close() throws IOException {
      socket.close();
    }
  }
}
