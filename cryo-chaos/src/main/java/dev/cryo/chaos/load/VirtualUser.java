package dev.cryo.chaos.load;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cryo.chaos.history.Entry;
import dev.cryo.chaos.history.Function;
import dev.cryo.chaos.history.History;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * One virtual user: one connection cookie, the identity the run last said he is, his pages (one
 * per process, each written by that process only), and, for some, a page socket. Every operation
 * is recorded as an invocation and a completion. The cookie and the identity are shared by his
 * processes (volatile); a page and its note numbers belong to one process.
 */
final class VirtualUser {

  /** A page of this virtual user, written by one process. */
  static final class Page {
    volatile String id;
    long nextNote = 1;
  }

  private final String name;
  private final DemoClient client;
  private final Recorder recorder;
  private final boolean usesSocket;
  private final Duration timeout;
  private final List<Page> pages = new CopyOnWriteArrayList<>();
  private volatile String cookie;
  private volatile String user;
  private volatile PageSocket socket;
  private volatile boolean httpOnly;

  VirtualUser(String name, DemoClient client, Recorder recorder, boolean usesSocket,
      Duration timeout) {
    this.name = name;
    this.client = client;
    this.recorder = recorder;
    this.usesSocket = usesSocket;
    this.timeout = timeout;
  }

  String name() {
    return name;
  }

  boolean hasCookie() {
    return cookie != null;
  }

  /** A new page slot, for one process. */
  Page newPage() {
    Page page = new Page();
    pages.add(page);
    return page;
  }

  List<Page> pages() {
    return new ArrayList<>(pages);
  }

  /** Opens {@code page} on the run (a new id, notes from 1 again); true when it was opened. */
  boolean open(String process, Page page) throws InterruptedException {
    Recorder.Invocation invocation =
        recorder.invoke(name, process, Function.OPEN_PAGE, "http", user, null, null);
    Reply reply = http(invocation, () -> client.openPage(cookie));
    boolean left = reply != null && reply.cookie() != null && !reply.cookie().equals(cookie);
    if (reply != null && reply.done() && reply.page() != null && !left) {
      page.id = reply.page();
      page.nextNote = 1;
      PageSocket current = socket;
      if (current != null && current.isOpen()) {
        try {
          current.bind(page.id, timeout);
        } catch (IOException e) {
          current.close();
        }
      }
      return true;
    }
    return false;
  }

  /**
   * One increment of the user's counter and {@code page}'s, over the socket when he has one;
   * returns the reply, or null when none came.
   */
  Reply increment(String process, Page page) throws InterruptedException {
    String id = page.id;
    JsonNode body = History.JSON.createObjectNode().put("page", id);
    return call(process, page, Function.INC, "POST", "/api/counter", null, body, null,
        () -> client.increment(cookie, id));
  }

  /** Appends {@code page}'s next note; returns the reply, or null when none came. */
  Reply note(String process, Page page) throws InterruptedException {
    String id = page.id;
    long number = page.nextNote++;
    JsonNode body = History.JSON.createObjectNode().put("page", id)
        .put("text", DemoClient.noteText(number));
    return call(process, page, Function.NOTE, "POST", "/api/notes", null, body,
        Long.toString(number), () -> client.note(cookie, id, number));
  }

  /** Reads the user's counter and {@code page}'s state ({@code page} may be null: no page). */
  Reply read(String process, Page page) throws InterruptedException {
    String id = page == null ? null : page.id;
    String query = id == null ? null : "page=" + java.net.URLEncoder.encode(id,
        java.nio.charset.StandardCharsets.UTF_8);
    return call(process, page, Function.READ, "GET", "/api/state", query, null, null,
        () -> client.read(cookie, id));
  }

  /** Logs the connection in as {@code identity}; a 303 is followed by a read. */
  void login(String process, String identity) throws InterruptedException {
    Page page = pages.isEmpty() ? null : pages.get(0);
    String id = page == null ? null : page.id;
    Recorder.Invocation invocation =
        recorder.invoke(name, process, Function.LOGIN, "http", user, id, identity);
    Reply reply = http(invocation, () -> client.login(cookie, identity, id));
    if (reply != null && reply.status() == 303) {
      read(process, page);
    }
  }

