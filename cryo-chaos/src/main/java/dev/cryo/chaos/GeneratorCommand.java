package dev.cryo.chaos;

import dev.cryo.chaos.history.History;
import dev.cryo.chaos.load.DemoClient;
import dev.cryo.chaos.load.FakeDemo;
import dev.cryo.chaos.load.Recorder;
import dev.cryo.chaos.load.Workload;
import dev.cryo.chaos.load.WorkloadOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import dev.cryo.chaos.check.DurationConverter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code cryo-chaos generator}: how many operations a second the workload's generator issues and
 * records on its own, against the in-process {@link FakeDemo} (no cryo), so that a run's rate can
 * be read as the run's and not the generator's.
 */
@Command(name = "generator", mixinStandardHelpOptions = true, exitCodeOnInvalidInput = 64,
    description = "Measures the workload generator alone, against an in-process stand-in.")
final class GeneratorCommand implements Callable<Integer> {

  @Option(names = "--seconds", defaultValue = "10") int seconds;
  @Option(names = "--users", defaultValue = "200") int users;
  @Option(names = "--think", converter = DurationConverter.class, defaultValue = "0ms")
  Duration think;

  @Override
  public Integer call() throws Exception {
    Path history = Files.createTempFile("generator", ".jsonl");
    Files.delete(history);
    try (FakeDemo demo = FakeDemo.start(FakeDemo.Fault.NONE);
        History file = History.open(history);
        DemoClient client = new DemoClient(demo.base(), Duration.ofSeconds(15))) {
      Recorder recorder = new Recorder(file);
      WorkloadOptions options = new WorkloadOptions(users, 3, think, 0, 0.02, 2, 0.5,
          Duration.ofSeconds(15), 1);
      Workload workload = new Workload(options, client, recorder);
      workload.start();
      Thread.sleep(2_000);
      long before = recorder.completed();
      long started = System.nanoTime();
      Thread.sleep(seconds * 1000L);
      long done = recorder.completed() - before;
      double took = (System.nanoTime() - started) / 1e9;
      workload.stop();
      System.out.printf("generator: %d users, think %d ms: %.0f operations/s recorded over %.1f s"
          + "%n", users, think.toMillis(), done / took, took);
    } finally {
      Files.deleteIfExists(history);
    }
    return 0;
  }
}
