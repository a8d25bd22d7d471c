package dev.cryo.chaos.check;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Reading the run's event logs: what is kept, what is skipped, what is refused. */
class EventLogTest {

  @TempDir
  Path directory;

  private Path file(String name, String... lines) throws IOException {
    Path file = directory.resolve(name);
    Files.writeString(file, String.join("\n", lines) + "\n");
    return file;
  }

  @Test
  void keepsTheLinesThatNameLossesExpiriesAndDropsInFileOrder() throws IOException {
    Path first = file("events.previous.jsonl",
        "{\"n\":1,\"at\":\"2026-12-06T17:37:49.431834111Z\",\"event\":\"worker_spawned\","
            + "\"worker\":\"w1\",\"attempt\":1,\"pid\":4717}",
        "{\"n\":2,\"at\":\"2026-12-06T17:37:50.000Z\",\"event\":\"worker_died\",\"worker\":\"w1\","
            + "\"reason\":\"killed\",\"lost\":[\"anna\",\"guest_x\"]}",
        "",
        "{\"n\":3,\"at\":\"2026-12-06T17:37:51Z\",\"event\":\"fold\",\"worker\":\"w2\",\"seq\":4,"
            + "\"kind\":\"drop_user\",\"user\":\"bob\",\"keys\":[\"bob\"],\"detail\":null}",
        "{\"n\":4,\"at\":\"2026-12-06T17:37:52Z\",\"event\":\"fold\",\"worker\":\"w2\",\"seq\":5,"
            + "\"kind\":\"new_user\",\"user\":\"carl\",\"keys\":[\"carl\"],\"detail\":null}");
    Path second = file("events.jsonl",
        "{\"n\":1,\"at\":\"2026-12-06T17:38:00Z\",\"event\":\"adopted\",\"cause\":\"journal\","
            + "\"frozen\":3,\"connections\":4,\"pages\":5,\"lost\":[\"dora\"]}",
        "{\"n\":2,\"at\":\"2026-12-06T17:38:01Z\",\"event\":\"user_expired\",\"user\":\"eve\","
            + "\"connections\":1,\"message\":\"past her time\"}",
        "{\"n\":3,\"at\":\"2026-12-06T17:38:02Z\",\"event\":\"anomaly\",\"worker\":\"w1\","
            + "\"seq\":null,\"message\":\"an announcement was lost\"}");
    EventLog log = EventLog.read(List.of(first, second));
    assertThat(log.events()).extracting(Event::type)
        .containsExactly("worker_died", "fold", "adopted", "user_expired"); // not the rest
    assertThat(log.events().get(0).names("lost")).containsExactly("anna", "guest_x");
    assertThat(log.events().get(0).atMillis())
        .isEqualTo(Instant.parse("2026-12-06T17:37:50Z").toEpochMilli());
    assertThat(log.events().get(1).names("lost")).isNull();
    assertThat(log.events().get(1).text("kind")).isEqualTo("drop_user");
    assertThat(log.tornLines()).isZero();
  }

  @Test
  void aTornLastLineIsSkippedAndCounted() throws IOException {
    Path killed = file("events.jsonl",
        "{\"n\":1,\"at\":\"2026-12-06T17:38:00Z\",\"event\":\"worker_died\",\"lost\":[\"a\"]}",
        "{\"n\":2,\"at\":\"2026-12-06T17:38:01Z\",\"event\":\"worker_died\",\"lost\":[\"b");
    EventLog log = EventLog.read(List.of(killed));
    assertThat(log.events()).hasSize(1);
    assertThat(log.tornLines()).isEqualTo(1);
  }

  @Test
  void aBrokenLineBeforeTheEndIsRefusedWithItsFileAndNumber() throws IOException {
    Path broken = file("events.jsonl",
        "{\"n\":1,\"at\":\"2026-12-06T17:38:00Z\",\"event\":\"worker_died\",\"lost\":[\"a\"",
        "{\"n\":2,\"at\":\"2026-12-06T17:38:01Z\",\"event\":\"sweep\",\"swept\":0}");
    assertThatThrownBy(() -> EventLog.read(List.of(broken))).isInstanceOf(IOException.class)
        .hasMessageContaining("events.jsonl line 1 is not an event");
    Path badInstant = file("bad.jsonl",
        "{\"n\":1,\"at\":\"yesterday\",\"event\":\"worker_died\",\"lost\":[\"a\"]}",
        "{\"n\":2,\"at\":\"2026-12-06T17:38:01Z\",\"event\":\"sweep\",\"swept\":0}");
    assertThatThrownBy(() -> EventLog.read(List.of(badInstant))).isInstanceOf(IOException.class)
        .hasMessageContaining("bad.jsonl line 1").hasMessageContaining("ISO-8601");
  }

  @Test
  void aMissingFileIsAnError() {
    assertThatThrownBy(() -> EventLog.read(List.of(directory.resolve("none.jsonl"))))
        .isInstanceOf(IOException.class);
  }

  @Test
  void parsedEventsKeepTheirFields() throws IOException {
    Event event = Event.parse("{\"n\":7,\"at\":\"2026-12-06T17:38:01Z\",\"event\":\"shrunk\","
        + "\"worker\":\"w3\",\"lost\":[\"a\",3,\"b\"],\"later\":{\"x\":1}}");
    assertThat(event.number()).isEqualTo(7);
    assertThat(event.type()).isEqualTo("shrunk");
    assertThat(event.text("worker")).isEqualTo("w3");
    assertThat(event.names("lost")).containsExactly("a", "b");
    assertThatThrownBy(() -> Event.parse("[1,2]")).isInstanceOf(IOException.class);
    assertThatThrownBy(() -> Event.parse("{\"at\":\"2026-12-06T17:38:01Z\"}"))
        .isInstanceOf(IOException.class);
  }
}
