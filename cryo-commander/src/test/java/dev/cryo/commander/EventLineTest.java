package dev.cryo.commander;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cryo.control.RunHome;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EventLineTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void aLineIsWhatJacksonWritesForTheSameFieldsCharacterForCharacter() throws Exception {
    Random random = new Random(20261201);
    for (int i = 0; i < 20_000; i++) {
      Map<String, Object> fields = new LinkedHashMap<>();
      int count = random.nextInt(7);
      for (int f = 0; f < count; f++) {
        fields.put(text(random), value(random, 2));
      }
      String event = text(random);
      String at = Instant.ofEpochMilli(random.nextLong(4_000_000_000_000L)).toString();
      long n = random.nextLong();
      Map<String, Object> line = new LinkedHashMap<>();
      line.put("n", n);
      line.put("at", at);
      line.put("event", event);
      line.putAll(fields);
      if (line.size() != fields.size() + 3) {
        continue; // a random name equal to one of the three: the fallback's case, below
      }
      StringBuilder out = new StringBuilder();
      assertThat(EventLine.line(out, n, at, event, fields)).as("fields %s", fields).isTrue();
      assertThat(out.toString()).isEqualTo(JSON.writeValueAsString(line));
    }
  }

  @Test
  void valuesItDoesNotWriteAndTheLinesOwnNamesAreLeftToJackson(@TempDir Path dir)
      throws Exception {
    assertThat(EventLine.line(new StringBuilder(), 1, "t", "e", Map.of("x", 1.5))).isFalse();
    assertThat(EventLine.line(new StringBuilder(), 1, "t", "e", Map.of("x", List.of(Instant.EPOCH))))
        .isFalse();
    assertThat(EventLine.line(new StringBuilder(), 1, "t", "e", Map.of("n", 1))).isFalse();
    assertThat(EventLine.line(new StringBuilder(), 1, "t", "e", Map.of("x", Map.of(1, 2))))
        .isFalse();
    Clock clock = Clock.fixed(Instant.parse("2026-12-01T22:40:00.123Z"), ZoneOffset.UTC);
    try (RunHome home = RunHome.claim(dir, java.util.List.of());
        EventLog log = EventLog.open(home, clock, LogCaps.DEFAULTS)) {
      Map<String, Object> first = new LinkedHashMap<>();
      first.put("user", "a\"b\n");
      first.put("keys", List.of("k1", "k2"));
      log.record("fold", first);
      log.record("odd", Map.of("ratio", 0.25));
      Map<String, Object> named = new LinkedHashMap<>();
      named.put("x", 1);
      named.put("event", "inner");
      log.record("outer", named);
    }
    List<String> lines = Files.readAllLines(dir.resolve(EventLog.FILE_NAME),
        StandardCharsets.UTF_8);
    assertThat(lines).containsExactly(
        "{\"n\":1,\"at\":\"2026-12-01T22:40:00.123Z\",\"event\":\"fold\",\"user\":\"a\\\"b\\n\","
            + "\"keys\":[\"k1\",\"k2\"]}",
        "{\"n\":2,\"at\":\"2026-12-01T22:40:00.123Z\",\"event\":\"odd\",\"ratio\":0.25}",
        "{\"n\":3,\"at\":\"2026-12-01T22:40:00.123Z\",\"event\":\"inner\",\"x\":1}");
  }

  private static Object value(Random random, int depth) {
    int kind = random.nextInt(depth > 0 ? 9 : 7);
    return switch (kind) {
      case 0 -> null;
      case 1, 2 -> text(random);
      case 3 -> random.nextLong();
      case 4 -> random.nextInt();
      case 5 -> random.nextBoolean();
      case 6 -> new long[] {Long.MIN_VALUE, Long.MAX_VALUE, 0, -1}[random.nextInt(4)];
      case 7 -> {
        List<Object> items = new ArrayList<>();
        for (int i = random.nextInt(4); i > 0; i--) {
          items.add(value(random, depth - 1));
        }
        yield random.nextBoolean() ? items : List.copyOf(Arrays.asList(items.stream()
            .filter(item -> item != null).toArray()));
      }
      default -> {
        Map<String, Object> map = new LinkedHashMap<>();
        for (int i = random.nextInt(4); i > 0; i--) {
          map.put(text(random), value(random, depth - 1));
        }
        yield map;
      }
    };
  }

  /** Text with what a JSON string must escape: quotes, backslashes, controls, and beyond ASCII. */
  private static String text(Random random) {
    String[] pieces = {"a", "user-17", "\"", "\\", "\n", "\r", "\t", "\b", "\f", "\u0000",
        "\u001f", "\u007f", "/", "é", "\u2028", "\uD83D\uDE00", "\uD800", " ", "n", "at",
        "event", "worker_0001"};
    StringBuilder out = new StringBuilder();
    for (int i = random.nextInt(6); i > 0; i--) {
      out.append(pieces[random.nextInt(pieces.length)]);
    }
    return out.toString();
  }
}
