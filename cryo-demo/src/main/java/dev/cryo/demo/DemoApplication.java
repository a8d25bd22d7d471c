package dev.cryo.demo;

import dev.cryo.app.Call;
import dev.cryo.app.CryoApplication;
import dev.cryo.app.LoginResult;
import dev.cryo.app.Move;
import dev.cryo.app.Refusal;
import dev.cryo.app.Response;
import dev.cryo.app.Routes;
import dev.cryo.app.StateKey;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The demo application {@code cryo serve} runs by default: a counter per user, a counter and notes
 * per page, login, and a "move me" button, over the JSON API documented in {@code docs/demo.md} —
 * a contract scripts use.
 *
 * <ul>
 *   <li>{@code GET /} — the page (HTML, self-contained);
 *   <li>{@code POST /api/pages} → {@code {"page", "worker"}}: opens a page for this connection;
 *   <li>{@code POST /api/counter} {@code {"page"}} → {@code {"user", "counter", "pageCounter",
 *       "worker"}}: adds one to the user's counter and to the page's;
 *   <li>{@code GET /api/state?page=ID} → the same fields plus {@code "notes"};
 *   <li>{@code POST /api/notes} {@code {"page", "text"}} → {@code {"notes"}}: a durable route,
 *       answered once the note is on disk;
 *   <li>{@code POST /api/login} {@code {"user", "page"?}} → the state after login, or
 *       {@code 303} to it when the identity lives on another worker;
 *   <li>{@code POST /api/logout} → {@code {"user", "loggedOut"}}: ends this connection (its
 *       pages go; the user stays), and the browser's cookie with it;
 *   <li>{@code POST /api/forget} → {@code {"user", "forgotten"}}: drops the user, his state and
 *       every connection of his;
 *   <li>{@code POST /api/move} → {@code {"from", "to"}} once served elsewhere, {@code 409} with a
 *       reason when no other worker can take him.
 * </ul>
 *
 * <p>Pushes (docs/socket.md): every click pushes {@code {"kind": "counter", "user", "counter"}} to
 * every page of the user, and every click or note {@code {"kind": "sheet", "pageCounter",
 * "notes"}} to the tabs of its page; the page's script opens the socket and sends its calls on it.
 *
 * <p>Errors are {@code {"error": CODE, "message": TEXT}}. All state is cryo state: this class keeps
 * nothing of its own but the page's HTML, so it survives any freeze and move. Thread-safe.
 */
public final class DemoApplication implements CryoApplication {

  /** The most notes a page keeps; the oldest go first. */
  public static final int MAX_NOTES = 100;
  /** The longest note, in characters. */
  public static final int MAX_NOTE_LENGTH = 500;

