package dev.cryo.commander;

import dev.cryo.app.CryoApplication;
import dev.cryo.app.Pushed;
import dev.cryo.app.Routes;
import java.util.Map;

/**
 * Pages opened, listed, pushed to and closed from the server, for tests across processes:
 * {@code POST /open} → {@code {"page"}}; {@code GET /pages} → {@code {"pages": [...]}};
 * {@code POST /push?page=P} → {@code {"pages", "written"}} of a push to P; {@code POST
 * /close?page=P} → {@code {"closed"}}; {@code GET /note?page=P} → the page's state (404
 * {@code unknown_page} once it is closed).
 */
public final class TabsApplication implements CryoApplication {

  /** A page's state. */
  public record Note(String text) {}

  @Override
  public void routes(Routes routes) {
    routes.post("/open", call -> {
      String page = call.openPage();
      call.page(page, Note.class).set(new Note("open"));
      return Map.of("page", page);
    });
    routes.get("/pages", call -> Map.of("pages", call.pages()));
    routes.post("/push", call -> {
      Pushed pushed = call.pushToPage(call.query("page"), Map.of("hello", true));
      return Map.of("pages", pushed.pages(), "written", pushed.written());
    });
    routes.post("/close", call -> Map.of("closed", call.closePage(call.query("page"))));
    routes.get("/note", call -> call.page(call.query("page"), Note.class).get());
  }
}
