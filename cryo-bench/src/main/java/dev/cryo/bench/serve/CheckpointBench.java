package dev.cryo.bench.serve;

import dev.cryo.bench.Scratch;
import dev.cryo.commander.Commander;
import dev.cryo.commander.CommanderConfig;
import dev.cryo.demo.DemoApplication;
import dev.cryo.front.Front;
import dev.cryo.front.Upstream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * The price of checkpoints: the demo through cryo with {@code --checkpoint off} beside the same
 * with checkpoints every second, two runs of two workers each in one process, driven by the same
 * closed-loop {@link LoadGenerator} (every user clicks, so every user is due at every checkpoint),
 * rounds interleaved so that the machine's drift weighs on both.
 *
 * <pre>
 * java -cp cryo-bench/target/benchmarks.jar dev.cryo.bench.serve.CheckpointBench [USERS] [SECONDS] [ROUNDS] [PERIOD_MS]
 * </pre>
 *
 * Defaults: 200 users, 10 s per measured round (after 3 s of warm-up), 3 rounds of each, a
 * checkpoint every 1,000 ms. Prints one line per round and the ratio of the medians.
 */
public final class CheckpointBench {

  private CheckpointBench() {}

  /** Runs the benchmark; see the class documentation. */
  public static void main(String[] args) throws Exception {
    int users = args.length > 0 ? Integer.parseInt(args[0]) : 200;
    Duration measure = Duration.ofSeconds(args.length > 1 ? Long.parseLong(args[1]) : 10);
    int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 3;
    Duration period = Duration.ofMillis(args.length > 3 ? Long.parseLong(args[3]) : 1_000);
    Path offHome = Files.createTempDirectory("cryo-checkpoint-bench-off");
    Path onHome = Files.createTempDirectory("cryo-checkpoint-bench-on");
    CommanderConfig off = CommanderConfig.builder(offHome, DemoApplication.class.getName())
        .workers(2).maxWorkers(2).build();
    CommanderConfig on = CommanderConfig.builder(onHome, DemoApplication.class.getName())
        .workers(2).maxWorkers(2).checkpoint(period).build();
    try (Commander plain = Commander.start(off);
        Front plainFront = Front.builder(Upstream.of(plain)).port(0).build();
        Commander checkpointed = Commander.start(on);
        Front checkpointedFront = Front.builder(Upstream.of(checkpointed)).port(0).build()) {
      plainFront.start();
      checkpointedFront.start();
      URI withoutUri = URI.create("http://127.0.0.1:" + plainFront.port() + "/");
      URI withUri = URI.create("http://127.0.0.1:" + checkpointedFront.port() + "/");
      Duration warmUp = Duration.ofSeconds(3);
      double[] without = new double[rounds];
      double[] with = new double[rounds];
      for (int round = 0; round < rounds; round++) {
        LoadGenerator.Result anchor = LoadGenerator.run(withoutUri, users, warmUp, measure);
        LoadGenerator.Result ours = LoadGenerator.run(withUri, users, warmUp, measure);
        without[round] = anchor.throughput();
        with[round] = ours.throughput();
        System.out.println("round " + (round + 1) + ": --checkpoint off " + anchor
            + " | --checkpoint " + period.toMillis() + "ms " + ours + " | ratio "
            + String.format("%.2f", ours.throughput() / anchor.throughput()));
      }
      System.out.println(String.format("median throughput: with checkpoints every %d ms %,.0f"
          + " req/s, without %,.0f req/s: %.2fx (target >= 0.90x)", period.toMillis(),
          HttpBench.median(with), HttpBench.median(without),
          HttpBench.median(with) / HttpBench.median(without)));
    } finally {
      Scratch.delete(offHome);
      Scratch.delete(onHome);
    }
  }
}
