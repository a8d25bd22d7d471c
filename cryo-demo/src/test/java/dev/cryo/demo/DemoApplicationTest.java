package dev.cryo.demo;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cryo.app.CryoTestKit;
import dev.cryo.app.Response;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The demo's JSON API as docs/demo.md documents it, run by the test kit with a freeze and a wake
 * in a new instance between every call: nothing it keeps may depend on staying in memory.
 */
class DemoApplicationTest {

  CryoTestKit kit;
  CryoTestKit.Connection browser;

  @BeforeEach
  void setUp() {
    kit = CryoTestKit.of(DemoApplication::new).freezeBetweenCalls(true);
    browser = kit.connect();
  }

  private static JsonNode ok(Response response) {
    assertThat(response.status()).as(response.bodyText()).isEqualTo(200);
    assertThat(response.header("Content-Type")).isEqualTo("application/json");
    return CryoTestKit.json(response);
  }

  private static List<String> fields(JsonNode node) {
    List<String> names = new ArrayList<>();
    node.fieldNames().forEachRemaining(names::add);
    return names;
  }

  private static void refused(Response response, int status, String error) {
    assertThat(response.status()).as(response.bodyText()).isEqualTo(status);
    JsonNode body = CryoTestKit.json(response);
    assertThat(body.get("error").asText()).isEqualTo(error);
    assertThat(body.get("message").asText()).isNotBlank();
  }

  private String openPage(CryoTestKit.Connection connection) {
    return ok(connection.post("/api/pages")).get("page").asText();
  }

  @Test
  void theHtmlPageIsServedSelfContainedButForCryosOwnClient() {
    Response page = browser.get("/");
    assertThat(page.status()).isEqualTo(200);
    assertThat(page.header("Content-Type")).isEqualTo("text/html; charset=utf-8");
    String html = page.bodyText();
    assertThat(html).contains("/api/pages", "/api/counter", "/api/state", "/api/notes",
        "/api/login", "/api/move", "Move me");
    // the one resource it loads is the browser client cryo's front serves (docs/client.md)
    String withoutClient = html.replace("<script src=\"/_cryo/cryo.js\"></script>", "");
    assertThat(withoutClient).isNotEqualTo(html);
    assertThat(withoutClient).doesNotContain("http://", "https://", "<link", "src=\"");
  }

  @Test
  void postPagesOpensAPage() {
    JsonNode opened = ok(browser.post("/api/pages"));
    assertThat(fields(opened)).containsExactly("page", "worker");
    assertThat(opened.get("page").asText()).isNotBlank();
    assertThat(opened.get("worker").asText()).isNotBlank();
    assertThat(ok(browser.post("/api/pages")).get("page").asText())
        .isNotEqualTo(opened.get("page").asText());
  }

  /**
   * A connection has at most {@link dev.cryo.app.Call#MAX_PAGES_PER_CONNECTION} pages: past it the
   * demo closes its oldest page to open the new one, so a browser reloading for ever (or a loop)
   * keeps a bounded number of pages, and the newest ones keep their state.
   */
  @Test
  void pastTheLimitOfPagesTheOldestIsClosed() {
    CryoTestKit quick = CryoTestKit.of(DemoApplication::new);
    CryoTestKit.Connection reloader = quick.connect();
    int limit = dev.cryo.app.Call.MAX_PAGES_PER_CONNECTION;
    String first = openPage(reloader);
    ok(reloader.post("/api/counter", Map.of("page", first)));
    String second = openPage(reloader);
    ok(reloader.post("/api/counter", Map.of("page", second)));
    for (int i = 2; i < limit; i++) {
      openPage(reloader);
    }
    ok(reloader.get("/api/state?page=" + first)); // the limit reached, not passed: all open
    String newest = openPage(reloader);
    refused(reloader.get("/api/state?page=" + first), 404, "unknown_page");
    assertThat(ok(reloader.get("/api/state?page=" + second)).get("pageCounter").asLong())
        .isEqualTo(1);
    assertThat(ok(reloader.post("/api/counter", Map.of("page", newest))).get("pageCounter")
        .asLong()).isEqualTo(1);
  }

