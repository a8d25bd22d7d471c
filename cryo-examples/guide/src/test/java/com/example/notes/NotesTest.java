package com.example.notes;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cryo.app.CryoTestKit;
import dev.cryo.app.Response;
import java.util.Map;
import org.junit.jupiter.api.Test;

class NotesTest {

  // a freeze, and a wake in a new instance, after every call: what a move to another worker does
  CryoTestKit kit = CryoTestKit.of(Notes::new).freezeBetweenCalls(true);

  @Test
  void aNoteIsKeptAndPushedToEveryTabOfTheUser() {
    CryoTestKit.Connection browser = kit.connect();
    String first = CryoTestKit.json(browser.post("/api/pages")).get("page").asText();
    String second = CryoTestKit.json(browser.post("/api/pages")).get("page").asText();

    Response added = browser.post("/api/notes", Map.of("text", "buy milk"));

    assertThat(added.status()).isEqualTo(200);
    JsonNode shown = CryoTestKit.json(browser.get("/api/notes"));
    assertThat(shown.get("notes").get(0).get("text").asText()).isEqualTo("buy milk");
    assertThat(kit.pushes()).extracting(CryoTestKit.KitPush::page)
        .containsExactlyInAnyOrder(first, second);
  }

  @Test
  void anEmptyNoteIsRefused() {
    Response refused = kit.connect().post("/api/notes", Map.of("text", " "));

    assertThat(refused.status()).isEqualTo(400);
    assertThat(CryoTestKit.json(refused).get("error").asText()).isEqualTo("empty_note");
  }

  @Test
  void aDraftBelongsToItsTabAndAThemeToItsBrowser() {
    CryoTestKit.Connection browser = kit.connect();
    String tab = CryoTestKit.json(browser.post("/api/pages")).get("page").asText();
    String other = CryoTestKit.json(browser.post("/api/pages")).get("page").asText();
    browser.post("/api/draft", Map.of("page", tab, "text", "half a thought"));
    browser.post("/api/theme", Map.of("name", "dark"));

    assertThat(CryoTestKit.json(browser.get("/api/draft?page=" + tab)).get("text").asText())
        .isEqualTo("half a thought");
    assertThat(CryoTestKit.json(browser.get("/api/draft?page=" + other)).get("text").isNull())
        .isTrue();
    assertThat(CryoTestKit.json(kit.connect().get("/api/notes")).get("theme").isNull())
        .as("another browser").isTrue();
    assertThat(CryoTestKit.json(browser.get("/api/notes")).get("theme").asText())
        .isEqualTo("dark");
  }

  @Test
  void aGuestsNotesFollowHimIntoHisAccount() {
    CryoTestKit.Connection browser = kit.connect();
    browser.post("/api/notes", Map.of("text", "written as a guest"));

    JsonNode after = CryoTestKit.json(browser.post("/api/login", Map.of("user", "ada")));

    assertThat(after.get("user").asText()).isEqualTo("ada");
    assertThat(after.get("notes").get(0).get("text").asText()).isEqualTo("written as a guest");
  }

  @Test
  void version2ReadsTheNotesVersion1Froze() {
    CryoTestKit old = CryoTestKit.of(NotesV1::new);
    CryoTestKit.Connection browser = old.connect();
    browser.post("/api/notes", Map.of("text", "from version 1"));

    old.upgradeTo(Notes::new);                          // every user frozen by version 1

    JsonNode shown = CryoTestKit.json(browser.get("/api/notes"));
    assertThat(shown.get("notes").get(0).get("text").asText()).isEqualTo("from version 1");
  }
}
