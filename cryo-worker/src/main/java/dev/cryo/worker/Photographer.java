package dev.cryo.worker;

import dev.cryo.register.RegisterRegistry;
import dev.cryo.register.UserRow;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Takes a {@link Worker}'s {@link Photo}: the announcement watermark and the worker's state first,
 * then each user read whole under his tenant lock, one user at a time, then the process's memory.
 * No disk, no row lock; the contract is {@link Worker#photo()}'s. Thread-safe.
 */
final class Photographer {

  private final String name;
  private final String group;
  private final Clock clock;
  private final ConcurrentHashMap<String, Tenant> tenants;
  private final RegisterRegistry registry;
  private final Announcer announcer;
  private final Departures departures;
  private final AtomicLong servedCalls;
  private final Freezing freezing;

  Photographer(String name, String group, Clock clock, ConcurrentHashMap<String, Tenant> tenants,
      RegisterRegistry registry, Announcer announcer, Departures departures,
      AtomicLong servedCalls, Freezing freezing) {
    this.name = name;
    this.group = group;
    this.clock = clock;
    this.tenants = tenants;
    this.registry = registry;
    this.announcer = announcer;
    this.departures = departures;
    this.servedCalls = servedCalls;
    this.freezing = freezing;
  }

  /**
   * The user's current tenant, locked, or null when he has none. A tenant looked up and then
   * waited for may have left meanwhile (a freeze) and a new one begun his wake under its own lock:
   * the lock taken must be the tenant still in the map, or the photo would read a half-woken row.
   */
  private Tenant lockedTenant(String user) {
    while (true) {
      Tenant tenant = tenants.get(user);
      if (tenant == null) {
        return null;
      }
      tenant.lock.lock();
      if (tenants.get(user) == tenant) {
        return tenant;
      }
      tenant.lock.unlock();
    }
  }

  /** The photo; the contract is {@link Worker#photo()}'s. */
  Photo photo() {
    long watermark = announcer.watermark(); // first: what follows shows at least its effects
    WorkerState state = departures.finished() ? WorkerState.FINISHED
        : departures.quitting() ? WorkerState.QUITTING : WorkerState.RUNNING;
    Map<String, Photo.UserPhoto> users = new HashMap<>();
    int connections = 0;
    int pages = 0;
    int pending = 0;
    for (String user : registry.userItems().keys()) {
      Tenant tenant = lockedTenant(user);
      try {
        UserRow row = registry.userItems().get(user).orElse(null);
        if (row == null) {
          continue;
        }
        Map<String, Integer> connectionPages = new HashMap<>();
        for (String connectionId : row.connections()) {
          int count = registry.connectionItems().get(connectionId)
              .map(connection -> connection.pages().size()).orElse(0);
          connectionPages.put(connectionId, count);
          pages += count;
        }
        connections += connectionPages.size();
        int userPending = tenant == null ? 0 : tenant.pending();
        pending += userPending;
        users.put(user, new Photo.UserPhoto(UserState.of(row.get(UserState.FIELD)), connectionPages,
            tenant == null ? 0 : tenant.servedCalls(), userPending, row.lastRefresh(),
            row.get(Parcels.LAST_RPC_TS, Instant.class), row.get(Parcels.LAST_USER_TS, Instant.class),
            tenant == null ? null : tenant.flag(), tenant == null ? 0 : tenant.generation()));
      } finally {
        if (tenant != null) {
          tenant.lock.unlock();
        }
      }
    }
    Runtime runtime = Runtime.getRuntime();
    long heapMax = runtime.maxMemory();
    return new Photo(ProcessHandle.current().pid(), name, group, state, watermark, clock.instant(),
        residentBytes(), runtime.totalMemory() - runtime.freeMemory(),
        heapMax == Long.MAX_VALUE ? -1 : heapMax, users.size(), connections, pages, pending,
        servedCalls.get(), freezing.failures(), users,
        dev.cryo.app.IgnoredStateFields.count());
  }

  private static long residentBytes() {
    try {
      String[] statm = Files.readString(Path.of("/proc/self/statm")).trim().split("\\s+");
      return Long.parseLong(statm[1]) * 4096L;
    } catch (IOException | RuntimeException e) {
      return -1;
    }
  }
}
