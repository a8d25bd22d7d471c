package dev.cryo.chaos;

import dev.cryo.chaos.history.FaultKind;
import dev.cryo.chaos.load.WorkloadOptions;
import dev.cryo.chaos.nemesis.Schedule;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import dev.cryo.chaos.check.DurationConverter;
import java.util.concurrent.Callable;
import java.util.concurrent.ThreadLocalRandom;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code cryo-chaos run}: one audited run of a real {@code cryo serve}; see {@link ChaosRun}. */
@Command(name = "run", mixinStandardHelpOptions = true, exitCodeOnInvalidInput = 64,
    description = "Runs cryo serve under load and faults, then checks the history.")
final class RunCommand implements Callable<Integer> {

  @Option(names = "--cryo-jar", description = "the cryo command's jar (default: ${DEFAULT-VALUE})",
      defaultValue = "cryo-cli/target/cryo.jar")
  Path cryoJar;

  @Option(names = "--out", description = "the output folder (default: chaos-out/SEED)")
  Path out;

  @Option(names = "--seed", description = "the seed (default: random, printed)")
  Long seed;

  @Option(names = "--duration", converter = DurationConverter.class, defaultValue = "60s",
      description = "how long faults are injected (default: ${DEFAULT-VALUE})")
  Duration duration;

  @Option(names = "--faults", split = ",", description = "the fault kinds to draw from"
      + " (default: all): ${COMPLETION-CANDIDATES}")
  List<FaultKind> faults;

  @Option(names = "--every-kind", description = "each fault kind of --faults once, in order,"
      + " instead of a drawn schedule")
  boolean everyKind;

  @Option(names = "--users", defaultValue = "200") int users;
  @Option(names = "--pages", defaultValue = "3", description = "the most pages per user") int pages;
  @Option(names = "--think", converter = DurationConverter.class, defaultValue = "100ms")
  Duration think;
  @Option(names = "--sockets", defaultValue = "0.25",
      description = "the share of users calling over the page socket") double sockets;
  @Option(names = "--moves", defaultValue = "0.02",
      description = "the share of operations that are moves") double moves;
  @Option(names = "--logins", defaultValue = "2", description = "logins per second") double logins;
  @Option(names = "--races", defaultValue = "0.5",
      description = "the share of logins raced by two users into one new identity") double races;
  @Option(names = "--timeout", converter = DurationConverter.class, defaultValue = "15s")
  Duration timeout;
  @Option(names = "--workers", defaultValue = "2") int workers;
  @Option(names = "--serve-option", description = "an option added to cryo serve (repeatable)")
  List<String> serveOptions = new ArrayList<>();
  @Option(names = "--tmpfs-mb", defaultValue = "0",
      description = "put the home on a tmpfs of this size (needs root) for the disk fault")
  int tmpfsMegabytes;
  @Option(names = "--warmup", converter = DurationConverter.class, defaultValue = "5s")
  Duration warmup;
  @Option(names = "--settle", converter = DurationConverter.class, defaultValue = "10s",
      description = "plain load after the last fault, before every user is read once more")
  Duration settle;
  @Option(names = "--grace", converter = DurationConverter.class, defaultValue = "10s",
      description = "how long after a fault its failures are explained by it")
  Duration grace;

  @Override
  public Integer call() throws Exception {
    long runSeed = seed != null ? seed : ThreadLocalRandom.current().nextLong(1, Long.MAX_VALUE);
    if (!Files.isRegularFile(cryoJar)) {
      System.err.println("cryo-chaos run: no cryo jar at " + cryoJar + ": build it with"
          + " ./mvnw -pl cryo-cli -am package -DskipTests, or name it with --cryo-jar");
      return 2;
    }
    List<FaultKind> kinds = faults == null || faults.isEmpty()
        ? Arrays.asList(FaultKind.values()) : faults;
    Schedule schedule = everyKind ? Schedule.everyKind(kinds, Duration.ofSeconds(4))
        : Schedule.draw(runSeed, kinds, duration);
    List<String> cryo = List.of(Path.of(System.getProperty("java.home"), "bin", "java")
        .toString(), "-jar", cryoJar.toAbsolutePath().toString());
    ChaosRun.Options options = new ChaosRun.Options(cryo,
        out != null ? out : Path.of("chaos-out", Long.toString(runSeed)), runSeed, schedule,
        everyKind ? Duration.ofHours(1) : duration,
        new WorkloadOptions(users, pages, think, sockets, moves, logins, races, timeout, runSeed),
        workers, serveOptions, tmpfsMegabytes, warmup, settle, grace);
    ChaosRun.Outcome outcome = ChaosRun.run(options, System.out);
    System.out.println(outcome.verdict().text());
    System.out.printf("chaos: seed %d; %d operations in %.0f s (%.0f/s); %s%n", runSeed,
        outcome.operations(), outcome.seconds(), outcome.operations() / outcome.seconds(),
        outcome.out().resolve("timeline.html"));
    return outcome.verdict().valid() ? 0 : 1;
  }
}
