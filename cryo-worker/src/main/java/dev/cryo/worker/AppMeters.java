package dev.cryo.worker;

import dev.cryo.wire.protocol.AppMeter;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The worker's registry of the application's own meters ({@code AppContext.meters()}) and their
 * reading for the photo: counters and function counters as {@link AppMeter#COUNTER}, gauges as
 * {@link AppMeter#GAUGE}, timers and function timers as {@link AppMeter#TIMER} (count and total
 * seconds), distribution summaries as {@link AppMeter#SUMMARY}; other kinds (long task timers,
 * custom meters) are not carried. At most {@value #MAX_METERS} meters, sorted by name, are read:
 * the photo must fit a frame (a warning says once that the rest is left out).
 *
 * <p>Thread-safe: the registry is Micrometer's; {@link #read} may run beside the application's
 * updates and sees each meter at some moment of its own.
 */
final class AppMeters {

  private static final System.Logger LOG = System.getLogger(AppMeters.class.getName());

  /** The most meters a photo carries. */
  static final int MAX_METERS = 500;

  private final MeterRegistry registry = new SimpleMeterRegistry();
  private volatile boolean toldTooMany;

  /** The registry the application makes its meters in. */
  MeterRegistry registry() {
    return registry;
  }

  /** The meters as they read now, sorted by name then tags; see the class comment. */
  List<AppMeter> read() {
    List<Meter> meters = new ArrayList<>(registry.getMeters());
    meters.sort(Comparator.comparing((Meter meter) -> meter.getId().getName())
        .thenComparing(meter -> meter.getId().getTags().toString()));
    if (meters.size() > MAX_METERS) {
      if (!toldTooMany) {
        toldTooMany = true;
        LOG.log(Level.WARNING, "the application made " + meters.size() + " meters; the first "
            + MAX_METERS + " by name are exported, the rest are not: keep the tags' values few"
            + " (a user's name is not a tag)");
      }
      meters = meters.subList(0, MAX_METERS);
    }
    List<AppMeter> out = new ArrayList<>(meters.size());
    for (Meter meter : meters) {
      AppMeter read = read(meter);
      if (read != null) {
        out.add(read);
      }
    }
    return out;
  }

  private static AppMeter read(Meter meter) {
    Meter.Id id = meter.getId();
    Map<String, String> tags = new LinkedHashMap<>();
    for (Tag tag : id.getTagsAsIterable()) {
      tags.put(tag.getKey(), tag.getValue());
    }
    String name = id.getName();
    String unit = id.getBaseUnit();
    String description = id.getDescription();
    try {
      if (meter instanceof Counter counter) {
        return new AppMeter(name, AppMeter.COUNTER, tags, counter.count(), 0, 0, unit, description);
      }
      if (meter instanceof FunctionCounter counter) {
        return new AppMeter(name, AppMeter.COUNTER, tags, counter.count(), 0, 0, unit, description);
      }
      if (meter instanceof TimeGauge gauge) {
        return new AppMeter(name, AppMeter.GAUGE, tags, gauge.value(TimeUnit.SECONDS), 0, 0,
            "seconds", description);
      }
      if (meter instanceof Gauge gauge) {
        return new AppMeter(name, AppMeter.GAUGE, tags, gauge.value(), 0, 0, unit, description);
      }
      if (meter instanceof Timer timer) {
        return new AppMeter(name, AppMeter.TIMER, tags, 0, timer.count(),
            timer.totalTime(TimeUnit.SECONDS), "seconds", description);
      }
      if (meter instanceof FunctionTimer timer) {
        return new AppMeter(name, AppMeter.TIMER, tags, 0, (long) timer.count(),
            timer.totalTime(TimeUnit.SECONDS), "seconds", description);
      }
      if (meter instanceof DistributionSummary summary) {
        return new AppMeter(name, AppMeter.SUMMARY, tags, 0, summary.count(),
            summary.totalAmount(), unit, description);
      }
    } catch (RuntimeException e) { // a gauge's function is the application's code
      LOG.log(Level.WARNING, "the application's meter " + name + " failed to read: " + e);
    }
    return null;
  }
}
