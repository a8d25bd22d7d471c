package dev.cryo.cli;

import dev.cryo.app.CryoApplication;
import dev.cryo.app.Move;
import dev.cryo.app.Pushed;
import dev.cryo.app.Response;
import dev.cryo.app.Routes;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A test application for {@code cryo serve --app}: its calls push to any page of the run, another
 * user's too, which the demo never does. Routes:
 * <ul>
 *   <li>{@code GET /client} → an empty HTML page that loads cryo's browser client
 *       ({@code /_cryo/cryo.js}), for the tests that drive the client in a browser;
 *   <li>{@code POST /api/pages} → {@code {"page", "user", "worker"}}: opens a page;
 *   <li>{@code POST /api/poke} {@code {"page", "text"}} → {@code {"pages", "written"}}: pushes
 *       {@code {"kind": "poke", "from": USER, "text"}} to that page (the {@link Pushed} answer);
 *   <li>{@code POST /api/close} {@code {"page"}} → {@code {"closed"}}: closes that page of the
 *       caller's connection ({@code call.closePage});
 *   <li>{@code POST /api/move} → {@code {"from", "to"}}, or 409: moves the caller (he is frozen
 *       on his worker until his next request).
 * </ul>
 * Keeps no state of its own. Thread-safe.
 */
public final class PokeApplication implements CryoApplication {

  /** The body of {@code POST /api/poke}. */
  record Poke(String page, String text) {}

  /** The page of {@code GET /client}: cryo's browser client and nothing else. */
  static final String CLIENT_PAGE = "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">"
      + "<title>cryo client</title><script src=\"/_cryo/cryo.js\"></script></head><body>"
      + "<p id=\"status\">the client is loaded</p></body></html>";

  /** Makes the application. */
  public PokeApplication() {}

  @Override
  public void routes(Routes routes) {
    routes.get("/client", call -> Response.html(CLIENT_PAGE));
    routes.post("/api/pages", call -> map("page", call.openPage(), "user", call.user(),
        "worker", call.worker()));
    routes.post("/api/poke", Poke.class, (call, poke) -> {
      Pushed pushed = call.pushToPage(poke.page(), map("kind", "poke", "from", call.user(),
          "text", poke.text()));
      return map("pages", pushed.pages(), "written", pushed.written());
    });
    routes.post("/api/close", Poke.class, (call, poke) -> map("closed",
        call.closePage(poke.page())));
    routes.move("/api/move", (call, move) -> moved(move));
  }

  private static Object moved(Move move) {
    if (!move.isMoved()) {
      return Response.json(409, map("error", "move_refused", "reason", move.refused()));
    }
    return map("from", move.from(), "to", move.to());
  }

  private static Map<String, Object> map(Object... pairs) {
    Map<String, Object> map = new LinkedHashMap<>();
    for (int i = 0; i < pairs.length; i += 2) {
      map.put((String) pairs[i], pairs[i + 1]);
    }
    return map;
  }
}
