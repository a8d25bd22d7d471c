package dev.cryo.cli;

import static dev.cryo.cli.InProcess.cryo;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cryo.cli.InProcess.Result;
import dev.cryo.control.RunDirectory;
import dev.cryo.control.RunState;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StopCommandTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path base;

  private Path running() throws Exception {
    Path home = base.resolve("run");
    RunDirectory.at(home).writeRunState(RunState.begin());
    return home;
  }

  private JsonNode status(Path home, int expected) throws Exception {
    Result result = cryo("stop", "--status", "--json", "--home", home.toString());
    assertThat(result.exitCode()).as(result.err()).isEqualTo(expected);
    assertThat(result.out().strip()).doesNotContain("\n");
    JsonNode node = JSON.readTree(result.out());
    List<String> names = new ArrayList<>();
    node.fieldNames().forEachRemaining(names::add);
    assertThat(names).containsExactly("stopRequest", "state", "mode", "invocation", "requestedAt",
        "currentInvocation", "appliesToCurrentRun", "problem");
    return node;
  }

  @Test
  void publishesOnceThenSaysItIsAlreadyThere() throws Exception {
    Path home = running();
    String id = RunDirectory.at(home).loadRunState().orElseThrow().invocationId();
    assertThat(status(home, 0).get("state").asText()).isEqualTo("none");

    Result first = cryo("stop", "--mode", "now", "--home", home.toString());
    assertThat(first.exitCode()).as(first.err()).isEqualTo(StopCommand.WRITTEN);
    assertThat(first.out()).isEqualTo("written: now stop requested for invocation " + id + "\n");

    Result second = cryo("stop", "--home", home.toString());
    assertThat(second.exitCode()).isEqualTo(StopCommand.ALREADY_THERE);
    assertThat(second.out()).startsWith("already_there: a now stop request");

    JsonNode node = status(home, 1);
    assertThat(node.get("state").asText()).isEqualTo("request");
    assertThat(node.get("mode").asText()).isEqualTo("now");
    assertThat(node.get("invocation").asText()).isEqualTo(id);
    assertThat(node.get("appliesToCurrentRun").asBoolean()).isTrue();
    assertThat(node.get("problem").isNull()).isTrue();
    assertThat(cryo("stop", "--status", "--home", home.toString()).out())
        .contains("now stop requested", "it applies to the current run");
  }

  @Test
  void anUnparseableRequestIsShownWithItsProblem() throws Exception {
    Path home = running();
    Files.writeString(home.resolve("stop-request"), "{\"schema\":\"cryo.stop/1\"}");
    JsonNode node = status(home, 2);
    assertThat(node.get("state").asText()).isEqualTo("unparseable");
    assertThat(node.get("mode").asText()).isEqualTo("drain");
    assertThat(node.get("problem").asText()).contains("lacks");
    assertThat(cryo("stop", "--home", home.toString()).exitCode())
        .isEqualTo(StopCommand.ALREADY_THERE);
  }

  @Test
  void aRunDirectoryOfAnotherUserIsRefusedWritingNothing() throws Exception {
    assumeTrue(ServeHomeTest.isRoot(),
        "needs root, to give the run directory to uid " + ServeHomeTest.NOBODY);
    Path home = running();
    Files.setAttribute(home, "unix:uid", ServeHomeTest.NOBODY);

    Result result = cryo("stop", "--home", home.toString());

    assertThat(result.exitCode()).as(result.err()).isEqualTo(65);
    assertThat(result.err()).contains("not_owned").contains("belongs to uid "
        + ServeHomeTest.NOBODY).contains("nothing was written");
    assertThat(home.resolve("stop-request")).doesNotExist();
  }

  @Test
  void refusedWithoutARunStateCreatingNothing() throws Exception {
    Path home = base.resolve("nothing-ran");
    Result result = cryo("stop", "--home", home.toString());
    assertThat(result.exitCode()).isEqualTo(ExitCodes.NO_INPUT);
    assertThat(result.err()).startsWith("cryo stop: no_run_state: ");
    assertThat(home).doesNotExist();
    assertThat(status(home, 0).get("state").asText()).isEqualTo("none");
  }

  @Test
  void aMalformedRunStateOrALinkedHomeIsRefusedAsData() throws Exception {
    Path home = running();
    Path linked = Files.createSymbolicLink(base.resolve("linked"), home);
    assertThat(cryo("stop", "--home", linked.toString()).exitCode()).isEqualTo(ExitCodes.DATA);
    Files.writeString(home.resolve("run.json"), "{}");
    Result result = cryo("stop", "--home", home.toString());
    assertThat(result.exitCode()).isEqualTo(ExitCodes.DATA);
    assertThat(result.err()).contains("malformed_run_state");
  }

  @Test
  void badModeAndJsonWithoutStatusAreUsageErrors() throws Exception {
    Path home = running();
    assertThat(cryo("stop", "--mode", "later", "--home", home.toString()).exitCode())
        .isEqualTo(ExitCodes.USAGE);
    assertThat(cryo("stop", "--json", "--home", home.toString()).exitCode())
        .isEqualTo(ExitCodes.USAGE);
    assertThat(home.resolve("stop-request")).doesNotExist();
  }

  @Test
  void theDefaultHomeComesFromTheEnvironment() {
    assertThat(StopCommand.defaultHome(Map.of("CRYO_HOME", "/a", "XDG_STATE_HOME", "/b")))
        .isEqualTo(Path.of("/a"));
    assertThat(StopCommand.defaultHome(Map.of("XDG_STATE_HOME", "/b")))
        .isEqualTo(Path.of("/b/cryo"));
    assertThat(StopCommand.defaultHome(Map.of()))
        .isEqualTo(Path.of(System.getProperty("user.home"), ".local/state/cryo"));
  }

  /**
   * Text quoted from a hostile file never reaches the terminal as a control character: escape
   * sequences (ESC, the 8-bit CSI), a bell, a carriage return, a backspace and a right-to-left
   * override, wherever the file puts them (a bad token, a field name, a value, run.json), as JSON
   * escapes or raw.
   */
  @Test
  void textQuotedFromAHostileFileCarriesNoControlCharacters() throws Exception {
    Path home = running();
    // As JSON escapes in the file: the parser turns them into the characters themselves.
    String escaped = "\\u001b]0;owned\\u0007\\u001b[2J\\u009b31m\\r\\b\\u202e\\u0085";
    // Raw in the file: not ASCII controls, so a parser reads them into a bad token.
    String raw = "\u009b31m\u202e\u0085\u2028";
    List<String> requests = List.of(
        "nonsense" + raw,
        "{\"schema\":\"cryo.stop/1\",\"" + escaped + "\":1}",
        "{\"schema\":\"" + escaped + "\",\"invocation_id\":\"x\",\"mode\":\"now\","
            + "\"requested_at\":\"x\"}",
        "{\"schema\":\"cryo.stop/1\",\"invocation_id\":\"" + "0".repeat(32) + "\",\"mode\":\""
            + escaped + "\",\"requested_at\":\"2026-01-01T00:00:00Z\"}",
        "{\"schema\":\"cryo.stop/1\",\"invocation_id\":\"" + "0".repeat(32) + "\",\"mode\":\""
            + "now\",\"requested_at\":\"" + escaped + "\"}");
    for (String request : requests) {
      Files.writeString(home.resolve("stop-request"), request);
      for (Result result : List.of(cryo("stop", "--status", "--home", home.toString()),
          cryo("stop", "--status", "--json", "--home", home.toString()),
          cryo("stop", "--home", home.toString()))) {
        assertThat(result.out() + result.err()).as(request).contains("stop-request");
        assertPrintable(result.out());
        assertPrintable(result.err());
      }
    }
    Files.delete(home.resolve("stop-request"));
    Files.writeString(home.resolve("run.json"), "{\"schema\":\"" + escaped + "\"}");
    Result refused = cryo("stop", "--home", home.toString());
    assertThat(refused.exitCode()).isEqualTo(ExitCodes.DATA);
    assertPrintable(refused.err());
    Files.writeString(home.resolve("run.json"), "nonsense" + raw);
    Result refusedRaw = cryo("stop", "--home", home.toString());
    assertThat(refusedRaw.exitCode()).isEqualTo(ExitCodes.DATA);
    assertPrintable(refusedRaw.err());
  }

  private static void assertPrintable(String output) {
    output.codePoints().forEach(point -> assertThat(point == '\n'
        || !(Character.isISOControl(point) || Character.getType(point) == Character.FORMAT
        || point == 0x2028 || point == 0x2029))
        .as("U+%04X in %s", point, output).isTrue());
  }
}
