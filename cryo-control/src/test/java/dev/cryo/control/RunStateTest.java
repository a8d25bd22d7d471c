package dev.cryo.control;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cryo.control.ControlException.Reason;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.OffsetDateTime;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class RunStateTest {

  static final String ID = "0123456789abcdef0123456789abcdef";

  @TempDir Path base;

  @Test
  void aRunHasAFreshRandomInvocationIdAndNoEndWhileRunning() {
    RunState one = RunState.begin();
    RunState two = RunState.begin();
    assertThat(one.invocationId()).matches("[0-9a-f]{32}").isNotEqualTo(two.invocationId());
    assertThat(one.pid()).isEqualTo(ProcessHandle.current().pid());
    assertThat(one.hasEnded()).isFalse();
    String json = new String(one.toJson(), StandardCharsets.UTF_8);
    assertThat(json).contains("\"schema\" : \"cryo.run/1\"").doesNotContain("ended_at");
  }

  @Test
  void writtenWholeAndReadBack() throws IOException {
    RunDirectory directory = RunDirectory.at(base.resolve("run"));
    assertThat(directory.loadRunState()).isEmpty();
    RunState state = RunState.begin();
    directory.writeRunState(state);
    assertThat(directory.loadRunState()).contains(state);
    RunState ended = state.endedAt(state.startedAt().plusSeconds(5));
    directory.writeRunState(ended);
    assertThat(directory.loadRunState()).contains(ended);
    try (var entries = Files.list(base.resolve("run"))) {
      assertThat(entries.map(p -> p.getFileName().toString())).containsExactly("run.json");
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {
      // duplicate key
      "{\"schema\":\"cryo.run/1\",\"invocation_id\":\"" + ID + "\",\"pid\":1,\"pid\":2,"
          + "\"started_at\":\"2026-01-01T00:00:00Z\"}",
      // unknown field
      "{\"schema\":\"cryo.run/1\",\"invocation_id\":\"" + ID + "\",\"pid\":1,"
          + "\"started_at\":\"2026-01-01T00:00:00Z\",\"extra\":1}",
      // missing field
      "{\"schema\":\"cryo.run/1\",\"invocation_id\":\"" + ID + "\",\"pid\":1}",
      // NaN
      "{\"schema\":\"cryo.run/1\",\"invocation_id\":\"" + ID + "\",\"pid\":NaN,"
          + "\"started_at\":\"2026-01-01T00:00:00Z\"}",
      // pid as a string, as a float, as a boolean
      "{\"schema\":\"cryo.run/1\",\"invocation_id\":\"" + ID + "\",\"pid\":\"1\","
          + "\"started_at\":\"2026-01-01T00:00:00Z\"}",
      "{\"schema\":\"cryo.run/1\",\"invocation_id\":\"" + ID + "\",\"pid\":1.0,"
          + "\"started_at\":\"2026-01-01T00:00:00Z\"}",
      "{\"schema\":\"cryo.run/1\",\"invocation_id\":\"" + ID + "\",\"pid\":true,"
          + "\"started_at\":\"2026-01-01T00:00:00Z\"}",
      // upper-case id, wrong schema, timestamp without zone, trailing tokens
      "{\"schema\":\"cryo.run/1\",\"invocation_id\":\"" + "0123456789ABCDEF0123456789ABCDEF"
          + "\",\"pid\":1,\"started_at\":\"2026-01-01T00:00:00Z\"}",
      "{\"schema\":\"cryo.run/2\",\"invocation_id\":\"" + ID + "\",\"pid\":1,"
          + "\"started_at\":\"2026-01-01T00:00:00Z\"}",
      "{\"schema\":\"cryo.run/1\",\"invocation_id\":\"" + ID + "\",\"pid\":1,"
          + "\"started_at\":\"2026-01-01T00:00:00\"}",
      "{\"schema\":\"cryo.run/1\",\"invocation_id\":\"" + ID + "\",\"pid\":1,"
          + "\"started_at\":\"2026-01-01T00:00:00Z\"} {}",
      "[]",
  })
  void readStrictly(String document) throws IOException {
    Path run = Files.createDirectory(base.resolve("run"));
    Files.writeString(run.resolve("run.json"), document);
    assertThatThrownBy(() -> RunDirectory.at(run).loadRunState())
        .isInstanceOfSatisfying(ControlException.class,
            e -> assertThat(e.reason()).isEqualTo(Reason.MALFORMED_RUN_STATE))
        .hasMessageContaining("does not load");
  }

  @Test
  void theStrictReaderAcceptsTheCanonicalForm() throws IOException {
    Path run = Files.createDirectory(base.resolve("run"));
    Files.writeString(run.resolve("run.json"), "{\"schema\":\"cryo.run/1\",\"invocation_id\":\""
        + ID + "\",\"pid\":7,\"started_at\":\"2026-01-01T00:00:00+01:00\"}");
    assertThat(RunDirectory.at(run).loadRunState()).contains(
        new RunState(ID, 7, OffsetDateTime.parse("2026-01-01T00:00:00+01:00"), null));
  }

  @Test
  void aRunStateThatIsNotARegularFileDoesNotLoad() throws Exception {
    Path run = Files.createDirectory(base.resolve("run"));
    SafeRootTest.mkfifo(run.resolve("run.json"));
    assertThatThrownBy(() -> RunDirectory.at(run).loadRunState())
        .isInstanceOfSatisfying(ControlException.class,
            e -> assertThat(e.reason()).isEqualTo(Reason.MALFORMED_RUN_STATE))
        .hasMessageContaining("a FIFO");
  }
}
