package dev.cryo.worker;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryNotificationInfo;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.util.List;
import java.util.Optional;
import javax.management.NotificationEmitter;

/**
 * The JVM's memory pressure ({@link MemoryPressure}): a collection usage threshold on each heap
 * pool where what survives collections lives (the pools that support usage thresholds — the old
 * generation; the young pools do not), at a share of that pool's ceiling. The JVM counts, and
 * notifies, each collection after which a pool's usage is still at or past its threshold; no
 * thread of this class polls or allocates. Thread-safe.
 */
final class CollectionPressure implements MemoryPressure {

  private final List<MemoryPoolMXBean> pools;

  private CollectionPressure(List<MemoryPoolMXBean> pools) {
    this.pools = pools;
  }

  /**
   * Sets the thresholds at {@code line} of each such pool's ceiling and returns the pressure; empty
   * when this JVM has no such pool with a known ceiling (the valve is then off).
   *
   * @param line the share of a pool's ceiling past which a collection counts, in (0, 1]
   */
  static Optional<CollectionPressure> install(double line) {
    if (!(line > 0 && line <= 1)) {
      throw new IllegalArgumentException("the line is a share in (0, 1], got " + line);
    }
    List<MemoryPoolMXBean> pools = ManagementFactory.getMemoryPoolMXBeans().stream()
        .filter(pool -> pool.getType() == MemoryType.HEAP && pool.isUsageThresholdSupported()
            && pool.isCollectionUsageThresholdSupported() && pool.getUsage().getMax() > 0)
        .toList();
    if (pools.isEmpty()) {
      return Optional.empty();
    }
    for (MemoryPoolMXBean pool : pools) {
      pool.setCollectionUsageThreshold(Math.max(1, (long) (pool.getUsage().getMax() * line)));
    }
    return Optional.of(new CollectionPressure(pools));
  }

  @Override
  public long overCount() {
    long count = 0;
    for (MemoryPoolMXBean pool : pools) {
      count += pool.getCollectionUsageThresholdCount();
    }
    return count;
  }

  @Override
  public void listen(Runnable action) {
    NotificationEmitter emitter = (NotificationEmitter) ManagementFactory.getMemoryMXBean();
    emitter.addNotificationListener((notification, handback) -> action.run(),
        notification -> MemoryNotificationInfo.MEMORY_COLLECTION_THRESHOLD_EXCEEDED
            .equals(notification.getType()), null);
  }
}
