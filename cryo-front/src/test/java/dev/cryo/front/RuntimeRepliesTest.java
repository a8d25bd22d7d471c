package dev.cryo.front;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cryo.commander.Reply;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A reply of the run's own as a client sees it: JSON for a client that speaks JSON (the error
 * body the hosts write: error, then message), plain text for one that asked for a page; the
 * advice once, nothing of the run.
 */
class RuntimeRepliesTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  private static Reply unreadable() {
    return new Reply(503, List.of(Map.entry("Content-Type", "text/plain; charset=utf-8"),
        Map.entry(Reply.RUNTIME_HEADER, "1"), Map.entry("Retry-After", "60"),
        Map.entry("Cryo-Reason", "unreadable_parcel")),
        ("Your saved state could not be read: written by state version 2 (com.example.Shop)."
            + " Try again once the application is upgraded ('cryo freezer ls'). Try again.\n")
            .getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void aClientThatSpeaksJsonGetsTheErrorBodyOfTheHostsWithTheAdviceOnce() throws Exception {
    Reply reply = RuntimeReplies.forClient(unreadable(),
        List.of(Map.entry("Accept", "application/json")));

    assertThat(reply.header("Content-Type")).startsWith("application/json");
    assertThat(reply.header("Retry-After")).isEqualTo("60");
    assertThat(reply.header("Cryo-Reason")).isEqualTo("unreadable_parcel");
    assertThat(reply.header(Reply.RUNTIME_HEADER)).isNull();
    JsonNode body = JSON.readTree(reply.body());
    assertThat(iterable(body.fieldNames())).containsExactly("error", "message");
    assertThat(body.get("error").asText()).isEqualTo("unreadable_parcel");
    String message = body.get("message").asText();
    assertThat(message).isEqualTo("your saved state could not be read by the version of the"
        + " application running now; it is kept as it was, nothing was lost: try again later");
    assertThat(message.split("try again", -1)).as("the advice, once").hasSize(2);
  }

  @Test
  void aClientWithoutAnAcceptGetsJsonAndABrowsersPageGetsText() throws Exception {
    Reply plain = RuntimeReplies.forClient(new Reply(503, List.of(
        Map.entry(Reply.RUNTIME_HEADER, "1"), Map.entry("Retry-After", "2")),
        "worker main_0002 died; /srv/run/freezer/guest_x".getBytes(StandardCharsets.UTF_8)),
        List.of());
    JsonNode body = JSON.readTree(plain.body());
    assertThat(body.get("error").asText()).isEqualTo("unavailable");
    assertThat(body.get("message").asText()).contains("try again in 2 s")
        .doesNotContain("main_0002", "freezer");

    Reply page = RuntimeReplies.forClient(unreadable(), List.of(Map.entry("accept",
        "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8")));
    assertThat(page.header("Content-Type")).startsWith("text/plain");
    assertThat(page.bodyText()).contains("Your saved state could not be read")
        .doesNotContain("com.example", "state version", "cryo freezer");
  }

  private static <T> Iterable<T> iterable(java.util.Iterator<T> iterator) {
    return () -> iterator;
  }
}