  /** Asks the run to move this user to another worker; returns the reply, or null. */
  Reply move(String process) throws InterruptedException {
    Recorder.Invocation invocation =
        recorder.invoke(name, process, Function.MOVE, "http", user, null, null);
    return http(invocation, () -> client.move(cookie));
  }

  private interface Request {
    Reply send() throws IOException, InterruptedException;
  }

  private Reply call(String process, Page page, Function f, String method, String path,
      String query, JsonNode body, String arg, Request overHttp) throws InterruptedException {
    PageSocket current = usesSocket && !httpOnly ? socket() : null;
    String id = page == null ? null : page.id;
    if (current != null && id != null && !bound(current, id)) {
      current = null; // its channel did not open: over HTTP, as a browser falls back
    }
    if (current == null || id == null) {
      Recorder.Invocation invocation =
          recorder.invoke(name, process, f, "http", user, id, arg);
      return seen(invocation, page, http(invocation, overHttp));
    }
    Recorder.Invocation invocation = recorder.invoke(name, process, f, "ws", user, id, arg);
    try {
      Reply reply = current.call(id, method, path, query, body, timeout);
      recorder.complete(invocation, reply, null);
      return seen(invocation, page, reply);
    } catch (IOException e) {
      recorder.unknown(invocation, e);
      current.close();
      return null;
    }
  }

  /** Whether {@code page}'s channel is open on {@code current}, opened now if need be. */
  private boolean bound(PageSocket current, String page) throws InterruptedException {
    try {
      return current.ensureBound(page, timeout);
    } catch (IOException e) {
      current.close();
      return false;
    }
  }

    private Reply http(Recorder.Invocation invocation, Request request)
      throws InterruptedException {
    String sent = cookie;
    try {
      Reply reply = request.send();
      recorder.complete(invocation, reply, learn(reply, sent));
      return reply;
    } catch (IOException e) {
      recorder.unknown(invocation, e);
      return null;
    }
  }

  /** After a reply about {@code page}: an unknown page is opened again by its process. */
  private Reply seen(Recorder.Invocation invocation, Page page, Reply reply) {
    if (reply != null && page != null && reply.status() == 404
        && "unknown_page".equals(reply.error()) && Objects.equals(page.id, invocation.page())) {
      page.id = null;
    }
    return reply;
  }

  /**
   * Takes the cookie and the identity a reply to a request sent with cookie {@code sent} gives,
   * and says what became of its cookie: a new cookie is taken when the request went with the
   * cookie this user still has (the run forgot that connection, or he had none); when another
   * process already took another new one meanwhile, this one is dropped, and its identity with it.
   */
  private synchronized String learn(Reply reply, String sent) {
    String fate = null;
    if (reply.cookie() != null && !reply.cookie().equals(cookie)) {
      if (Objects.equals(sent, cookie)) {
        cookie = reply.cookie();
        fate = Entry.COOKIE_NEW;
        PageSocket current = socket;
        if (sent != null && current != null) {
          current.close();
        }
      } else {
        return Entry.COOKIE_DROPPED;
      }
    }
    if (reply.user() != null && Objects.equals(reply.cookie() == null ? sent : reply.cookie(),
        cookie)) {
      user = reply.user();
    }
    return fate;
  }

  /** The open page socket, opened (and this user's pages bound) when it is not; null if none. */
  private PageSocket socket() throws InterruptedException {
    PageSocket current = socket;
    if (current != null && current.isOpen()) {
      return current;
    }
    synchronized (this) {
      current = socket;
      if (current != null && current.isOpen()) {
        return current;
      }
      if (cookie == null) {
        return null;
      }
      try {
        current = PageSocket.open(client.http(), client.base(), cookie, recorder, name, timeout);
        for (Page page : pages) {
          String id = page.id;
          if (id != null) {
            current.bind(id, timeout);
          }
        }
        socket = current;
        return current;
      } catch (IOException e) {
        if (current != null) {
          current.close();
        }
        return null;
      }
    }
  }

  /** From now on every call goes over HTTP, and the page socket is closed. */
  void close() {
    httpOnly = true;
    PageSocket current = socket;
    if (current != null) {
      current.close();
    }
  }
}
