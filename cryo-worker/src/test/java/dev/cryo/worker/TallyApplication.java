package dev.cryo.worker;

import dev.cryo.app.CryoApplication;
import dev.cryo.app.FreezeReason;
import dev.cryo.app.LoginResult;
import dev.cryo.app.Refusal;
import dev.cryo.app.Response;
import dev.cryo.app.Routes;
import dev.cryo.app.Stay;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/** A small application for the tests of {@link AppHost}; its hooks and its blocking route report to static fields. */
public final class TallyApplication implements CryoApplication {

  /** What the hooks and the blocking route saw, in order. */
  static final Queue<String> LOG = new ConcurrentLinkedQueue<>();
  /** Where the blocking route waits. */
  static volatile CountDownLatch gate = new CountDownLatch(0);

  record Tally(long count) {}

  record Sheet(List<String> lines) {}

  record Line(String page, String text) {}

  record Name(String user) {}

  record Unfreezable(Object held) {}

  record Freezes(long count) {}

  @Override
  public void routes(Routes routes) {
    routes.get("/", call -> Response.html("<!doctype html><title>tally</title>"));
    routes.post("/count", call -> {
      long user = call.user(Tally.class).update(t -> new Tally(t.count() + 1)).count();
      long connection = call.connection(Tally.class).update(t -> new Tally(t.count() + 1)).count();
      return Map.of("user", call.user(), "count", user, "connection", connection,
          "worker", call.worker());
    });
    routes.post("/push", Line.class, (call, line) -> {
      dev.cryo.app.Pushed user = call.pushToUser(Map.of("text", line.text()));
      dev.cryo.app.Pushed connection = call.pushToConnection(Map.of("text", line.text()));
      dev.cryo.app.Pushed page = call.pushToPage(line.page(), Map.of("text", line.text()));
      return Map.of("user", List.of(user.pages(), user.written()), "connection",
          List.of(connection.pages(), connection.written()), "page",
          List.of(page.pages(), page.written()));
    });
    routes.get("/freezes", call -> call.user(Freezes.class).get());
    routes.post("/pages", call -> Map.of("page", call.openPage()));
    routes.post("/lines", Line.class, (call, line) -> {
      Sheet sheet = call.page(line.page(), Sheet.class).update(s -> {
        List<String> lines = new ArrayList<>(s.lines());
        lines.add(line.text());
        return new Sheet(lines);
      });
      return Map.of("lines", sheet.lines());
    });
    routes.get("/lines/{page}", call -> Map.of("lines",
        call.page(call.pathParameter("page"), Sheet.class).get().lines()));
    routes.post("/fail", call -> {
      throw new IllegalStateException("boom, a bug of the application's");
    });
    routes.post("/unfreezable", call -> {
      call.user(Unfreezable.class).set(new Unfreezable(Thread.currentThread()));
      return null;
    });
    routes.post("/login", Name.class, (call, name) -> {
      LoginResult result = call.login(name.user());
      return Map.of("result", result.name(), "user", call.user(),
          "count", call.user(Tally.class).get().count());
    });
    routes.get("/block", call -> {
      String tag = call.query("tag");
      LOG.add("enter:" + tag);
      if (!gate.await(10, TimeUnit.SECONDS)) {
        throw new IllegalStateException("the gate was never opened");
      }
      LOG.add("exit:" + tag);
      return Map.of("tag", tag);
    });
    routes.move("/move", (call, move) -> {
      if (!move.isMoved()) {
        throw new Refusal(409, "move_refused", "no move: " + move.refused());
      }
      return Map.of("from", move.from(), "to", move.to(), "worker", call.worker());
    });
  }

  @Override
  public void onWake(Stay stay) {
    LOG.add("wake:" + stay.user() + "@" + stay.worker() + ":" + stay.user(Tally.class).get().count());
  }

  @Override
  public void onFreeze(Stay stay, FreezeReason reason) {
    LOG.add("freeze:" + stay.user() + "@" + stay.worker() + ":" + reason);
    stay.user(Freezes.class).update(f -> new Freezes(f.count() + 1));
  }

  @Override
  public void onPageClosed(Stay stay, String pageId) {
    LOG.add("closed:" + pageId);
  }
}
