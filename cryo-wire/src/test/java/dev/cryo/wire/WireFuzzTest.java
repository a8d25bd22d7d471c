package dev.cryo.wire;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Random bytes and mutated valid frames thrown at both ends of a wire by a raw socket. Each run of
 * input must end that one wire cleanly (one onClosed, a reason with a known code, never a failure
 * of the reader itself), while a second, healthy wire keeps serving. Seeded: a failure names the
 * seed that reproduces it. Bounded: about two seconds per end.
 */
@Timeout(120)
class WireFuzzTest {

  private static final long SEED = 20261201L;
  private static final Duration BUDGET = Duration.ofMillis(2000);
  private static final Set<String> CODES = Set.of("end_of_stream", "truncated", "bad_magic",
      "bad_version", "bad_kind", "header_too_large", "frame_too_large", "bad_payload",
      "bad_header", "unknown_method", "unknown_id", "method_mismatch", "duplicate_id",
      "too_many_calls", "read_failed");
  /** The close codes each side's fuzz must have met: it runs on until it has, within a bound. */
  private static final Set<String> EXPECTED = Set.of("end_of_stream", "truncated", "bad_magic",
      "bad_header", "frame_too_large", "unknown_method", "unknown_id");
  /** How long a fuzz may run on to meet every expected code, on a slow or loaded machine. */
  private static final Duration BOUND = Duration.ofSeconds(60);
  private static final Pattern REASON = Pattern.compile("([a-z_]+): .+");

  @TempDir
  Path directory;

  @Test
  void theCommanderSideSurvivesAHostileWorker() throws Exception {
    Map<String, Integer> codes = fuzz(true, SEED);
    assertThat(codes).containsKeys(EXPECTED.toArray(String[]::new));
  }

  @Test
  void theWorkerSideSurvivesAHostileCommander() throws Exception {
    Map<String, Integer> codes = fuzz(false, SEED + 1);
    assertThat(codes).containsKeys(EXPECTED.toArray(String[]::new));
  }

  /** Runs the fuzz against one side; returns how often each close code was seen. */
  private Map<String, Integer> fuzz(boolean attackCommander, long seed) throws Exception {
    Map<String, Integer> codes = new TreeMap<>();
    Set<String> calls = attackCommander ? WirePair.COMMANDER_CALLS : WirePair.WORKER_CALLS;
    Set<String> events = attackCommander ? WirePair.COMMANDER_EVENTS : WirePair.WORKER_EVENTS;
    Random random = new Random(seed);
    long deadline = System.nanoTime() + BUDGET.toNanos();
    long bound = System.nanoTime() + BOUND.toNanos();
    int runs = 0;
    try (WirePair healthy = new WirePair(directory.resolve("healthy"))) {
      // The inputs follow from the seed; a loaded machine gets through fewer of them in the
      // budget, so the fuzz goes on (within the bound) until it has met every expected code.
      while (runs < 50 || System.nanoTime() < deadline
          || (!codes.keySet().containsAll(EXPECTED) && System.nanoTime() < bound)) {
        long runSeed = random.nextLong();
        byte[] input = input(new Random(runSeed), calls, events);
        String reason = attack(attackCommander, calls, events, input, runSeed);
        java.util.regex.Matcher matcher = REASON.matcher(reason);
        assertThat(matcher.matches()).as("reason '%s' of run seed %d", reason, runSeed).isTrue();
        assertThat(CODES).as("code of '%s', run seed %d", reason, runSeed)
            .contains(matcher.group(1));
        codes.merge(matcher.group(1), 1, Integer::sum);
        Wire from = attackCommander ? healthy.commander : healthy.worker;
        String method = attackCommander ? "ping" : "locate";
        assertThat(from.call(method, ("run " + runs).getBytes(UTF_8), Duration.ofSeconds(10))
            .join()).isEqualTo(("run " + runs).getBytes(UTF_8));
        runs++;
      }
      assertThat(healthy.commander.isOpen()).isTrue();
      assertThat(healthy.worker.isOpen()).isTrue();
    }
    System.out.println("wire fuzz, attacked " + (attackCommander ? "commander" : "worker")
        + ": " + runs + " runs, close codes " + codes);
    return codes;
  }

  /** Throws one input at a fresh wire; returns the reason it closed with. */
  private String attack(boolean attackCommander, Set<String> calls, Set<String> events,
      byte[] input, long runSeed) throws Exception {
    RecordingHandler attacked = new RecordingHandler();
    try (WireListener listener = WireListener.bind(directory.resolve("a.sock"))) {
      SocketChannel attacker;
      Wire wire;
      if (attackCommander) {
        attacker = Wire.connect(listener.path());
        wire = Wire.open(listener.accept(Duration.ofSeconds(10)), "attacked", attacked, calls,
            events, WireLimits.defaults());
      } else {
        wire = Wire.open(Wire.connect(listener.path()), "attacked", attacked, calls, events,
            WireLimits.defaults());
        attacker = listener.accept(Duration.ofSeconds(10));
      }
      try (attacker) {
        Thread writer = Thread.startVirtualThread(() -> {
          try {
            HostileInputTest.writeAll(attacker, input);
            attacker.shutdownOutput();
          } catch (IOException closedByTheAttacked) {
            // The attacked side hung up in the middle: that is allowed.
          }
        });
        HostileInputTest.readUntilEnd(attacker);
        writer.join(Duration.ofSeconds(10));
        String reason = attacked.awaitClosed();
        assertThat(wire.isOpen()).isFalse();
        assertThat(attacked.closes.get()).as("run seed %d", runSeed).isEqualTo(1);
        return reason;
      }
    }
  }

  /** Random bytes, or valid frames mutated a little. */
  private static byte[] input(Random random, Set<String> calls, Set<String> events) {
    if (random.nextInt(5) == 0) {
      byte[] noise = new byte[random.nextInt(200)];
      random.nextBytes(noise);
      return noise;
    }
    String call = calls.stream().sorted().toList().get(random.nextInt(calls.size()));
    String event = events.iterator().next();
    byte[][] pool = {
        Frames.call(1 + random.nextInt(3), call, "{\"x\":1}"),
        Frames.event(event, "{\"seq\":1}"),
        Frames.reply(1 + random.nextInt(3), "ping", "{}"),
        Frames.frame(3, "{\"id\":2,\"method\":\"ping\",\"code\":\"bad_request\",\"message\":\"m\"}",
            new byte[0]),
        Frames.call(7, call, "payload"),
    };
    byte[] frames = new byte[0];
    for (int i = 0, n = 1 + random.nextInt(4); i < n; i++) {
      frames = Frames.concat(frames, pool[random.nextInt(pool.length)]);
    }
    for (int i = 0, n = random.nextInt(4); i < n && frames.length > 0; i++) {
      int at = random.nextInt(frames.length);
      switch (random.nextInt(5)) {
        case 0 -> frames[at] ^= (byte) (1 << random.nextInt(8));
        case 1 -> frames[at] = (byte) random.nextInt(256);
        case 2 -> frames = Arrays.copyOf(frames, at);
        case 3 -> {
          byte[] noise = new byte[1 + random.nextInt(8)];
          random.nextBytes(noise);
          frames = Frames.concat(Arrays.copyOf(frames, at), noise,
              Arrays.copyOfRange(frames, at, frames.length));
        }
        default -> frames = Frames.concat(frames, Arrays.copyOfRange(frames, at, frames.length));
      }
    }
    return frames;
  }
}