  @Test
  void postCounterAddsOneToTheUserAndToThePage() {
    String one = openPage(browser);
    String two = openPage(browser);
    ok(browser.post("/api/counter", Map.of("page", one)));
    JsonNode counted = ok(browser.post("/api/counter", Map.of("page", two)));

    assertThat(fields(counted)).containsExactly("user", "counter", "pageCounter", "worker");
    assertThat(counted.get("user").asText()).isEqualTo(browser.user()).startsWith("guest_");
    assertThat(counted.get("counter").asLong()).isEqualTo(2);
    assertThat(counted.get("pageCounter").asLong()).isEqualTo(1);
  }

  @Test
  void getStateGivesTheSameFieldsAndTheNotes() {
    String page = openPage(browser);
    ok(browser.post("/api/counter", Map.of("page", page)));
    ok(browser.post("/api/notes", Map.of("page", page, "text", "  first  ")));

    JsonNode state = ok(browser.get("/api/state?page=" + page));
    assertThat(fields(state)).containsExactly("user", "counter", "pageCounter", "worker",
        "notes");
    assertThat(state.get("counter").asLong()).isEqualTo(1);
    assertThat(state.get("pageCounter").asLong()).isEqualTo(1);
    assertThat(state.get("notes").toString()).isEqualTo("[\"first\"]");

    JsonNode pageless = ok(browser.get("/api/state"));
    assertThat(pageless.get("counter").asLong()).isEqualTo(1);
    assertThat(pageless.get("pageCounter").isNull()).isTrue();
    assertThat(pageless.get("notes").isNull()).isTrue();
  }

  @Test
  void postNotesAppendsAndKeepsTheLastHundred() {
    String page = openPage(browser);
    JsonNode notes = ok(browser.post("/api/notes", Map.of("page", page, "text", "a")));
    assertThat(fields(notes)).containsExactly("notes");
    assertThat(notes.get("notes").toString()).isEqualTo("[\"a\"]");

    CryoTestKit quick = CryoTestKit.of(DemoApplication::new);
    CryoTestKit.Connection writer = quick.connect();
    String full = openPage(writer);
    for (int i = 0; i < DemoApplication.MAX_NOTES + 3; i++) {
      ok(writer.post("/api/notes", Map.of("page", full, "text", "n" + i)));
    }
    JsonNode kept = ok(writer.get("/api/state?page=" + full)).get("notes");
    assertThat(kept.size()).isEqualTo(DemoApplication.MAX_NOTES);
    assertThat(kept.get(0).asText()).isEqualTo("n3");
  }

  @Test
  void badRequestsAreRefusedWithTheirErrors() {
    String page = openPage(browser);
    refused(browser.post("/api/counter", Map.of()), 400, "bad_request");
    refused(browser.post("/api/counter"), 400, "bad_request");
    refused(browser.post("/api/counter", "{not json"), 400, "bad_request");
    refused(browser.post("/api/counter", Map.of("page", "nope")), 404, "unknown_page");
    refused(browser.get("/api/state?page=nope"), 404, "unknown_page");
    refused(browser.post("/api/notes", Map.of("page", page, "text", "   ")), 400, "bad_note");
    refused(browser.post("/api/notes", Map.of("page", page, "text", "x".repeat(501))), 400,
        "bad_note");
    refused(browser.post("/api/notes", Map.of("text", "x")), 400, "bad_request");
    refused(browser.post("/api/login", Map.of("user", "guest_x")), 400, "bad_user");
    refused(browser.post("/api/login", Map.of("user", "a b")), 400, "bad_user");
    refused(browser.post("/api/login", Map.of()), 400, "bad_request");
    refused(browser.post("/api/login", Map.of("user", "anna", "page", "nope")), 404,
        "unknown_page");
    refused(browser.get("/api/nothing"), 404, "not_found");
    refused(browser.get("/api/counter"), 405, "method_not_allowed");
    // Nothing of it changed anything.
    JsonNode state = ok(browser.get("/api/state?page=" + page));
    assertThat(state.get("counter").asLong()).isZero();
    assertThat(state.get("notes").size()).isZero();
    assertThat(state.get("user").asText()).startsWith("guest_");
  }

