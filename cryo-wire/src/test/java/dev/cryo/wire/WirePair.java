package dev.cryo.wire;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;

/** A commander side and a worker side connected through a real Unix socket. */
final class WirePair implements AutoCloseable {

  static final Set<String> COMMANDER_CALLS = Set.of("present", "locate");
  static final Set<String> COMMANDER_EVENTS = Set.of("announce");
  static final Set<String> WORKER_CALLS = Set.of("http", "ping", "quit");
  static final Set<String> WORKER_EVENTS = Set.of("note");

  final WireListener listener;
  final RecordingHandler commanderHandler;
  final RecordingHandler workerHandler;
  final Wire commander;
  final Wire worker;

  WirePair(Path directory, RecordingHandler commanderHandler, RecordingHandler workerHandler,
      WireLimits limits) throws IOException {
    this.commanderHandler = commanderHandler;
    this.workerHandler = workerHandler;
    listener = WireListener.bind(directory.resolve("w.sock"));
    worker = Wire.open(Wire.connect(listener.path()), "worker", workerHandler, WORKER_CALLS,
        WORKER_EVENTS, limits);
    commander = Wire.open(listener.accept(Duration.ofSeconds(10)), "commander",
        commanderHandler, COMMANDER_CALLS, COMMANDER_EVENTS, limits);
  }

  WirePair(Path directory) throws IOException {
    this(directory, new RecordingHandler(), new RecordingHandler(), WireLimits.defaults());
  }

  @Override
  public void close() {
    commander.close();
    worker.close();
    listener.close();
  }
}
