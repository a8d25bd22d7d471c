package dev.cryo.app;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

/**
 * What an application is started with ({@link CryoApplication#onStart}): the name of the worker
 * (the instance) it runs in, and its configuration.
 *
 * <p><b>Configuration.</b> The operator names a Java properties file with
 * {@code cryo serve --app-config FILE} (UTF-8, {@code key=value} lines, {@code #} comments, the
 * rules of {@link java.util.Properties#load(java.io.Reader)}). The run reads it when it starts
 * and again at every {@code cryo reload} ({@code cryo reload --app-config FILE} names another):
 * every worker started after that sees the file as it was then — also one started again after a
 * crash — so the workers of one version never see two contents. Without {@code --app-config} the
 * configuration is empty. The test kit takes it as a map ({@link CryoTestKit#of(
 * java.util.function.Supplier, Map)}).
 *
 * <p><b>Meters.</b> {@link #meters()} is the worker's registry of the application's own meters
 * (Micrometer): counters, gauges, timers and distribution summaries made there are exported by
 * the admin listener's {@code /_cryo/metrics}, named {@code app_NAME}, tagged with the worker's
 * name ({@code worker}) beside the application's own tags, as of the worker's last photo (the
 * heartbeat). One registry per worker: what one instance counts is that worker's count.
 *
 * <p>Immutable and thread-safe: an application may keep it in a field and read it from any call.
 */
public final class AppContext {

  private final String worker;
  private final Map<String, String> config;
  private final MeterRegistry meters;

  private AppContext(String worker, Map<String, String> config, MeterRegistry meters) {
    this.worker = worker;
    this.config = java.util.Collections.unmodifiableMap(new TreeMap<>(config));
    this.meters = meters;
  }

  /**
   * A context for the instance in {@code worker} with {@code config}: what the runtime and the test
   * kit give {@link CryoApplication#onStart}, and what a unit test of an application may make.
   *
   * @param worker the worker's name
   * @param config the configuration (copied), keys and values not null
   * @return the context
   */
  public static AppContext of(String worker, Map<String, String> config) {
    return of(worker, config, new SimpleMeterRegistry());
  }

  /**
   * A context as {@link #of(String, Map)} whose {@link #meters()} is {@code meters}: what a host
   * gives, with the registry it exports.
   *
   * @param worker the worker's name
   * @param config the configuration (copied), keys and values not null
   * @param meters the registry of the application's meters
   * @return the context
   */
  public static AppContext of(String worker, Map<String, String> config, MeterRegistry meters) {
    Objects.requireNonNull(meters, "meters");
    Objects.requireNonNull(worker, "worker");
    Objects.requireNonNull(config, "config");
    config.forEach((key, value) -> {
      Objects.requireNonNull(key, "a configuration key");
      Objects.requireNonNull(value, "the value of configuration key " + key);
    });
    return new AppContext(worker, config, meters);
  }

  /**
   * The registry of the application's own meters in this worker; see the class comment. Make
   * meters in {@link CryoApplication#onStart} and keep them in fields (a meter made again with the
   * same name and tags is the same meter).
   */
  public MeterRegistry meters() {
    return meters;
  }

  /** The worker this instance of the application runs in ({@link Call#worker()}). */
  public String worker() {
    return worker;
  }

  /** The whole configuration, sorted by key, unmodifiable; empty without a file. */
  public Map<String, String> config() {
    return config;
  }

  /** The value of {@code key}, when the configuration has it. */
  public Optional<String> config(String key) {
    return Optional.ofNullable(config.get(Objects.requireNonNull(key, "key")));
  }

  /**
   * The value of {@code key}.
   *
   * @throws NoSuchElementException when the configuration has no such key, naming it: thrown
   *     from {@link CryoApplication#onStart}, it fails the start, which is what a missing setting
   *     should do
   */
  public String require(String key) {
    String value = config.get(Objects.requireNonNull(key, "key"));
    if (value == null) {
      throw new NoSuchElementException("the application's configuration has no '" + key + "'"
          + " (it has " + config.keySet() + "): add it to the file given to cryo serve"
          + " --app-config, then start or reload");
    }
    return value;
  }

  @Override
  public String toString() {
    return "AppContext[worker=" + worker + ", keys=" + config.keySet() + "]";
  }
}
