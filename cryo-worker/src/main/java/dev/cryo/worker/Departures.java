package dev.cryo.worker;

import dev.cryo.freezer.Freezer;
import dev.cryo.register.ConnectionRow;
import dev.cryo.register.PageRow;
import dev.cryo.register.RegisterRegistry;
import dev.cryo.register.UserRow;
import java.lang.System.Logger.Level;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * The departures of a {@link Worker}'s users that the worker orders itself: the transfer plan and
 * its gate, the departure loop that sends flagged users away — a plan's one at a time, a quit's
 * several at once — the idle valve, and the quit with its cut and its end.
 *
 * <p>Each departure goes through {@link Worker#depart}; this class only decides who leaves, when,
 * and into which freezer, and counts the quit.
 *
 * <p>Thread-safe. Tenant state is read and written under each tenant's own lock, taken one tenant
 * at a time and never held across a call to {@link Worker#depart}. The gate instant, the quit and
 * the end of a quit are written under one plan lock of this class (a close marks the end without
 * it); the departure loop runs on the schedule in slots ({@code departing} counts them): one while
 * no quit began, up to {@code atOnce} once one has, each slot one departure after another.
 */
final class Departures {

  // the worker's own logger, so the log lines keep their origin
  private static final System.Logger LOG = System.getLogger(Worker.class.getName());

  private final Worker worker;
  private final ConcurrentHashMap<String, Tenant> tenants;
  private final RegisterRegistry registry;
  private final Freezer freezer;
  private final Schedule schedule;
  private final Clock clock;
  private final Duration gate;
  private final Duration grace;
  private final int atOnce;

  /** The shortest pause between two cuts of one quit (a zero grace must not spin). */
  private static final Duration MIN_CUT_REPEAT = Duration.ofMillis(50);

  /** The departure loop's slots running: at most one, or {@link #atOnce} during a quit. */
  private final AtomicInteger departing = new AtomicInteger();
  private final Object planLock = new Object();
  private volatile Instant gateOpensAt = Instant.MAX;
  private volatile Quit quit;
  /** Completed once {@link #quit} is set: what a quit's hurried freeze waits for. */
  private final CompletableFuture<Void> quitBegun = new CompletableFuture<>();
  private volatile boolean finished;
  /**
   * The tenant that held the quit at {@link #checkQuitFinished}'s last walk, looked at first by the
   * next check: a hint, written by whichever check walked last; a quit ends only by a walk.
   */
  private volatile Tenant holdout;
  /** The walks of the tenant map {@link #checkQuitFinished} made. */
  private final AtomicInteger walks = new AtomicInteger();
  /**
   * The users asked to leave, in the order asked (a plan's order, then a quit's): the departure
   * loop takes the first that can go, so picking one does not walk every tenant. A leaf lock: taken
   * alone or inside a tenant's lock, never around one.
   */
  private final LinkedHashSet<Tenant> queue = new LinkedHashSet<>();

  /** A quit in progress and what it counted. */
  static final class Quit {
    final Freezer into;
    /** The cause its parcels are written with ({@code "quit"}, or the commander's loss). */
    final String cause;
    final CompletableFuture<QuitReport> report = new CompletableFuture<>();
    final AtomicInteger frozen = new AtomicInteger();
    final AtomicInteger dropped = new AtomicInteger();
    final AtomicInteger failed = new AtomicInteger();
    final AtomicInteger cut = new AtomicInteger();

    Quit(Freezer into, String cause) {
      this.into = into;
      this.cause = cause;
    }
  }

  Departures(Worker worker, ConcurrentHashMap<String, Tenant> tenants, RegisterRegistry registry,
      Freezer freezer, Schedule schedule, Duration gate, Duration grace, int atOnce) {
    if (atOnce < 1) {
      throw new IllegalArgumentException("a quit runs at least one departure at a time, got "
          + atOnce);
    }
    this.atOnce = atOnce;
    this.worker = worker;
    this.tenants = tenants;
    this.registry = registry;
    this.freezer = freezer;
    this.schedule = schedule;
    this.clock = schedule.clock();
    this.gate = gate;
    this.grace = grace;
  }

  /** Whether a quit was asked: its plan is terminal, so users arriving later are flagged too. */
  boolean quitting() {
    return quit != null;
  }

  /**
   * The cause a departure is written with: the quit's once a quit began, else {@code otherwise}.
   */
  String causeOr(String otherwise) {
    Quit current = quit;
    return current == null ? otherwise : current.cause;
  }

  /**
   * The root departures go to now: the quit's once a quit began, else the worker's own freezer.
   * A departure asks at each try of its semaphore, so none that runs after the quit began goes
   * elsewhere, whenever it was claimed.
   */
  Freezer root() {
    Quit current = quit;
    return current != null ? current.into : freezer;
  }

  /**
   * Waits up to {@code patience} for a quit to begin; whether one has. For a freeze the commander
   * orders as a quit's hurry, sent after the quit on the same wire but served on a thread of its
   * own that may run first: waiting makes it one of the quit's departures, counted in its report.
   */
  boolean awaitQuit(Duration patience) throws InterruptedException {
    try {
      quitBegun.get(patience.toNanos(), TimeUnit.NANOSECONDS);
      return true;
    } catch (TimeoutException e) {
      return false;
    } catch (ExecutionException e) {
      throw new IllegalStateException(e); // never: the future only completes normally
    }
  }

  /** Whether the worker has finished: its quit completed, or it was closed. */
  boolean finished() {
    return finished;
  }

  /** Marks the worker finished without a quit (a close); idempotent. */
  void markFinished() {
    finished = true;
  }

  /** Counts into the quit in progress, if any. */
  void count(Consumer<Quit> counter) {
    Quit current = quit;
    if (current != null) {
      counter.accept(current);
    }
  }

  /** After a user left (or failed to): the next departure may start, and the quit may end. */
  void afterDeparture() {
    kickDepartures();
    checkQuitFinished();
  }

  /** Sets transfer flags, then opens the gate; the contract is {@link Worker#planTransfers}'s. */
  void planTransfers(Map<String, TransferFlag> plan) {
    plan.forEach((user, flag) -> {
      Tenant tenant = tenants.get(user);
      if (tenant != null) {
        tenant.lock.lock();
        try {
          tenant.plan(flag);
          if (tenant.present()) {
            enqueue(tenant);
          }
        } finally {
          tenant.lock.unlock();
        }
      }
    });
    openGateLater();
  }

  private void openGateLater() {
    Instant opens = clock.instant().plus(gate);
    synchronized (planLock) {
      gateOpensAt = opens;
    }
    schedule.schedule(gate, this::kickDepartures);
  }

  /** A flagged user may leave now (his wake or his last call ended): queued again, then kicked. */
  void kickIfFlagged(Tenant tenant) {
    if (tenant.flag() != null) {
      enqueue(tenant);
      kickDepartures();
    }
  }

  private void enqueue(Tenant tenant) {
    synchronized (queue) {
      queue.add(tenant);
    }
  }

  /**
   * Opens one more slot of the departure loop, when the gate is open and fewer run than allowed: one
   * while no quit began, {@link #atOnce} during a quit. A slot that starts a departure opens the
   * next while users wait, so a quit's slots fill one after another.
   */
  void kickDepartures() {
    if (clock.instant().isBefore(gateOpensAt)) {
      return; // the gate's own task will kick
    }
    int allowed = quit != null ? atOnce : 1;
    while (true) {
      int running = departing.get();
      if (running >= allowed) {
        return;
      }
      if (departing.compareAndSet(running, running + 1)) {
        schedule.schedule(Duration.ZERO, this::departNext);
        return;
      }
    }
  }

  /**
   * One step of a slot: one departure, then the slot's next on the schedule once it ended (other
   * work runs between two users); the slot closes when nobody is left to send.
   */
  private void departNext() {
    Tenant next = nextFlagged();
    TransferFlag flag = next == null ? null : flagOf(next);
    if (next == null || flag == null) {
      departing.decrementAndGet();
      Tenant again = nextFlagged();
      if (again != null) { // flagged meanwhile: queued again (it was taken off), then kicked
        enqueue(again);
        kickDepartures();
      }
      checkQuitFinished();
      return;
    }
    CompletableFuture<FreezeOutcome> departure = worker.depart(next.user,
        flag == TransferFlag.EXPIRY, causeOr("transfer"), false);
    if (queued()) {
      kickDepartures(); // during a quit, another slot while users wait
    }
    boolean deferred;
    next.lock.lock();
    try {
      deferred = next.departureDeferred();
    } finally {
      next.lock.unlock();
    }
    if (deferred || departure.isDone()) {
      schedule.schedule(Duration.ZERO, this::departNext);
    } else {
      departure.whenComplete((outcome, failure) ->
          schedule.schedule(Duration.ZERO, this::departNext));
    }
  }

  private boolean queued() {
    synchronized (queue) {
      return !queue.isEmpty();
    }
  }

  private static TransferFlag flagOf(Tenant tenant) {
    tenant.lock.lock();
    try {
      return tenant.flag();
    } finally {
      tenant.lock.unlock();
    }
  }

  /**
   * A user to send away: flagged, active, not already leaving, not failed this round. The first of
   * the queue that can go; one that cannot yet (waking, mid-call, leaving) leaves the queue and
   * comes back by {@link #kickIfFlagged}. Only when the queue is empty are the tenants walked, for
   * a flag set by no plan or quit of this class or a user not ready at his turn; those found are
   * queued in the map's order, so a walk is not repeated for each of them.
   */
  private Tenant nextFlagged() {
    while (true) {
      Tenant first;
      synchronized (queue) {
        Iterator<Tenant> iterator = queue.iterator();
        if (!iterator.hasNext()) {
          break;
        }
        first = iterator.next();
        iterator.remove();
      }
      if (canLeave(first)) {
        return first;
      }
    }
    Tenant found = null;
    for (Tenant tenant : tenants.values()) {
      if (canLeave(tenant)) {
        if (found == null) {
          found = tenant;
        } else {
          enqueue(tenant);
        }
      }
    }
    return found;
  }

  private boolean canLeave(Tenant tenant) {
    tenant.lock.lock();
    try {
      return tenant.canLeave(registry.userItems().contains(tenant.user));
    } finally {
      tenant.lock.unlock();
    }
  }

  /** The cause of the idle valve's departures. */
  static final String IDLE_CAUSE = "idle";

  /** The idle valve; the contract is {@link Worker#freezeIdle(Duration, Duration)}'s. */
  List<String> freezeIdle(Duration limit, Duration emptyGuestLimit) {
    Instant now = clock.instant();
    Instant threshold = limit == null ? null : now.minus(limit);
    Instant guestThreshold = emptyGuestLimit == null ? null : now.minus(emptyGuestLimit);
    List<String> ordered = new ArrayList<>();
    for (String user : registry.userItems().keys()) {
      UserRow row = registry.userItems().get(user).orElse(null);
      if (row == null || UserState.of(row.get(UserState.FIELD)) != UserState.ACTIVE) {
        continue;
      }
      Instant last = latest(row.get(Parcels.LAST_USER_TS), row.get(Parcels.LAST_RPC_TS));
      boolean idle = threshold != null && (last == null || last.isBefore(threshold));
      if (!idle && guestThreshold != null && (last == null || last.isBefore(guestThreshold))) {
        idle = holdsNothing(user, row);
      }
      if (idle) {
        ordered.add(user);
        worker.depart(user, false, IDLE_CAUSE, false);
      }
    }
    return ordered;
  }

  /**
   * Whether {@code user} is a guest who holds nothing: his user store, and the stores of each of
   * his connections and their pages, are empty (a store a call holds counts as not empty).
   */
  private boolean holdsNothing(String user, UserRow row) {
    if (!user.startsWith(RegisterRegistry.GUEST_PREFIX) || !Parcels.storeEmpty(row)) {
      return false;
    }
    for (String connectionId : row.connections()) {
      ConnectionRow connection = registry.connectionItems().get(connectionId).orElse(null);
      if (connection == null) {
        continue;
      }
      if (!Parcels.storeEmpty(connection)) {
        return false;
      }
      for (PageRow page : worker.pagesOf(connection)) {
        if (!Parcels.storeEmpty(page)) {
          return false;
        }
      }
    }
    return true;
  }

  /** Runs the idle valve every {@code every} until the worker finishes; a null limit is off. */
  void scheduleIdleValve(Duration limit, Duration emptyGuestLimit, Duration every) {
    schedule.schedule(every, () -> {
      if (!finished) {
        freezeIdle(limit, emptyGuestLimit);
        scheduleIdleValve(limit, emptyGuestLimit, every);
      }
    });
  }

  /** The later of two clocks that are instants, null when neither is. */
  static Instant latest(Object first, Object second) {
    Instant a = first instanceof Instant instant ? instant : null;
    Instant b = second instanceof Instant instant ? instant : null;
    if (a == null) {
      return b;
    }
    return b == null || a.isAfter(b) ? a : b;
  }

  /** Quits into {@code into}; the contract is {@link Worker#quit(Freezer)}'s. */
  CompletableFuture<QuitReport> quit(Freezer into, Duration quitGate, Duration quitGrace,
      String cause) {
    Objects.requireNonNull(into, "into");
    Objects.requireNonNull(cause, "cause");
    Duration gate = quitGate == null ? this.gate : quitGate;
    Duration grace = quitGrace == null ? this.grace : quitGrace;
    Instant opens = clock.instant().plus(gate);
    synchronized (planLock) {
      if (quit != null) {
        return quit.report;
      }
      // Before the quit is seen: a gate an earlier plan opened must not let a concurrent check
      // end the quit before its users were enqueued.
      gateOpensAt = opens;
      quit = new Quit(into, cause);
    }
    quitBegun.complete(null);
    for (Tenant tenant : tenants.values()) {
      tenant.lock.lock();
      try {
        tenant.quitting(); // an expiry order stays one
        if (tenant.present()) {
          enqueue(tenant);
        }
      } finally {
        tenant.lock.unlock();
      }
    }
    schedule.schedule(gate, () -> {
      kickDepartures();
      checkQuitFinished();
      scheduleCut(grace);
    });
    return quit.report;
  }

  private void scheduleCut(Duration grace) {
    schedule.schedule(grace, () -> {
      if (finished) {
        return;
      }
      Quit current = quit;
      for (Tenant tenant : tenants.values()) {
        boolean straggler;
        tenant.lock.lock();
        try {
          straggler = tenant.straggling();
        } finally {
          tenant.lock.unlock();
        }
        if (straggler) {
          current.cut.incrementAndGet();
          LOG.log(Level.WARNING, "quit: '" + tenant.user + "' still has calls in flight " + grace
              + " after the gate; he is frozen without waiting for them");
          worker.depart(tenant.user, false, current.cause, true);
        }
      }
      scheduleCut(grace.compareTo(MIN_CUT_REPEAT) < 0 ? MIN_CUT_REPEAT : grace); // never a spin
    });
  }

  /**
   * Ends the quit once nobody holds it: every tenant still in the map failed his departure this
   * round or is a shell (no calls, active, no user row). Called after every departure, so it must
   * not walk the map each time (10,000 walks of a map of 10,000 were quadratic): the tenant that
   * held the quit at the last walk, the last of the map's order that did, is looked at first, and
   * while he still holds it nothing is walked. A quit sends its users in the map's order, so he
   * leaves about last; in any order, the last holder of the map's order is the next to leave with
   * the odds of one in those left, so a quit of n users walks the map about ln n times. Only a
   * walk that finds no holder at all, with no semaphore trip at the disk, ends the quit: a user
   * leaves the map inside his freeze, before his semaphore is given back, and the report (after
   * which a drain renames the root) must not come before that release. Also called after every
   * trip left the disk.
   */
  void checkQuitFinished() {
    Quit current = quit;
    if (current == null || finished || clock.instant().isBefore(gateOpensAt)) {
      return;
    }
    Tenant last = holdout;
    if (last != null && holdsQuit(last)) {
      return;
    }
    if (worker.tripsAtDisk() > 0) { // a user who left may still hold his semaphore: asked again
      return;                      // when the trip has given it back
    }
    walks.incrementAndGet();
    Tenant found = null;
    for (Tenant tenant : tenants.values()) {
      if (holdsQuit(tenant)) {
        found = tenant;
      }
    }
    if (found != null) {
      holdout = found;
      return;
    }
    synchronized (planLock) {
      if (finished) {
        return;
      }
      finished = true;
    }
    holdout = null;
    QuitReport report = new QuitReport(current.frozen.get(), current.dropped.get(),
        current.failed.get(), current.cut.get(), clock.instant());
    worker.shutdownOwned();
    worker.afterAnnouncements(() -> current.report.complete(report)); // never before what it reports
  }

  /** Whether {@code tenant} keeps the quit from ending: here, not failed this round, not a shell. */
  private boolean holdsQuit(Tenant tenant) {
    tenant.lock.lock();
    try {
      return tenant.holdsQuit(registry.userItems().contains(tenant.user));
    } finally {
      tenant.lock.unlock();
    }
  }

  /** How many times {@link #checkQuitFinished} walked the tenant map; for tests. */
  int quitWalks() {
    return walks.get();
  }
}
