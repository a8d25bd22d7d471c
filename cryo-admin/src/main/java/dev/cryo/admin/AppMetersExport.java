package dev.cryo.admin;

import dev.cryo.commander.Status;
import dev.cryo.wire.protocol.AppMeter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * The application's own meters ({@code AppContext.meters()}), as each worker's last photo carried
 * them, mirrored into the admin listener's registry: named {@code app.NAME} (Prometheus:
 * {@code app_NAME…}), with the application's tags and {@code worker} (the worker's name, which
 * wins over an application tag of that key). A counter is exported as a counter, a gauge as a
 * gauge, a timer as a timer ({@code _seconds_count}, {@code _seconds_sum}), a distribution summary
 * as the two counters {@code app.NAME.count} and {@code app.NAME.sum}. A worker that is gone takes
 * its series with it. A meter the registry refuses (a name the application used with two kinds,
 * or with two sets of tag keys: Prometheus requires one) is left out, with a warning once.
 *
 * <p>Thread-safe: {@link #refresh} is synchronized; the meters read the holders' volatile values.
 */
final class AppMetersExport {

  private static final System.Logger LOG = System.getLogger(AppMetersExport.class.getName());

  /** The prefix of every exported name. */
  static final String PREFIX = "app.";

  private record Key(String worker, String name, String type, Map<String, String> tags) {}

  /** The latest values of one exported meter, read by its registered meters. */
  private static final class Holder {
    volatile double value;
    volatile long count;
    volatile double total;
    final List<Meter> meters = new ArrayList<>();
  }

  private final MeterRegistry registry;
  private final Map<Key, Holder> exported = new HashMap<>();
  private final Set<String> refused = new HashSet<>();

  AppMetersExport(MeterRegistry registry) {
    this.registry = registry;
  }

  /** Mirrors the meters of {@code workers} into the registry; see the class comment. */
  synchronized void refresh(List<Status.WorkerStatus> workers) {
    Set<Key> seen = new HashSet<>();
    for (Status.WorkerStatus worker : workers) {
      for (AppMeter meter : worker.appMeters()) {
        Key key = new Key(worker.name(), meter.name(), meter.type(), meter.tags());
        seen.add(key);
        Holder holder = exported.computeIfAbsent(key, k -> register(k, meter));
        holder.value = meter.value();
        holder.count = meter.count();
        holder.total = meter.total();
      }
    }
    exported.entrySet().removeIf(entry -> {
      if (seen.contains(entry.getKey())) {
        return false;
      }
      entry.getValue().meters.forEach(registry::remove);
      return true;
    });
  }

  private Holder register(Key key, AppMeter meter) {
    Holder holder = new Holder();
    Tags tags = Tags.empty();
    for (Map.Entry<String, String> tag : key.tags().entrySet()) {
      if (!tag.getKey().equals("worker")) {
        tags = tags.and(tag.getKey(), tag.getValue());
      }
    }
    tags = tags.and("worker", key.worker());
    String name = PREFIX + key.name();
    try {
      switch (key.type()) {
        case AppMeter.COUNTER -> holder.meters.add(FunctionCounter.builder(name, holder,
            h -> h.value).tags(tags).baseUnit(meter.baseUnit()).description(meter.description())
            .register(registry));
        case AppMeter.GAUGE -> holder.meters.add(Gauge.builder(name, holder, h -> h.value)
            .tags(tags).baseUnit(meter.baseUnit()).description(meter.description())
            .register(registry));
        case AppMeter.TIMER -> holder.meters.add(FunctionTimer.builder(name, holder,
            h -> h.count, h -> h.total, TimeUnit.SECONDS).tags(tags)
            .description(meter.description()).register(registry));
        case AppMeter.SUMMARY -> {
          holder.meters.add(FunctionCounter.builder(name + ".count", holder, h -> h.count)
              .tags(tags).description(meter.description()).register(registry));
          holder.meters.add(FunctionCounter.builder(name + ".sum", holder, h -> h.total)
              .tags(tags).baseUnit(meter.baseUnit()).description(meter.description())
              .register(registry));
        }
        default -> refuse(name, "its kind '" + key.type() + "' is not one cryo exports");
      }
    } catch (RuntimeException e) {
      holder.meters.forEach(registry::remove);
      holder.meters.clear();
      refuse(name, e.getMessage());
    }
    return holder;
  }

  private void refuse(String name, String why) {
    if (refused.add(name)) {
      LOG.log(Level.WARNING, "the application's meter " + name + " is not exported (" + why
          + "); the others are: give each meter name one kind and one set of tag keys");
    }
  }
}