  @Test
  void aPageOfAnotherConnectionIsUnknownToIt() {
    String page = openPage(browser);
    CryoTestKit.Connection stranger = kit.connect();
    refused(stranger.post("/api/counter", Map.of("page", page)), 404, "unknown_page");
    refused(stranger.post("/api/notes", Map.of("page", page, "text", "x")), 404, "unknown_page");
    assertThat(ok(browser.get("/api/state?page=" + page)).get("pageCounter").asLong()).isZero();
  }

  @Test
  void aGuestsCounterAndNotesFollowHimIntoHisFirstIdentity() {
    String page = openPage(browser);
    ok(browser.post("/api/counter", Map.of("page", page)));
    ok(browser.post("/api/counter", Map.of("page", page)));
    ok(browser.post("/api/notes", Map.of("page", page, "text", "mine")));

    JsonNode login = ok(browser.post("/api/login", Map.of("user", "anna", "page", page)));

    assertThat(fields(login)).containsExactly("user", "counter", "pageCounter", "worker",
        "notes");
    assertThat(login.get("user").asText()).isEqualTo("anna");
    assertThat(login.get("counter").asLong()).isEqualTo(2);
    assertThat(login.get("pageCounter").asLong()).isEqualTo(2);
    assertThat(login.get("notes").toString()).isEqualTo("[\"mine\"]");
  }

  @Test
  void anIdentityThatExistsKeepsItsOwnCounter() {
    String annasPage = openPage(browser);
    ok(browser.post("/api/login", Map.of("user", "anna")));
    ok(browser.post("/api/counter", Map.of("page", annasPage)));

    CryoTestKit.Connection other = kit.connect();
    String page = openPage(other);
    for (int i = 0; i < 5; i++) {
      ok(other.post("/api/counter", Map.of("page", page)));
    }
    ok(other.post("/api/notes", Map.of("page", page, "text", "from the guest")));
    Response login = other.post("/api/login", Map.of("user", "anna", "page", page));

    // anna is frozen between calls here, so she lives elsewhere: the reply is a redirect to the
    // state, served once the connection joined her.
    assertThat(login.status()).isEqualTo(303);
    assertThat(login.header("Location")).isEqualTo("/api/state?page=" + page);
    JsonNode state = ok(other.get(login.header("Location")));
    assertThat(state.get("user").asText()).isEqualTo("anna");
    assertThat(state.get("counter").asLong()).isEqualTo(1); // hers, not the guest's 5
    assertThat(state.get("pageCounter").asLong()).isEqualTo(5); // the page came along
    assertThat(state.get("notes").toString()).isEqualTo("[\"from the guest\"]");
  }

  @Test
  void postMoveAnswersWhereFromAndWhereToOrWhyNot() {
    String page = openPage(browser);
    ok(browser.post("/api/counter", Map.of("page", page)));
    JsonNode moved = ok(browser.post("/api/move"));
    assertThat(fields(moved)).containsExactly("from", "to");
    assertThat(moved.get("to").asText()).isNotEqualTo(moved.get("from").asText());
    assertThat(ok(browser.get("/api/state?page=" + page)).get("counter").asLong()).isEqualTo(1);

    kit.refuseMoves("no_other_worker");
    Response refused = browser.post("/api/move");
    assertThat(refused.status()).isEqualTo(409);
    JsonNode body = CryoTestKit.json(refused);
    assertThat(fields(body)).containsExactly("error", "reason", "message");
    assertThat(body.get("error").asText()).isEqualTo("move_refused");
    assertThat(body.get("reason").asText()).isEqualTo("no_other_worker");
  }
}
