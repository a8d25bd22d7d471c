package dev.cryo.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Routing, bodies, replies and refusals, as the dispatcher serves them. */
class RoutesTest {

  record Echo(String text, int times) {}

  static final class Routed implements CryoApplication {
    @Override
    public void routes(Routes routes) {
      routes.get("/", call -> Response.html("<p>home</p>"));
      routes.get("/items/{id}", call -> Map.of("id", call.pathParameter("id"), "kind", "any"));
      routes.get("/items/special", call -> Map.of("kind", "special"));
      routes.get("/items/{id}/notes/{note}", call -> List.of(call.pathParameter("id"),
          call.pathParameter("note")));
      routes.post("/echo", Echo.class, (call, echo) -> Map.of("text", echo.text().repeat(echo.times())));
      routes.delete("/items/{id}", call -> null);
      routes.get("/query", call -> Map.of("q", String.valueOf(call.query("q"))));
      routes.post("/refuse", call -> {
        throw new Refusal(409, "taken", "that name is taken; nothing changed");
      });
      routes.get("/broken", call -> {
        throw new java.io.IOException("the disk said no");
      });
      routes.get("/unwritable", call -> new Object());
      routes.route("PURGE", "/cache", call -> Response.empty(202));
      routes.move("/move", (call, move) -> Map.of("moved", move.isMoved()));
    }
  }

  private final CryoTestKit kit = CryoTestKit.of(Routed::new).failOnApplicationError(false);
  private final CryoTestKit.Connection browser = kit.connect();

  @Test
  void literalSegmentsBeatParametersAndParametersAreDecoded() {
    assertThat(CryoTestKit.json(browser.get("/items/special")).get("kind").asText())
        .isEqualTo("special");
    assertThat(CryoTestKit.json(browser.get("/items/a%20b+c")).get("id").asText())
        .isEqualTo("a b+c");
    assertThat(CryoTestKit.json(browser.get("/items/1/notes/2")).toString())
        .isEqualTo("[\"1\",\"2\"]");
    assertThat(browser.get("/").header("Content-Type")).isEqualTo("text/html; charset=utf-8");
    assertThat(CryoTestKit.json(browser.get("/query?q=a+b%21")).get("q").asText())
        .isEqualTo("a b!");
  }

  @Test
  void noRouteIs404AndAnotherMethodIs405WithAllow() {
    Response missing = browser.get("/nowhere");
    assertThat(missing.status()).isEqualTo(404);
    assertThat(CryoTestKit.json(missing).get("error").asText()).isEqualTo("not_found");
    Response wrongMethod = browser.send("PUT", "/items/1", null);
    assertThat(wrongMethod.status()).isEqualTo(405);
    assertThat(wrongMethod.header("Allow")).isEqualTo("GET, DELETE");
    assertThat(browser.send("DELETE", "/items/1", null).status()).isEqualTo(204);
    assertThat(browser.send("PURGE", "/cache", null).status()).isEqualTo(202);
  }

  @Test
  void headIsServedByGetWithoutABody() {
    Response head = browser.send("HEAD", "/", null);
    assertThat(head.status()).isEqualTo(200);
    assertThat(head.body()).isEmpty();
    assertThat(head.header("Content-Type")).startsWith("text/html");
  }

  @Test
  void aTypedBodyIsReadByJacksonAndABadOneIs400BeforeTheHandler() {
    assertThat(CryoTestKit.json(browser.post("/echo", Map.of("text", "ab", "times", 2,
        "unknown", true))).get("text").asText()).isEqualTo("abab");
    for (Object bad : new Object[] {null, "{not json", "null", "[1]"}) {
      Response reply = browser.post("/echo", bad);
      assertThat(reply.status()).as("body %s", bad).isEqualTo(400);
      assertThat(CryoTestKit.json(reply).get("error").asText()).isEqualTo("bad_request");
    }
  }

  @Test
  void aRefusalIsItsStatusAndAFailureIsAGeneric500() {
    Response refused = browser.post("/refuse");
    assertThat(refused.status()).isEqualTo(409);
    assertThat(CryoTestKit.json(refused).get("error").asText()).isEqualTo("taken");
    assertThat(CryoTestKit.json(refused).get("message").asText()).contains("taken");

    Response broken = browser.get("/broken");
    assertThat(broken.status()).isEqualTo(500);
    assertThat(broken.bodyText()).doesNotContain("disk");
    assertThat(browser.get("/unwritable").status()).isEqualTo(500);
  }

  @Test
  void aFailureThrowsInTheKitByDefault() {
    CryoTestKit strict = CryoTestKit.of(Routed::new);
    assertThatThrownBy(() -> strict.connect().get("/broken"))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("GET /broken")
        .hasRootCauseMessage("the disk said no");
  }

  @Test
  void moveRoutesAreListedByExactPath() {
    Dispatcher dispatcher = Dispatcher.of(new Routed());
    assertThat(dispatcher.moveRoutes()).containsExactly(List.of("POST", "/move"));
    assertThat(dispatcher.isMoveRoute("post", "/move")).isTrue();
    assertThat(dispatcher.isMoveRoute("POST", "/echo")).isFalse();
  }

  @Test
  void badDeclarationsAreRefusedSayingWhy() {
    assertThatThrownBy(() -> Dispatcher.of(routes -> routes.get("nope", call -> null)))
        .hasMessageContaining("starts with '/'");
    assertThatThrownBy(() -> Dispatcher.of(routes -> routes.get("/_cryo/status", call -> null)))
        .hasMessageContaining("/_cryo/");
    assertThatThrownBy(() -> Dispatcher.of(routes -> routes.get("/a/{x}", call -> null)
        .get("/a/{y}", call -> null))).hasMessageContaining("repeats GET /a/{x}");
    assertThatThrownBy(() -> Dispatcher.of(routes -> routes.move("/move/{to}", (c, m) -> null)))
        .hasMessageContaining("has parameters");
    assertThatThrownBy(() -> Dispatcher.of(routes -> routes.get("/a/{x", call -> null)))
        .hasMessageContaining("malformed segment");
  }

  @Test
  void aPathParameterTheRouteDoesNotNameIsRefused() {
    CryoTestKit strict = CryoTestKit.of(() -> routes -> routes.get("/a/{x}",
        call -> call.pathParameter("y")));
    assertThatThrownBy(() -> strict.connect().get("/a/1"))
        .hasRootCauseMessage("the route of /a/1 has no parameter {y}; it has [x]");
  }
}
