package dev.cryo.bench.serve;

import dev.cryo.app.CallHost;
import dev.cryo.app.CryoApplication;
import dev.cryo.app.Dispatcher;
import dev.cryo.app.LoginResult;
import dev.cryo.app.Request;
import dev.cryo.app.Response;
import dev.cryo.app.Scope;
import dev.cryo.app.StateException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.security.SecureRandom;
import java.util.AbstractMap.SimpleImmutableEntry;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import org.eclipse.jetty.http.HttpCookie;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.VirtualThreads;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * The anchor of the HTTP benchmark: the same application (the same routes, handlers and typed
 * state through cryo-app's {@link Dispatcher}) in one Jetty process, on the same virtual-thread
 * pool as cryo's front, with its state in plain memory — concurrent maps, one lock per user for
 * his turn — and no freezer, no wire, no second process: the classic single-process session
 * store. It is what cryo is measured against, not a runtime: no freeze, no move, logins relabel
 * in place.
 */
public final class PlainMemoryServer implements AutoCloseable {

  private static final String COOKIE = "cryo_connection";
  private static final String NAME = "single";

  /** One user's state: plain values per key, and his turn. */
  private static final class User {
    final ReentrantLock turn = new ReentrantLock(true);
    final Map<String, Object> state = new ConcurrentHashMap<>();
  }

  /** One connection: its owner, its state, its pages' state. */
  private static final class Connection {
    volatile String user;
    volatile boolean guest = true;
    final Map<String, Object> state = new ConcurrentHashMap<>();
    final Map<String, Map<String, Object>> pages = new ConcurrentHashMap<>();
  }

  private final Dispatcher dispatcher;
  private final Map<String, User> users = new ConcurrentHashMap<>();
  private final Map<String, Connection> connections = new ConcurrentHashMap<>();
  private final SecureRandom random = new SecureRandom();
  private final Server server;
  private final ServerConnector connector;

  /** A server of {@code application} on {@code port} (0: any) of 127.0.0.1; not started. */
  public PlainMemoryServer(CryoApplication application, int port) {
    this.dispatcher = Dispatcher.of(application);
    QueuedThreadPool threads = new QueuedThreadPool();
    threads.setVirtualThreadsExecutor(VirtualThreads.getNamedVirtualThreadsExecutor("plain-v"));
    this.server = new Server(threads);
    this.connector = new ServerConnector(server);
    connector.setHost("127.0.0.1");
    connector.setPort(port);
    server.addConnector(connector);
    server.setHandler(new Handler.Abstract() {
      @Override
      public boolean handle(org.eclipse.jetty.server.Request request,
          org.eclipse.jetty.server.Response response, Callback callback) throws Exception {
        serve(request, response, callback);
        return true;
      }
    });
  }

  /** Starts listening. */
  public void start() throws Exception {
    server.start();
  }

  /** The port listened on. */
  public int port() {
    return connector.getLocalPort();
  }

  @Override
  public void close() throws Exception {
    server.stop();
  }

  private void serve(org.eclipse.jetty.server.Request request,
      org.eclipse.jetty.server.Response response, Callback callback) throws Exception {
    byte[] body;
    try (InputStream in = Content.Source.asInputStream(request)) {
      body = in.readNBytes(1 << 20);
    }
    String id = null;
    for (HttpCookie cookie : org.eclipse.jetty.server.Request.getCookies(request)) {
      if (cookie.getName().equals(COOKIE) && connections.containsKey(cookie.getValue())) {
        id = cookie.getValue();
      }
    }
    boolean minted = id == null;
    if (minted) {
      byte[] bits = new byte[16];
      random.nextBytes(bits);
      id = HexFormat.of().formatHex(bits);
      Connection fresh = new Connection();
      fresh.user = "guest_" + id;
      connections.put(id, fresh);
    }
    Connection connection = connections.get(id);
    List<Map.Entry<String, String>> headers = new ArrayList<>();
    for (HttpField field : request.getHeaders()) {
      headers.add(new SimpleImmutableEntry<>(field.getLowerCaseName(), field.getValue()));
    }
    String query = request.getHttpURI().getQuery();
    Request call = Request.of(request.getMethod(), request.getHttpURI().getDecodedPath(),
        query == null ? "" : query, headers, body);
    Response reply;
    while (true) {
      String owner = connection.user;
      User user = users.computeIfAbsent(owner, key -> new User());
      user.turn.lock();
      try {
        if (!owner.equals(connection.user)) {
          continue; // a login moved the connection meanwhile: take the new owner's turn
        }
        reply = dispatcher.serve(call, null, new Host(connection, owner, user)).response();
        break;
      } finally {
        user.turn.unlock();
      }
    }
    response.setStatus(reply.status());
    for (Map.Entry<String, String> header : reply.headers()) {
      response.getHeaders().add(header.getKey(), header.getValue());
    }
    if (minted) {
      response.getHeaders().add("Set-Cookie", COOKIE + "=" + id + "; Path=/; HttpOnly");
    }
    response.write(true, ByteBuffer.wrap(reply.body()), callback);
  }

  /** The call's host: plain maps, relabel in place. */
  private final class Host implements CallHost {
    private final Connection connection;
    private String user;
    private User row;

    Host(Connection connection, String user, User row) {
      this.connection = connection;
      this.user = user;
      this.row = row;
    }

    @Override
    public String user() {
      return user;
    }

    @Override
    public String worker() {
      return NAME;
    }

    @Override
    public Object read(Scope scope, String pageId, String key) {
      return switch (scope) {
        case USER -> row.state.get(key);
        case CONNECTION -> connection.state.get(key);
        case PAGE -> page(pageId).get(key);
      };
    }

    @Override
    public void write(Scope scope, String pageId, String key, Object plain) {
      Map<String, Object> target = switch (scope) {
        case USER -> row.state;
        case CONNECTION -> connection.state;
        case PAGE -> page(pageId);
      };
      if (plain == null) {
        target.remove(key);
      } else {
        target.put(key, plain);
      }
    }

    private Map<String, Object> page(String pageId) {
      Map<String, Object> page = pageId == null ? null : connection.pages.get(pageId);
      if (page == null) {
        throw new StateException(StateException.Reason.UNKNOWN_PAGE, "page '" + pageId
            + "' is not a page of this connection");
      }
      return page;
    }

    @Override
    public boolean isGuest() {
      return connection.guest;
    }

    @Override
    public java.util.List<String> pages() {
      return java.util.List.copyOf(connection.pages.keySet());
    }

    @Override
    public boolean closePage(String pageId) {
      return connection.pages.remove(pageId) != null;
    }

    @Override
    public boolean hasPage(String pageId) {
      return connection.pages.containsKey(pageId);
    }

    @Override
    public String openPage() {
      byte[] bits = new byte[16];
      random.nextBytes(bits);
      String pageId = "p" + HexFormat.of().formatHex(bits);
      connection.pages.put(pageId, new ConcurrentHashMap<>());
      return pageId;
    }

    @Override
    public dev.cryo.app.Pushed pushToPage(String pageId, byte[] json) {
      return dev.cryo.app.Pushed.NOTHING; // the anchor has no sockets
    }

    @Override
    public dev.cryo.app.Pushed pushToConnection(byte[] json) {
      return dev.cryo.app.Pushed.NOTHING;
    }

    @Override
    public dev.cryo.app.Pushed pushToUser(byte[] json) {
      return dev.cryo.app.Pushed.NOTHING;
    }

    @Override
    public LoginResult login(String identity) {
      User existing = users.get(identity);
      if (existing == null) {
        User carried = connection.guest ? users.remove(user) : new User();
        users.put(identity, carried == null ? new User() : carried);
      }
      connection.user = identity;
      connection.guest = false;
      user = identity;
      row = users.get(identity);
      return LoginResult.HERE;
    }
  }

  /** Ids of users held, for a check in a test. */
  Set<String> users() {
    return users.keySet();
  }
}
