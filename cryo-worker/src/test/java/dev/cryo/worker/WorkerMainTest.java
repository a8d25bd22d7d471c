package dev.cryo.worker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cryo.wire.Wire;
import dev.cryo.wire.WireHandler;
import dev.cryo.wire.WireLimits;
import dev.cryo.wire.WireListener;
import dev.cryo.wire.protocol.Methods;
import dev.cryo.wire.protocol.Presentation;
import dev.cryo.wire.protocol.ProtocolCodec;
import dev.cryo.wire.protocol.SpawnPayload;
import java.io.File;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The worker process ({@link WorkerMain}) in a real child JVM, facing a test that plays its
 * commander: it presents itself first, and a commander that turns hostile — or dies — ends it at
 * once, with nothing written to the freezer.
 */
class WorkerMainTest {

  @TempDir Path scratch;

  private Process start(SpawnPayload spawn) throws Exception {
    ProcessBuilder builder = new ProcessBuilder(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx64m",
        "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"),
        WorkerMain.class.getName())
        .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
        .redirectErrorStream(true).redirectOutput(scratch.resolve("worker.log").toFile());
    if (spawn != null) {
      builder.environment().put(SpawnPayload.ENVIRONMENT,
          new String(ProtocolCodec.write(spawn), StandardCharsets.UTF_8));
    }
    return builder.start();
  }

  @Test
  void theQuitsDeparturesAtOnceComeFromThePropertyWhenItIsAPositiveNumber() {
    assertThat(WorkerMain.quitDeparturesAtOnce(null))
        .isEqualTo(Worker.Builder.QUIT_DEPARTURES_AT_ONCE);
    assertThat(WorkerMain.quitDeparturesAtOnce("1")).isEqualTo(1);
    assertThat(WorkerMain.quitDeparturesAtOnce(" 8 ")).isEqualTo(8);
    assertThat(WorkerMain.quitDeparturesAtOnce("0"))
        .isEqualTo(Worker.Builder.QUIT_DEPARTURES_AT_ONCE);
    assertThat(WorkerMain.quitDeparturesAtOnce("four"))
        .isEqualTo(Worker.Builder.QUIT_DEPARTURES_AT_ONCE);
  }

  @Test
  void aSpawnPayloadThatDoesNotReadExits78() throws Exception {
    Process worker = start(null);
    assertThat(worker.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(worker.exitValue()).isEqualTo(78);
    assertThat(Files.readString(scratch.resolve("worker.log"))).contains("CRYO_WORKER_SPAWN");
  }

  @Test
  void itPresentsItselfFirstAndAHostileCommanderEndsItWithNothingWritten() throws Exception {
    Path socket = scratch.resolve("w.sock");
    Path freezer = scratch.resolve("freezer");
    SpawnPayload spawn = new SpawnPayload("w1", "main", socket.toString(), freezer.toString(),
        TallyApplication.class.getName(), null, 64L << 20, null);
    try (WireListener listener = WireListener.bind(socket)) {
      Process worker = start(spawn);
      try {
        SocketChannel channel = listener.accept(Duration.ofSeconds(60));
        CompletableFuture<Presentation> presented = new CompletableFuture<>();
        Wire wire = Wire.open(channel, "commander", new WireHandler() {
          @Override
          public byte[] onCall(String method, byte[] payload) {
            presented.complete(ProtocolCodec.read(payload, Presentation.class));
            return "{\"accepted\":true}".getBytes(StandardCharsets.UTF_8);
          }

          @Override
          public void onEvent(String method, byte[] payload) {}

          @Override
          public void onClosed(String reason) {}
        }, Methods.COMMANDER_CALLS, Methods.COMMANDER_EVENTS, WireLimits.defaults());
        Presentation presentation = presented.get(60, TimeUnit.SECONDS);
        assertThat(presentation.name()).isEqualTo("w1");
        assertThat(presentation.pid()).isEqualTo(worker.pid());
        assertThat(presentation.spawn()).isEqualTo(spawn);
        assertThat(presentation.photo().state()).isEqualTo("running");

        channel.write(ByteBuffer.wrap("GARBAGE, NOT A FRAME".getBytes(StandardCharsets.US_ASCII)));

        assertThat(worker.waitFor(60, TimeUnit.SECONDS)).as("the worker exits").isTrue();
        assertThat(worker.exitValue()).isEqualTo(0);
        wire.close();
      } finally {
        worker.destroyForcibly();
      }
    }
    try (Stream<Path> files = Files.exists(freezer) ? Files.walk(freezer) : Stream.empty()) {
      assertThat(files.filter(Files::isRegularFile).toList()).as("the freezer").isEmpty();
    }
    assertThat(List.of(Files.readString(scratch.resolve("worker.log"))).get(0))
        .contains("bad_magic");
  }
}