  private static final Pattern USER_NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._@-]{0,63}");
  private static final String GUEST_PREFIX = "guest_";
  private static final String PAGE = resource("index.html");

  /** The user's state: his counter. */
  record Visitor(long counter) {}

  /** A page's state: its counter and its notes, oldest first. */
  record Sheet(long counter, List<String> notes) {}

  /**
   * A connection's state: its pages, oldest first — when it has as many as a connection may, the
   * oldest is closed to make room for a new one (a browser that reloads for ever keeps working).
   */
  @StateKey("Tabs")
  record Tabs(List<String> pages) {}

  /** A body naming a page. */
  record PageBody(String page) {}

  /** The body of {@code POST /api/notes}. */
  record NoteBody(String page, String text) {}

  /** The body of {@code POST /api/login}. */
  record LoginBody(String user, String page) {}

  /** Makes the demo; it keeps no state of its own. */
  public DemoApplication() {}

  @Override
  public void routes(Routes routes) {
    routes.get("/", call -> Response.html(PAGE).withHeader("Cache-Control", "no-store"));
    routes.post("/api/pages", call -> ordered("page", openPage(call), "worker", call.worker()));
    routes.post("/api/counter", PageBody.class, (call, body) -> {
      String page = required(body.page(), "page");
      Sheet sheet = call.page(page, Sheet.class)
          .update(s -> new Sheet(s.counter() + 1, s.notes()));
      Visitor visitor = call.user(Visitor.class).update(v -> new Visitor(v.counter() + 1));
      call.pushToUser(ordered("kind", "counter", "user", call.user(), "counter",
          visitor.counter()));
      call.pushToPage(page, sheetPush(sheet));
      return ordered("user", call.user(), "counter", visitor.counter(),
          "pageCounter", sheet.counter(), "worker", call.worker());
    });
    routes.get("/api/state", call -> state(call, call.query("page")));
    // A note is what a visitor typed: durable, so an acknowledged note is on disk.
    routes.durable().post("/api/notes", NoteBody.class, (call, body) -> {
      String page = required(body.page(), "page");
      String text = body.text() == null ? "" : body.text().strip();
      if (text.isEmpty() || text.length() > MAX_NOTE_LENGTH) {
        throw new Refusal(400, "bad_note", "a note is 1 to " + MAX_NOTE_LENGTH
            + " characters of text; nothing was added");
      }
      Sheet sheet = call.page(page, Sheet.class).update(s -> {
        List<String> notes = new ArrayList<>(s.notes());
        notes.add(text);
        while (notes.size() > MAX_NOTES) {
          notes.remove(0);
        }
        return new Sheet(s.counter(), notes);
      });
      call.pushToPage(page, sheetPush(sheet));
      return ordered("notes", sheet.notes());
    });
    routes.post("/api/login", LoginBody.class, (call, body) -> {
      String user = required(body.user(), "user").strip();
      if (!USER_NAME.matcher(user).matches() || user.startsWith(GUEST_PREFIX)) {
        throw new Refusal(400, "bad_user", "a user name is 1 to 64 letters, digits or . _ @ -,"
            + " starting with a letter or a digit, and not '" + GUEST_PREFIX + "…'; nobody was"
            + " logged in");
      }
      if (body.page() != null && !call.hasPage(body.page())) {
        throw new Refusal(404, "unknown_page", "page '" + body.page() + "' is not a page of this"
            + " connection; nobody was logged in: open one with POST /api/pages");
      }
      if (call.login(user) == LoginResult.ELSEWHERE) {
        return Response.seeOther("/api/state" + (body.page() == null ? ""
            : "?page=" + URLEncoder.encode(body.page(), StandardCharsets.UTF_8)));
      }
      return state(call, body.page());
    });
    routes.post("/api/logout", call -> {
      String user = call.user();
      call.logout();
      return ordered("user", user, "loggedOut", true);
    });
    routes.post("/api/forget", call -> {
      String user = call.user();
      call.forget();
      return ordered("user", user, "forgotten", true);
    });
    routes.move("/api/move", (call, move) -> moved(move));
  }
  /**
   * Opens a page for the call's connection; at {@link Call#MAX_PAGES_PER_CONNECTION}, closes the
   * connection's oldest first.
   */
  private static String openPage(Call call) {
    List<String> open = call.pages();
    List<String> order = new ArrayList<>(call.connection(Tabs.class).get().pages());
    order.retainAll(open); // pages closed meanwhile
    open.stream().filter(page -> !order.contains(page)).sorted()
        .forEach(page -> order.add(0, page)); // opened before the demo kept its order
    while (order.size() >= Call.MAX_PAGES_PER_CONNECTION) {
      String oldest = order.remove(0);
      call.closePage(oldest);
      call.log().log(System.Logger.Level.INFO, "closed page " + oldest + " (the connection's"
          + " oldest) to open another: a connection keeps " + Call.MAX_PAGES_PER_CONNECTION);
    }
    String page = call.openPage();
    call.log().log(System.Logger.Level.INFO, "opened page " + page);
    order.add(page);
    call.connection(Tabs.class).set(new Tabs(order));
    return page;
  }


  /** The push every tab of a page gets when the page changed: {@code {kind: "sheet", …}}. */
  private static Map<String, Object> sheetPush(Sheet sheet) {
    return ordered("kind", "sheet", "pageCounter", sheet.counter(), "notes", sheet.notes());
  }

  private static Object moved(Move move) {
    if (!move.isMoved()) {
      return Response.json(409, ordered("error", "move_refused", "reason", move.refused(),
          "message", (move.from() == null ? "you were not moved"
              : "you stay on worker " + move.from()) + " (" + move.refused() + "); nothing"
              + " was lost: try again when another worker runs"));
    }
    return ordered("from", move.from(), "to", move.to());
  }

  /** {@code {user, counter, pageCounter, worker, notes}}; the page's fields null without a page. */
  private static Map<String, Object> state(Call call, String page) {
    Sheet sheet = page == null ? null : call.page(page, Sheet.class).get();
    return ordered("user", call.user(), "counter", call.user(Visitor.class).get().counter(),
        "pageCounter", sheet == null ? null : sheet.counter(), "worker", call.worker(),
        "notes", sheet == null ? null : sheet.notes());
  }

  private static String required(String value, String field) {
    if (value == null || value.isBlank()) {
      throw new Refusal(400, "bad_request", "the body needs \"" + field + "\"; nothing was done");
    }
    return value;
  }

  /** A map keeping its keys in the order given (so replies read as documented); values may be null. */
  private static Map<String, Object> ordered(Object... pairs) {
    Map<String, Object> map = new LinkedHashMap<>();
    for (int i = 0; i < pairs.length; i += 2) {
      map.put((String) pairs[i], pairs[i + 1]);
    }
    return map;
  }

  private static String resource(String name) {
    try (InputStream in = DemoApplication.class.getResourceAsStream(name)) {
      if (in == null) {
        throw new IllegalStateException("the demo's " + name + " is missing from its jar");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("the demo's " + name + " could not be read", e);
    }
  }
}
