package dev.cryo.cli;

import static dev.cryo.cli.InProcess.cryo;
import static org.assertj.core.api.Assertions.assertThat;

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
}
