package dev.cryo.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link Call#pages()} lists the connection's open pages; {@link Call#closePage} closes one for
 * good from the server: its hook runs, a later call on it is the documented {@code 404
 * unknown_page}, the connection and its user stay.
 */
class PagesTest {

  /** The pages {@link Tabs#onPageClosed} heard, in order. */
  static final List<String> CLOSED = new ArrayList<>();

  record Note(String text) {}

  record Visits(long count) {}

  /** Opens, lists, closes and reads pages. */
  static final class Tabs implements CryoApplication {
    @Override
    public void routes(Routes routes) {
      routes.post("/open", call -> {
        String page = call.openPage();
        call.page(page, Note.class).set(new Note("on " + page));
        return Map.of("page", page);
      });
      routes.get("/pages", call -> Map.of("pages", call.pages()));
      routes.post("/close", call -> Map.of("closed", call.closePage(call.query("page")),
          "pages", call.pages(), "has", call.hasPage(call.query("page"))));
      routes.get("/note", call -> call.page(call.query("page"), Note.class).get());
      routes.post("/visit", call -> call.user(Visits.class).update(v -> new Visits(v.count() + 1)));
    }

    @Override
    public void onPageClosed(Stay stay, String pageId) {
      CLOSED.add(pageId);
    }
  }

  @BeforeEach
  void clear() {
    CLOSED.clear();
  }

  private static String open(CryoTestKit.Connection browser) {
    return CryoTestKit.json(browser.post("/open")).get("page").asText();
  }

  private static List<String> pages(Response reply) {
    List<String> out = new ArrayList<>();
    CryoTestKit.json(reply).get("pages").forEach(page -> out.add(page.asText()));
    return out;
  }

  @Test
  void aCallListsItsConnectionsOpenPagesSortedById() {
    CryoTestKit kit = CryoTestKit.of(Tabs::new).freezeBetweenCalls(true);
    CryoTestKit.Connection browser = kit.connect();
    assertThat(pages(browser.get("/pages"))).isEmpty();
    String first = open(browser);
    String second = open(browser);
    String elsewhere = open(kit.connect());

    assertThat(pages(browser.get("/pages"))).containsExactly(first, second)
        .doesNotContain(elsewhere).isSorted();
  }

  /** Past {@link Call#MAX_PAGES_PER_CONNECTION} an open is refused 429; a close makes room. */
  @Test
  void aConnectionOpensAtMostTheLimitOfPages() {
    CryoTestKit kit = CryoTestKit.of(Tabs::new);
    CryoTestKit.Connection browser = kit.connect();
    String first = open(browser);
    for (int i = 1; i < Call.MAX_PAGES_PER_CONNECTION; i++) {
      open(browser);
    }
    Response refused = browser.post("/open");
    assertThat(refused.status()).as(refused.bodyText()).isEqualTo(429);
    assertThat(CryoTestKit.json(refused).get("error").asText()).isEqualTo("too_many_pages");
    assertThat(pages(browser.get("/pages"))).hasSize(Call.MAX_PAGES_PER_CONNECTION);
    assertThat(open(kit.connect())).as("another connection's own limit").isNotBlank();
    browser.post("/close?page=" + first);
    assertThat(open(browser)).isNotBlank();
  }

  @Test
  void aClosedPageRunsItsHookAndIsUnknownFromThenOn() {
    CryoTestKit kit = CryoTestKit.of(Tabs::new).freezeBetweenCalls(true);
    CryoTestKit.Connection browser = kit.connect();
    String first = open(browser);
    String second = open(browser);

    Response closed = browser.post("/close?page=" + first);
    assertThat(CryoTestKit.json(closed).get("closed").asBoolean()).isTrue();
    assertThat(CryoTestKit.json(closed).get("has").asBoolean()).isFalse();
    assertThat(pages(closed)).containsExactly(second);
    assertThat(CLOSED).containsExactly(first);

    Response later = browser.get("/note?page=" + first);
    assertThat(later.status()).isEqualTo(404);
    assertThat(CryoTestKit.json(later).get("error").asText()).isEqualTo("unknown_page");
    assertThat(CryoTestKit.json(browser.get("/note?page=" + second)).get("text").asText())
        .isEqualTo("on " + second);

    Response again = browser.post("/close?page=" + first);
    assertThat(CryoTestKit.json(again).get("closed").asBoolean()).as("closed once").isFalse();
    assertThat(CLOSED).containsExactly(first);
  }

  @Test
  void aPageOfAnotherConnectionIsNotClosed() {
    CryoTestKit kit = CryoTestKit.of(Tabs::new);
    CryoTestKit.Connection browser = kit.connect();
    CryoTestKit.Connection other = kit.connect();
    String theirs = open(other);
    open(browser);

    assertThat(CryoTestKit.json(browser.post("/close?page=" + theirs)).get("closed").asBoolean())
        .isFalse();
    assertThat(CryoTestKit.json(browser.post("/close?page=nothing")).get("closed").asBoolean())
        .isFalse();
    assertThat(CLOSED).isEmpty();
    assertThat(other.get("/note?page=" + theirs).status()).isEqualTo(200);
  }

  @Test
  void closingTheLastPageKeepsTheConnectionAndItsUser() {
    CryoTestKit kit = CryoTestKit.of(Tabs::new).freezeBetweenCalls(true);
    CryoTestKit.Connection browser = kit.connect();
    browser.post("/visit");
    String only = open(browser);
    String user = browser.user();

    assertThat(pages(browser.post("/close?page=" + only))).isEmpty();
    assertThat(browser.user()).isEqualTo(user);
    assertThat(kit.users()).contains(user);
    assertThat(CryoTestKit.json(browser.post("/visit")).get("count").asLong()).isEqualTo(2);
  }
}
