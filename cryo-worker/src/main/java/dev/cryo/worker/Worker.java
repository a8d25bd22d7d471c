package dev.cryo.worker;

import dev.cryo.freezer.Freezer;
import dev.cryo.freezer.ParcelHeader;
import dev.cryo.register.ConnectionRow;
import dev.cryo.register.PageRow;
import dev.cryo.register.RegisterException;
import dev.cryo.register.RegisterRegistry;
import dev.cryo.register.Store;
import dev.cryo.wire.protocol.RefusalReason;
import java.lang.System.Logger.Level;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A worker: it serves calls for the users placed on it from memory, lets them go into the freezer,
 * and wakes frozen users when their calls arrive.
 *
 * <pre>{@code
 * AppHost host = AppHost.load("com.example.Notes", null);
 * Worker worker = Worker.builder("w1", new Freezer(root)).group("main")
 *     .application(host).listener(commander::fold).build();
 * host.serve(worker, new HttpCall("anna", "c1", Grant.birth(1), "POST", "/api/notes", "",
 *     List.of(), body, null));                                       // anna born here, served
 * worker.freezeUser("anna").join();                                   // FROZEN: parcels written, rows gone
 * otherHost.serve(other, new HttpCall("anna", "c1", Grant.wake(2, 1), "GET", "/api/notes", "",
 *     List.of(), new byte[0], null));                                 // woken on the other worker
 * }</pre>
 *
 * <h2>The unified row</h2>
 *
 * <p>Every call comes through the worker's {@link AppHost} ({@link AppHost#serve}), which opens a
 * request slot for it ({@link #openRequest}) and closes it. A call for a user whose
 * row is active is served. A call for a user the worker does not hold is served after a wake, but
 * the user's own parcel is woken only when the call brings the verdict "this user is frozen"
 * (a wake grant) — also when a tenant of his is present without rows — and a verdict
 * finding no parcel is refused ({@link RefusalReason#NO_PARCEL}), never born as an empty
 * user; without the verdict a user parcel is residue and is never touched, and the user is born
 * fresh. A connection the worker does not hold is looked for in the user's folder by the
 * worker itself, whatever the verdict. A burst of calls on a frozen user makes one disk trip: the
 * first marks the row {@code unfreezing} and wakes him; the others wait for that transition — the
 * wake, never the service of another call — and are then served in parallel.
 *
 * <h2>Clocks</h2>
 *
 * <p>Each call stamps the clocks of its page, then its connection, then its user with the
 * schedule's clock: a ping ({@link #ping}) only {@code last_refresh_ts}, a call of a page's code
 * also {@code last_rpc_ts}, a call caused by a human — every HTTP call — also
 * {@code last_user_ts}. A call from a connection without a page (every HTTP call: it names its pages
 * in its request) stamps its connection and its user.
 *
 * <h2>Departures</h2>
 *
 * <p>A user leaves by {@link #freezeUser}, by a transfer plan ({@link #planTransfers}), by the idle
 * valve ({@link #freezeIdle}), by {@link #quit()}, and a connection by the login tail
 * ({@link #login}). A departure happens only when the user has no call in flight, else it waits
 * for his last call to close. Every disk step holds the user's semaphore, taken by one try at a time
 * on the worker's disk executor and retried on its schedule (never holding a disk thread while
 * waiting), up to the wait limit. A refused write aborts the departure whole: the semaphore is given
 * back, the user stays alive and active where he was, nothing is announced, and the failure is
 * logged and counted ({@link #freezeFailures()}). Once a quit began, every departure that runs goes
 * into the quit's root. A drop ordered from above while the user is being frozen, woken or handed
 * over waits for that, then applies to what it left; an expiry order is never turned into a
 * freeze.
 *
 * <h2>Replies and announcements</h2>
 *
 * <p>Every change is announced, in sequence, to the listener; a reply never overtakes the
 * announcements its call caused: {@link AppHost#serve} returns, or throws, only once every
 * announcement published before it was delivered, and the futures of {@link #freezeUser} and {@link #quit()}
 * complete likewise. {@link #announcementWatermark()} and the photo carry the sequence delivered
 * last. A refusal because the user left says where he went ({@link WorkerException#where()}).
 *
 * <h2>Concurrency</h2>
 *
 * <p>Thread-safe. Calls run on the caller's threads, concurrently, several per user; disk work runs
 * on the disk executor; delayed work on the schedule. Each user has one lock of the worker's, his
 * tenant lock, that serialises his lifecycle changes with their announcements and is never held
 * while waiting for the disk; the photo takes it briefly per user, so no user appears half
 * changed. All lifecycle changes of the users a worker holds must go through the worker (its
 * methods and its {@link AppHost}), never directly through the registry, or the announcements
 * miss them.
 *
 * <h2>The lock order</h2>
 *
 * <p>One rule ({@link LockOrder}): a user's tenant lock first (two of them in the order of the
 * users' names), then row locks (page, then connection, then user), then the registry's structure
 * lock, then the announcer's. Nothing holding a row lock takes a tenant lock: a lifecycle
 * operation asked from inside a store action (the host's reach into a row's store) is refused with {@link RefusalReason#LOCK_ORDER} before anything changes. This is what
 * lets a drop lock the pages it takes (the registry's detach seam) under the tenant lock without a
 * handler, inside a page's store, deadlocking it by opening a page or logging in. And a thread
 * holding a tenant lock, a disk thread or a semaphore never waits for a row lock a store action
 * may hold: it tries, and when the row is busy lets go and waits outside every lock, within a
 * bound.
 */
public final class Worker implements AutoCloseable {

  private static final System.Logger LOG = System.getLogger(Worker.class.getName());

  private final String name;
  private final String group;
  private final Freezer freezer;
  private final RegisterRegistry registry;
  private final AppHost application;
  private final int stateVersion;
  private final Announcer announcer;
  private final Schedule schedule;
  private final Clock clock;
  private final Executor disk;
  private final ExecutorService ownedDisk;
  private final boolean ownsSchedule;
  private final Duration rowWait;
  private final Duration transitionWait;
  private final boolean detaches;

  private final ConcurrentHashMap<String, Tenant> tenants = new ConcurrentHashMap<>();
  private final AtomicLong servedCalls = new AtomicLong();
  private final SemaphoreTrips trips;
  private final Departures departures;
  private final Login login;
  private final Waking waking;
  private final Drops drops;
  private final Freezing freezing;
  private final Checkpoints checkpoints; // its walk off when the period is
  private final ExecutorService durableDisk;
  private final Photographer photographer;
  private final Admission admission;

  private Worker(Builder builder) {
    this.name = builder.name;
    this.group = builder.group;
    this.freezer = builder.freezer;
    this.ownsSchedule = builder.schedule == null;
    this.schedule = ownsSchedule ? Schedule.system() : builder.schedule;
    this.clock = schedule.clock();
    this.rowWait = builder.grace;
    this.transitionWait = builder.waitLimit.plus(builder.grace);
    this.registry = builder.registry != null ? builder.registry : new RegisterRegistry(clock);
    this.application = builder.application != null ? builder.application
        : new AppHost(routes -> { });
    this.stateVersion = application.stateVersion();
    this.announcer = new Announcer(builder.listener, user -> {
      Tenant tenant = tenants.get(user);
      return tenant == null ? 0 : tenant.generation(); // volatile: no tenant lock here
    });
    if (builder.disk == null) {
      AtomicInteger count = new AtomicInteger();
      this.ownedDisk = Executors.newFixedThreadPool(2, runnable -> {
        Thread thread = new Thread(runnable, "cryo-worker-disk-" + count.incrementAndGet());
        thread.setDaemon(true);
        return thread;
      });
      this.disk = ownedDisk;
    } else {
      this.ownedDisk = null;
      this.disk = builder.disk;
    }
    this.trips = new SemaphoreTrips(name, disk, schedule, builder.retryInterval, builder.waitLimit,
        rowWait, this::afterTrip);
    this.detaches = registry.seams().detaches();
    this.departures = new Departures(this, tenants, registry, freezer, schedule, builder.gate,
        builder.grace, builder.quitDeparturesAtOnce);
    this.login = new Login(this, name, group, registry, announcer, tenants, trips,
        departures, builder.locator);
    this.waking = new Waking(this, name, group, freezer, registry, announcer, trips, departures);
    this.drops = new Drops(this, name, tenants, registry, announcer);
    this.freezing = new Freezing(this, name, group, tenants, registry, announcer, trips, departures,
        drops, schedule, builder.retryInterval);
    this.admission = new Admission(this, name, clock, tenants, registry, announcer, departures,
        waking, login, servedCalls);
    this.photographer = new Photographer(name, group, clock, tenants, registry, announcer,
        departures, servedCalls, freezing);
    // A durable checkpoint's trip waits for its group's force: on threads of its own, never the
    // disk threads every departure needs.
    this.durableDisk = Executors.newThreadPerTaskExecutor(
        Thread.ofVirtual().name("cryo-worker-durable-", 1).factory());
    this.checkpoints = new Checkpoints(name, group, freezer, tenants, registry, freezing, trips,
        new SemaphoreTrips(name, durableDisk, schedule, builder.retryInterval, builder.waitLimit,
            rowWait, this::afterTrip),
        departures, schedule, builder.checkpoint);
    checkpoints.start();
    if (builder.memoryPressure != null) {
      new HeapValve(this, registry, departures, builder.memoryPressure).start();
    }
    if (builder.idleLimit != null || builder.emptyGuestIdleLimit != null) {
      departures.scheduleIdleValve(builder.idleLimit, builder.emptyGuestIdleLimit,
          builder.idleCheck);
    }
  }

  /**
   * A builder of a worker named {@code name} working with {@code freezer}.
   *
   * @param name the worker's name: it answers for the parcels it writes and holds the semaphores
   */
  public static Builder builder(String name, Freezer freezer) {
    return new Builder(name, freezer);
  }

  // ---- identity -------------------------------------------------------------------------------

  /** The worker's name. */
  public String name() {
    return name;
  }

  /** The worker's group. */
  public String group() {
    return group;
  }

  /** The freezer the worker freezes into and wakes from. */
  public Freezer freezer() {
    return freezer;
  }

  /** The registry holding the worker's users, connections and pages; read it, change it through the worker. */
  public RegisterRegistry registry() {
    return registry;
  }

  /** How many departures the disk refused since the worker started. */
  public long freezeFailures() {
    return freezing.failures();
  }

  /**
   * How long an operation waits for a row a call's store action holds (outside every lock) before
   * it gives up: the quit's grace.
   */
  Duration rowWait() {
    return rowWait;
  }

  /**
   * How long an order from above (a drop) waits for a user in the middle of a freeze, a wake or a
   * login tail: the semaphore's wait limit plus the row wait, the longest such a transition takes.
   */
  Duration transitionWait() {
    return transitionWait;
  }

  /**
   * The page locks a drop of {@code pages} takes in the registry (its detach seam runs under them),
   * for the worker to try first: none when the registry has no detach seam.
   */
  List<java.util.concurrent.locks.ReentrantLock> pageLocks(List<PageRow> pages) {
    return LockOrder.pageLocks(detaches, pages);
  }

  /** How many times the worker held a user's semaphore to work on the disk, for tests. */
  long diskTrips() {
    return trips.count();
  }

  /** How many times the quit's end check walked the tenant map, for tests. */
  int quitWalks() {
    return departures.quitWalks();
  }

  /** Whether the worker has finished (its quit completed); it serves nothing more. */
  public boolean isFinished() {
    return departures.finished();
  }

  // ---- calls ----------------------------------------------------------------------------------

  /**
   * The announcement watermark: the sequence of the last announcement delivered to the listener
   * (0 before the first). A reply sent after {@link AppHost#serve} returned, or after
   * {@link #awaitAnnouncements()}, may carry it: every announcement up to it reached the listener
   * before.
   */
  public long announcementWatermark() {
    return announcer.watermark();
  }

  /**
   * Waits until every announcement published before this call has been delivered to the listener
   * (delivering them on this thread when no other is), and returns the watermark then. A reply to
   * an order whose effects were announced (a freeze, a drop, a quit) calls this first. Must not be
   * called from the listener.
   */
  public long awaitAnnouncements() {
    return announcer.flush();
  }

  /**
   * Stamps {@code last_refresh_ts} on a page, its connection and its user, if the page is here.
   * Never wakes, never creates.
   *
   * @return whether the page is here
   */
  public boolean ping(String pageId) {
    return admission.ping(pageId);
  }

  /** A ping from a connection without a page: stamps the connection and its user, if here. */
  void pingConnection(String connectionId) {
    admission.pingConnection(connectionId);
  }

  /**
   * Opens a request slot for a real call: resolves the user (the connection's owner when the
   * connection is here, else the call's user, else the connection's guest), wakes him when the call
   * brings the verdict and he is not here, waits while he is being woken or is leaving, adopts the
   * connection from its parcel when there is one, brings the connection and the page into being
   * when they are new (announced as births), and stamps the clocks. A call without a page (an HTML
   * shell, a login POST: every HTTP call) brings only the connection into being and stamps the
   * connection and the user. The caller ({@link AppHost}) must close the slot, and call
   * {@link #awaitAnnouncements()} before replying.
   *
   * @throws IllegalArgumentException for an arrival that stamps only the refresh clock (a ping)
   * @throws WorkerException {@link RefusalReason#WAKE_FAILED} when the wake or the
   *     connection's adoption failed (nothing of it is left; retry),
   *     {@link RefusalReason#NO_PARCEL} when the call brought the verdict and the freezer
   *     holds no parcel of the user (nothing was created or announced),
   *     {@link RefusalReason#USER_LEFT_FROZEN} or {@link RefusalReason#USER_LEFT_MOVING} when the user left while the call waited
   *     ({@link WorkerException#where()} says whether to route it again with the verdict), {@link RefusalReason#USER_MISMATCH} when the
   *     connection or page belongs to another user, {@link RefusalReason#WORKER_FINISHED}
   */
  RequestSlot openRequest(Arrival arrival) {
    if (arrival.clocks() == Arrival.Clocks.REFRESH) {
      throw new IllegalArgumentException("a ping opens no request slot: call ping(pageId)");
    }
    return admission.openRequest(arrival);
  }

  /** Closes a slot; see {@link RequestSlot#close()}. */
  void close(RequestSlot slot) {
    admission.close(slot);
  }

  /** Brings a page (and its connection and user when unseen) into being, announced as births. */
  void newPage(String user, String connectionId, String pageId, Map<String, ?> fields) {
    admission.newPage(user, connectionId, pageId, fields);
  }

  /** Whether the calling thread holds {@code row}'s lock (null: no). */
  static boolean held(dev.cryo.register.Row row) {
    return row != null && row.lock().isHeldByCurrentThread();
  }

  // ---- freezing -------------------------------------------------------------------------------

  /**
   * Freezes a user into the worker's freezer: when he has no call in flight now, else when his last
   * call closes. Writes his user parcel and one parcel per connection with its pages, announces
   * {@code user_frozen} (placement none) and {@code drop_pages}, and takes his rows out of memory.
   * Asking again while a departure is claimed returns that departure; a user being woken is frozen
   * once awake.
   *
   * @return completes — once its announcements were delivered — with {@link FreezeOutcome#FROZEN},
   *     {@link FreezeOutcome#DROPPED} (an expiry was ordered meanwhile) or
   *     {@link FreezeOutcome#NOT_HOSTED}; or exceptionally with a {@link WorkerException}
   *     ({@link RefusalReason#FREEZER_FAILED},
   *     {@link RefusalReason#SEMAPHORE_TIMEOUT}, {@link RefusalReason#ROW_BUSY}:
   *     a call's store action held one of his rows past the grace), the user then alive and active
   *     as he was
   */
  public CompletableFuture<FreezeOutcome> freezeUser(String user) {
    return freezing.depart(user, false, departures.causeOr("freeze"), false, -1);
  }

  /**
   * As {@link #freezeUser(String)}, fenced: only his stay at {@code generation} is frozen; a stay
   * at another generation (the order was decided on stale maps) is {@link FreezeOutcome#NOT_HOSTED}
   * and untouched. A null generation orders any stay.
   */
  public CompletableFuture<FreezeOutcome> freezeUser(String user, Long generation) {
    return freezing.depart(user, false, departures.causeOr("freeze"), false,
        generation == null ? -1 : generation);
  }

  /** Orders a departure of {@code user}; see {@link Freezing#depart}. */
  CompletableFuture<FreezeOutcome> depart(String user, boolean expire, String cause,
      boolean force) {
    return freezing.depart(user, expire, cause, force, -1);
  }

  /** The pages of a connection that are still registered, in id order. */
  List<PageRow> pagesOf(ConnectionRow connection) {
    return freezing.pagesOf(connection);
  }

  /** Takes a tenant out of the map for good, not into the freezer; the caller holds its lock. */
  void leave(Tenant tenant, String because) {
    leave(tenant, because, WorkerException.Where.MOVING);
  }

  /** Takes a tenant out of the map for good, saying where he went; the caller holds its lock. */
  void leave(Tenant tenant, String because, WorkerException.Where where) {
    tenant.left(because, where);
    tenants.remove(tenant.user, tenant);
    if (where != WorkerException.Where.FROZEN && tenant.parcelsInFreezer()) {
      checkpoints.left(tenant); // his state went elsewhere, or was dropped: not his parcels
    }
    checkpoints.departed(tenant, where); // his durable calls waiting, settled
  }

  /** A test's seam: {@code seam} runs in each call's admission after its owner was looked up. */
  void afterOwnerOf(Runnable seam) {
    admission.afterOwnerOf = seam;
  }

  /** A call of {@code tenant} closed, none left in flight; under his lock ({@link Checkpoints}). */
  void closedIdle(Tenant tenant) {
    checkpoints.closedIdle(tenant);
  }

  /**
   * A durable call of {@code tenant} closed; see {@link Checkpoints#durable}: completes once a
   * checkpoint holding it is forced to disk, fails when that is not known.
   */
  CompletableFuture<Void> durable(Tenant tenant) {
    return checkpoints.durable(tenant);
  }

  /** The durable calls of {@code from} wait for {@code to}'s checkpoints; see {@link Checkpoints#follow}. */
  void durableCallsFollow(Tenant from, Tenant to) {
    checkpoints.follow(from, to);
  }

  /** Takes the durable calls of {@code from} waiting; see {@link Checkpoints#takeWaiters}. */
  List<CompletableFuture<Void>> takeDurableCalls(Tenant from) {
    return checkpoints.takeWaiters(from);
  }

  /** Settles {@code waiters} by the force of {@code user}'s folder; see {@link Checkpoints#settleByForce}. */
  void settleDurableCalls(String user, List<CompletableFuture<Void>> waiters) {
    checkpoints.settleByForce(user, waiters);
  }

  /** How many durable calls wait for a forced checkpoint. */
  int durableCallsWaiting() {
    return checkpoints.waitingCalls();
  }

  /** How many groups of durable checkpoints were forced, and with how many members in all. */
  long[] durableGroups() {
    GroupCommit commit = checkpoints.commit();
    return new long[] {commit.groups(), commit.members()};
  }

  /** How many checkpoints this worker wrote ({@link Builder#checkpointEvery}); 0 when off. */
  public long checkpointsWritten() {
    return checkpoints.written();
  }

  // ---- drops ----------------------------------------------------------------------------------

  /**
   * Drops a user with his connections and pages, announced as {@code drop_pages},
   * {@code drop_connections} and {@code drop_user}, delivered before it returns. Silent when he is
   * not here. While he is being frozen, woken or handed over, it waits for that (outside every
   * lock, bounded), then applies to what it left.
   *
   * @return whether he was here
   * @throws WorkerException {@link RefusalReason#USER_LEFT_FROZEN} or {@link RefusalReason#USER_LEFT_MOVING} with
   *     {@link WorkerException.Where#FROZEN} when he was frozen while the drop waited (nothing was
   *     dropped: he is in the freezer); {@link RefusalReason#IN_TRANSITION} or
   *     {@link RefusalReason#ROW_BUSY} when the wait outlasted its bound (retryable);
   *     {@link RefusalReason#LOCK_ORDER} from inside a store action
   */
  public boolean dropUser(String user) {
    return drops.dropUser(user, -1);
  }

  /**
   * As {@link #dropUser(String)}, fenced: only his stay at {@code generation} is dropped; a stay at
   * another generation is left alone and the answer is false, as if he were not here.
   */
  public boolean dropUser(String user, long generation) {
    return drops.dropUser(user, generation);
  }

  /**
   * Drops a connection with its pages ({@code drop_pages}, {@code drop_connection}), and its user
   * when it was his last ({@code drop_user}); the phase is respected as by {@link #dropUser}.
   *
   * @throws WorkerException {@link RefusalReason#UNKNOWN_CONNECTION} when it is not here,
   *     and as {@link #dropUser}
   */
  public void dropConnection(String connectionId) {
    drops.dropConnection(connectionId, false);
  }

  /** The worker's clock (its schedule's), for what a call stamps or compares with now. */
  Clock clock() {
    return clock;
  }

  /**
   * A logout's drop, after its call: the connection with its pages ({@code drop_pages},
   * {@code drop_connection}); its user stays, even without a connection, unless he is a guest
   * (nobody could reach him again: {@code drop_user}). The phase is respected as by
   * {@link #dropUser}.
   *
   * @throws WorkerException as {@link #dropConnection}
   */
  void logOut(String connectionId) {
    drops.dropConnection(connectionId, true);
  }

  /**
   * A forget's drop, after its call: the user with every connection and page of his, announced as
   * {@link #dropUser} does; the commander's maps forget him with the fold of {@code drop_user}, and
   * his folder in the freezer, which nobody answers for then, goes with the next sweep.
   *
   * @throws WorkerException as {@link #dropUser}
   */
  void forgetUser(String user) {
    drops.dropUser(user, -1);
  }

  /**
   * Drops a page ({@code drop_page}); its connection goes with its last page
   * ({@code drop_connection}) and the user with his last connection ({@code drop_user}). Silent when
   * the page is not here; the phase is respected as by {@link #dropUser}.
   *
   * @return whether it was here
   * @throws WorkerException as {@link #dropUser}
   */
  public boolean dropPage(String pageId) {
    return drops.dropPage(pageId);
  }

  /**
   * Closes page {@code pageId} of connection {@code connectionId} for good, as a call of that
   * connection asks ({@link dev.cryo.app.Call#closePage}): the page is dropped
   * ({@code drop_page}, delivered before it returns), and nothing above it goes — its connection
   * stays, with no pages when it was its last. Runs no hook. The phase is respected as by
   * {@link #dropUser}.
   *
   * @return whether the page was here on that connection; false: nothing changed
   * @throws WorkerException as {@link #dropUser}
   */
  public boolean closePage(String connectionId, String pageId) {
    return drops.closePage(connectionId, pageId);
  }

  /**
   * The host of the application this worker serves (its builder's {@link Builder#application}):
   * every HTTP call for this worker goes through its {@link AppHost#serve}.
   */
  public AppHost application() {
    return application;
  }

  /** The state version stamped on every parcel this worker writes. */
  int stateVersion() {
    return stateVersion;
  }

  /** The application's hook before a freeze; a throw is logged, the freeze goes on. */
  void beforeFreeze(String user, String cause) {
    try {
      application.beforeFreeze(this, user, cause);
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "the application's beforeFreeze of '" + user + "' failed on worker "
          + name + "; he is frozen as he is", e);
    }
  }

  /** The application's hook after pages closed for good; a throw is logged. */
  void pagesClosed(String user, List<String> pageIds) {
    if (pageIds.isEmpty()) {
      return;
    }
    try {
      application.pagesClosed(this, user, List.copyOf(pageIds));
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "the application's pagesClosed of " + pageIds + " of '" + user
          + "' failed on worker " + name, e);
    }
  }

  WorkerException unknownConnection(String connectionId) {
    return drops.unknownConnection(connectionId);
  }

  // ---- login ----------------------------------------------------------------------------------

  /**
   * Logs a connection into {@code user}. Where that identity lives is the commander's knowledge:
   * the worker asks its {@link IdentityLocator} (in the process, the wire call {@code locate}).
   *
   * <p>When the identity lives here or nowhere the connection is relabelled in place at once (the
   * registry's change of connection user: a guest's entry follows its first identity, store
   * included; a resident user wins) and {@code login} is announced, with {@code new_user} and
   * {@code drop_user} when an entry was born or left. The guest's transfer flag is dropped; a real
   * previous owner keeps his.
   *
   * <p>When the identity lives on another worker or in the freezer, the connection leaves by the
   * login tail once its owner has no call in flight: its parcel, with its pages and — for a guest's
   * only connection — the guest's store, is written under the new identity's folder; {@code login}
   * and the drops are announced and memory no longer holds it. The worker holding the identity (or
   * waking it) adopts it on the next call, and its resident store wins over the carried one. A busy
   * semaphore (past the wait limit) or a refused write leaves everything alive as it was. From
   * inside a call the hand-over waits for that call to close: never wait for the returned future
   * from inside the handler.
   *
   * @return completes with the outcome, or exceptionally with a {@link WorkerException}; complete
   *     on return when relabelled in place
   * @throws WorkerException {@link RefusalReason#UNKNOWN_CONNECTION},
   *     {@link RefusalReason#LOCATE_FAILED} when the locator failed,
   *     {@link RefusalReason#LOCK_ORDER} when the thread holds the previous owner's lock;
   *     nothing was changed
   * @throws RegisterException {@link RegisterException.Reason#GUEST_TARGET} for a guest identity
   */
  public CompletableFuture<LoginOutcome> login(String connectionId, String user) {
    return login.login(connectionId, user);
  }

  // ---- departures: transfers, the idle valve, quit --------------------------------------------

  /**
   * Sets transfer flags from above: each user of the plan who is here is marked (users not here
   * are ignored). The flags ride the photo; after the gate delay the flagged users leave one at a
   * time — by the freezer for {@link TransferFlag#TRANSFER}, dropped for {@link TransferFlag#EXPIRY}
   * — a user in the middle of a call when his last call closes, a user being woken once awake.
   *
   * <p>An expiry order is never silently turned into a freeze: it wins over a freeze already
   * claimed or under way (the parcels it wrote are taken back, and that freeze's future completes
   * with {@link FreezeOutcome#DROPPED}), it is kept through a quit's plan and through a failed
   * freeze (it runs next), and an expiry that cannot run is counted and logged, its flag kept.
   */
  public void planTransfers(Map<String, TransferFlag> plan) {
    departures.planTransfers(plan);
  }

  /**
   * The idle valve: freezes every active user whose real clocks ({@code last_user_ts},
   * {@code last_rpc_ts}) are both older than {@code limit} (a user with neither counts as idle).
   *
   * @return the users whose freeze was ordered
   */
  public List<String> freezeIdle(Duration limit) {
    return departures.freezeIdle(Objects.requireNonNull(limit, "limit"), null);
  }

  /**
   * The idle valve with a shorter limit for guests who hold nothing: freezes every active user
   * whose real clocks are older than {@code limit}, and every guest who holds nothing — his user
   * store and the stores of each of his connections and their pages empty: he never wrote
   * anything, or only ever read (a GET of the demo writes nothing) — whose real clocks are older
   * than {@code emptyGuestLimit}. Such a guest's parcels are written with the cause
   * {@link dev.cryo.freezer.ParcelHeader#EMPTY_GUEST_CAUSE}, decided from the parcels written, so a
   * guest who wrote between this check and his freeze is marked as any other. Thread-safe; the
   * freezes are ordered, not awaited.
   *
   * @param limit the idle time after which anybody is frozen, or null for none
   * @param emptyGuestLimit the idle time after which a guest holding nothing is frozen, or null
   * @return the users whose freeze was ordered
   */
  public List<String> freezeIdle(Duration limit, Duration emptyGuestLimit) {
    return departures.freezeIdle(limit, emptyGuestLimit);
  }

  /**
   * Waits up to {@code patience} for a {@link #quit} to begin, and says whether one has. A freeze
   * that hurries one user of a quit ordered just before it calls this first, so that it departs as
   * one of the quit's and counts in the quit's report.
   *
   * @throws InterruptedException if interrupted while waiting
   */
  public boolean awaitQuit(Duration patience) throws InterruptedException {
    return departures.awaitQuit(patience);
  }

  /** Quits into the worker's own freezer; see {@link #quit(Freezer)}. */
  public CompletableFuture<QuitReport> quit() {
    return quit(freezer);
  }

  /**
   * Quits: every user is flagged (the plan is terminal: users arriving later are flagged too), the
   * gate is waited, users leave into {@code into} as their calls end — up to
   * {@link Builder#quitDeparturesAtOnce} departures at once, each holding its user's semaphore, each
   * one task of the schedule and one trip of the disk executor, so other work runs between them —
   * calls still
   * stuck a grace period after the gate are cut (their users are frozen with them in flight; what
   * those calls write afterwards is lost), and the worker finishes: it reports, stops its own
   * executors and serves nothing more. A departure that fails is counted and its user left as he
   * is. Asking again returns the same report.
   *
   * <p>Every departure that runs after the quit began goes into {@code into}, whoever ordered it
   * and whenever it was claimed: the quit's own, a freeze claimed before it that waited for a call,
   * the idle valve, {@link #freezeUser}, a login tail's parcel. Each asks for its root when it
   * tries its semaphore; one already writing elsewhere when the quit began finishes there, and the
   * quit waits for it.
   */
  public CompletableFuture<QuitReport> quit(Freezer into) {
    return departures.quit(into, null, null, "quit");
  }

  /**
   * Quits into {@code into} as {@link #quit(Freezer)} does, with this quit's own pacing.
   *
   * @param gate how long after this call the departures start, or null for the worker's gate
   *     ({@link Builder#transferStartDelay}); zero when no new call can come (its caller holds them)
   * @param grace how long after the gate calls in flight are waited for before they are cut, or null
   *     for the worker's grace ({@link Builder#pendingCallGrace})
   */
  public CompletableFuture<QuitReport> quit(Freezer into, Duration gate, Duration grace) {
    return departures.quit(into, gate, grace, "quit");
  }

  /**
   * Quits into {@code into} as {@link #quit(Freezer, Duration, Duration)} does, on the worker's
   * own, because its commander is gone: the parcels are written with the cause
   * {@link ParcelHeader#COMMANDER_LOST_CAUSE}, by which the next start knows them
   * as the newest state of users its journal may not have heard of.
   */
  public CompletableFuture<QuitReport> quitWithoutCommander(Freezer into, Duration gate,
      Duration grace) {
    return departures.quit(into, gate, grace, ParcelHeader.COMMANDER_LOST_CAUSE);
  }

  /**
   * Stops the worker's own executors (those it made itself) without freezing anybody: what is in
   * memory is lost, as after a stop {@code now}. Idempotent.
   */
  @Override
  public void close() {
    departures.markFinished();
    shutdownOwned();
  }

  /** Stops the executors the worker made itself; idempotent. */
  void shutdownOwned() {
    if (ownedDisk != null) {
      ownedDisk.shutdown();
    }
    durableDisk.shutdown();
    if (ownsSchedule) {
      schedule.shutdown();
    }
  }

  // ---- the photo ------------------------------------------------------------------------------

  /**
   * The photo of the worker: cheap (no disk, no row lock, one short lock per user) and consistent
   * per user — each user is read whole, never in the middle of a wake, a freeze or a login, and only
   * as the registers hold him. It carries the worker's state and the announcement watermark read
   * before the users: the photo shows at least the effects of every announcement up to it.
   */
  public Photo photo() {
    return photographer.photo();
  }

  /** After each semaphore trip left the disk: a quit waiting for the disk to be quiet may end. */
  private void afterTrip() {
    departures.checkQuitFinished();
  }

  /** How many semaphore trips are at the disk now; see {@link SemaphoreTrips#atDisk}. */
  int tripsAtDisk() {
    return trips.atDisk();
  }

  /** Runs {@code action} once every announcement published so far was delivered; never blocks. */
  void afterAnnouncements(Runnable action) {
    announcer.afterDelivered(action);
  }

  static Throwable unwrap(Throwable failure) {
    Throwable cause = failure;
    while (cause instanceof CompletionException && cause.getCause() != null) {
      cause = cause.getCause();
    }
    return cause;
  }

  // ---- the builder ----------------------------------------------------------------------------

  /**
   * Builds a {@link Worker}. Defaults: group {@code ""}; a new registry on the schedule's clock; the
   * host of an application with no routes (every request a {@code 404}); no listener; {@link IdentityLocator#NOWHERE}; the system schedule; two daemon disk threads;
   * semaphore retried every 50 ms for up to 30 s; transfer gate 2 s; quit grace 5 s; a quit's
   * departures {@value #QUIT_DEPARTURES_AT_ONCE} at once; idle valve off.
   * Not thread-safe.
   */
  public static final class Builder {
    /** How many of a quit's departures run at once by default: twice the own disk threads. */
    public static final int QUIT_DEPARTURES_AT_ONCE = 4;

    private final String name;
    private final Freezer freezer;
    private String group = "";
    private RegisterRegistry registry;
    private AppHost application;
    private AnnouncementListener listener = announcement -> { };
    private IdentityLocator locator = IdentityLocator.NOWHERE;
    private Schedule schedule;
    private Executor disk;
    private Duration retryInterval = Duration.ofMillis(50);
    private Duration waitLimit = Duration.ofSeconds(30);
    private Duration gate = Duration.ofSeconds(2);
    private Duration grace = Duration.ofSeconds(5);
    private Duration idleLimit;
    private Duration emptyGuestIdleLimit;
    private MemoryPressure memoryPressure;
    private Duration idleCheck = Duration.ofMinutes(1);
    private Duration checkpoint;
    private int quitDeparturesAtOnce = QUIT_DEPARTURES_AT_ONCE;

    private Builder(String name, Freezer freezer) {
      this.name = Objects.requireNonNull(name, "name");
      this.freezer = Objects.requireNonNull(freezer, "freezer");
    }

    /** The worker's group, written in the parcels' headers. */
    public Builder group(String value) {
      this.group = Objects.requireNonNull(value);
      return this;
    }

    /** The registry to hold the users in; its stores must be {@link Store}s. */
    public Builder registry(RegisterRegistry value) {
      this.registry = Objects.requireNonNull(value);
      return this;
    }

    /**
     * The host of the application serving the calls: every HTTP call reaches the worker through
     * {@link AppHost#serve} of this host, and the host's hooks run on the worker's freezes and
     * drops. One host serves one worker.
     */
    public Builder application(AppHost value) {
      this.application = Objects.requireNonNull(value);
      return this;
    }

    /** Who receives the announcements. */
    public Builder listener(AnnouncementListener value) {
      this.listener = Objects.requireNonNull(value);
      return this;
    }

    /**
     * Who says where an identity lives, for {@link Worker#login}; default
     * {@link IdentityLocator#NOWHERE} (a worker alone: every login relabels in place).
     */
    public Builder identityLocator(IdentityLocator value) {
      this.locator = Objects.requireNonNull(value);
      return this;
    }

    /** The clock and the delayed work; the worker does not shut down a schedule it was given. */
    public Builder schedule(Schedule value) {
      this.schedule = Objects.requireNonNull(value);
      return this;
    }

    /** Where disk work runs; the worker does not shut down an executor it was given. */
    public Builder diskExecutor(Executor value) {
      this.disk = Objects.requireNonNull(value);
      return this;
    }

    /** How long between two tries of a busy semaphore. */
    public Builder semaphoreRetryInterval(Duration value) {
      this.retryInterval = requirePositive(value);
      return this;
    }

    /** How long a busy semaphore is tried before the operation gives up. */
    public Builder semaphoreWaitLimit(Duration value) {
      this.waitLimit = requireNotNegative(value);
      return this;
    }

    /** The gate: how long after a plan (or a quit) the departures start. */
    public Builder transferStartDelay(Duration value) {
      this.gate = requireNotNegative(value);
      return this;
    }

    /** How long after the quit's gate calls still in flight are cut. */
    public Builder pendingCallGrace(Duration value) {
      this.grace = requireNotNegative(value);
      return this;
    }

    /**
     * How many of a quit's own departures run at once (at least 1). Each still takes its user's
     * semaphore and runs its disk trip on the disk executor, so more than that executor's threads
     * only keeps it fed. Before a quit, a transfer plan's departures leave one at a time, in the
     * plan's order; once a quit began, every flagged user leaves in the quit's slots.
     */
    public Builder quitDeparturesAtOnce(int value) {
      if (value < 1) {
        throw new IllegalArgumentException("a quit runs at least one departure at a time, got "
            + value);
      }
      this.quitDeparturesAtOnce = value;
      return this;
    }

    /** Turns the idle valve on: every {@code every}, users idle for {@code limit} are frozen. */
    public Builder idleFreeze(Duration limit, Duration every) {
      this.idleLimit = requireNotNegative(limit);
      this.idleCheck = requirePositive(every);
      return this;
    }

    /**
     * Turns the idle valve on for guests who hold nothing ({@link Worker#freezeIdle(Duration,
     * Duration)}): every {@code every}, those idle for {@code limit} are frozen (off by default;
     * with {@link #idleFreeze} too, one valve runs both limits, every {@code every} of the last
     * call).
     *
     * @return this builder
     */
    public Builder emptyGuestIdleFreeze(Duration limit, Duration every) {
      this.emptyGuestIdleLimit = requireNotNegative(limit);
      this.idleCheck = requirePositive(every);
      return this;
    }

    /**
     * Turns checkpoints on ({@link Checkpoints}): every {@code every}, the state of each user
     * served a call since his last is written behind to the freezer while he stays awake, so that
     * the death of this worker loses at most that much of his writes. Off by default.
     *
     * @return this builder
     */
    public Builder checkpointEvery(Duration every) {
      this.checkpoint = requirePositive(every);
      return this;
    }

    /**
     * Turns the heap valve on ({@link HeapValve}): after each collection that ends with the heap
     * past the line {@code pressure} reports, the least recently served users are frozen in
     * batches. Off by default; the worker process turns it on with the JVM's own pressure.
     *
     * @return this builder
     */
    Builder heapValve(MemoryPressure pressure) {
      this.memoryPressure = java.util.Objects.requireNonNull(pressure, "pressure");
      return this;
    }

    /**
     * The idle valve's check period for the shortest of its limits: a quarter of it, at least one
     * second and at most one minute, so a user is frozen within a quarter of his limit past it.
     *
     * @param shortest the shortest idle limit in force
     * @return the period
     */
    public static Duration idleCheckPeriod(Duration shortest) {
      Duration quarter = shortest.dividedBy(4);
      Duration floor = Duration.ofSeconds(1);
      Duration ceiling = Duration.ofMinutes(1);
      return quarter.compareTo(floor) < 0 ? floor : quarter.compareTo(ceiling) > 0 ? ceiling
          : quarter;
    }

    /** The worker. */
    public Worker build() {
      return new Worker(this);
    }

    private static Duration requirePositive(Duration value) {
      if (value.isNegative() || value.isZero()) {
        throw new IllegalArgumentException("expected a positive duration, got " + value);
      }
      return value;
    }

    private static Duration requireNotNegative(Duration value) {
      if (value.isNegative()) {
        throw new IllegalArgumentException("expected a duration of zero or more, got " + value);
      }
      return value;
    }
  }
}
