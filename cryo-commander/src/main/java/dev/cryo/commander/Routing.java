package dev.cryo.commander;

import dev.cryo.commander.Location.Frozen;
import dev.cryo.commander.Location.OnWorker;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The commander's routing maps: connection → user, user → worker or frozen, page → connection, and
 * the users held with their waiters.
 *
 * <h2>The ordering rule</h2>
 * The maps change only by {@link #fold}ing a worker's announcements, in the order they arrive from
 * that worker (the wire delivers them before any reply of a call that caused them), and by
 * {@link #workerDied}. Nothing is inferred: a user is {@link Frozen} only after a
 * {@code user_frozen} announcement (a quit's freezes too: the worker announces each before its
 * quit's reply, which carries counts only), and a user is lost only with the death of the worker
 * that held him. What a fold cannot apply without breaking
 * the maps' coherence (a worker telling of a user another worker holds, a page of an unknown
 * connection, a gap in the sequence) is an <em>anomaly</em>: logged, counted, recorded as an event,
 * and otherwise ignored.
 *
 * <h2>Invariants (kept after any sequence of calls, whatever the workers say)</h2>
 * <ul>
 *   <li>every connection's user is known (on a worker or frozen);
 *   <li>every page's connection is known;
 *   <li>the index worker → users agrees with user → worker;
 *   <li>a user on a worker that died is gone from every map.
 * </ul>
 *
 * <h2>Holds</h2>
 * A user being frozen, moved, dropped or quit with his worker is held ({@link #hold}): his requests
 * wait ({@link #awaitUnheld}) until the fold that ends the operation releases it ({@code user_frozen},
 * {@code user_adopted}, {@code drop_user}, the death of his worker) or the operation's owner
 * {@link #release}s it after a failure. A move's hold carries its destination: the fold of
 * {@code user_frozen} records it in the {@link Frozen} location before any waiter wakes, so his next
 * request goes there.
 *
 * <p>Every event (one per fold, and the deaths and notes given through {@link #note}) goes to the
 * {@link EventSink} under the maps' lock, so the event log's order is the fold order. Thread-safe:
 * every method takes one lock, held briefly; waiting for a hold happens outside it.
 */
public final class Routing {

  private static final System.Logger LOG = System.getLogger(Routing.class.getName());

  private final EventSink events;
  private MapChanges changes = MapChanges.NONE;
  private java.util.function.BiConsumer<String, String> closedPages = (connection, page) -> { };
  private final Map<String, String> connectionUser = new HashMap<>();
  private final Map<String, Set<String>> userConnections = new HashMap<>();
  private final Map<String, Location> users = new HashMap<>();
  private final Map<String, Set<String>> workerUsers = new HashMap<>();
  private final Map<String, Integer> boundFor = new HashMap<>(); // destination → frozen users bound
  private int frozenCount;
  private final Map<String, String> pageConnection = new HashMap<>();
  private final Map<String, Set<String>> connectionPages = new HashMap<>();
  private final Map<String, Long> lastSequence = new HashMap<>();
  private final Map<String, String> lastNewConnection = new HashMap<>();
  /**
   * The connections a login tail handed to a user living on another worker than the login's, not
   * adopted there yet: they wait in his folder, and his worker does not know them.
   */
  private final Set<String> awaitingAdoption = new HashSet<>();
  /**
   * By user living on a worker after a wake, the generation of the parcel he was woken from: his
   * worker keeps it in the freezer until his stay writes his own, so his worker's death before
   * that freezes him back at it ({@link #workerDied}).
   */
  private final Map<String, Long> wokenFrom = new HashMap<>();
  private final Map<String, Hold> holds = new HashMap<>();
  private long lost;
  private long anomalies;
  private long folds;
  private final Map<String, Long> repairs = new java.util.TreeMap<>();
  /** By worker, the disagreements its last photo showed ("user@generation", "-user" if absent). */
  private final Map<String, Set<String>> suspects = new HashMap<>();
  private Generations generations = Generations.inMemory();
  private RepairOrders repairOrders = RepairOrders.NONE;

  /**
   * What a repair of the maps asks of a worker: drop the copy of {@code user} it holds at
   * {@code generation}, a copy the maps do not give it. Called under the maps' lock: it must only
   * queue the order (the order is fenced, so a late one touches nothing else).
   */
  @FunctionalInterface
  interface RepairOrders {
    /** Orders nothing. */
    RepairOrders NONE = (worker, user, generation) -> { };

    /** Orders {@code worker} to drop its copy of {@code user} at {@code generation}. */
    void dropCopy(String worker, String user, long generation);
  }

  /** Empty maps whose events go to {@code events}. */
  public Routing(EventSink events) {
    this.events = Objects.requireNonNull(events, "events");
  }

  /** Hands out the generations from {@code counter} from now on (the run's, leased on disk). */
  synchronized void generations(Generations counter) {
    this.generations = Objects.requireNonNull(counter, "counter");
  }

  /** Sends the repairs' orders through {@code orders} from now on. */
  synchronized void repairOrders(RepairOrders orders) {
    this.repairOrders = Objects.requireNonNull(orders, "orders");
  }

  /** A new generation, for a birth: greater than every one handed out before. */
  public synchronized long nextGeneration() {
    return generations.next();
  }

  /** The repairs made so far, by kind (sorted). */
  public synchronized Map<String, Long> repairs() {
    return Map.copyOf(repairs);
  }

  /**
   * Tells {@code listener} (connection, page) of every page closed for good from now on — a
   * {@code drop_page}: the application's {@code closePage}, a drop order — under the maps' lock,
   * once the page is gone from them. Not a freeze's drop of a page's rows, not the pages of a
   * connection or a user that went. The listener must not block and must not call back here.
   */
  synchronized void tellClosedPages(java.util.function.BiConsumer<String, String> listener) {
    this.closedPages = Objects.requireNonNull(listener, "listener");
  }

  /** Tells {@code listener} of every change of the maps from now on, under the maps' lock. */
  synchronized void tell(MapChanges listener) {
    this.changes = Objects.requireNonNull(listener, "listener");
  }

  /**
   * Runs {@code action} under the maps' lock with a copy of them: no change happens between the
   * copy and the end of the action (the journal's compaction swaps its files there).
   */
  synchronized void withSnapshot(java.util.function.Consumer<Snapshot> action) {
    action.accept(snapshot());
  }

  /** The counts the status shows. */
  public record Counts(int placed, int frozen, int connections, int pages, int held, long lost,
      long anomalies, long folds) {}

  // ------------------------------------------------------------------------------- reading

  /** The user of {@code connection}, when the maps know the connection. */
  public synchronized Optional<String> userOf(String connection) {
    return Optional.ofNullable(connectionUser.get(connection));
  }

  /** Whether the maps know {@code connection}. */
  public synchronized boolean knowsConnection(String connection) {
    return connectionUser.containsKey(connection);
  }

  /** Where {@code user} lives, as the maps say. */
  public synchronized Location locate(String user) {
    return users.getOrDefault(user, Location.UNKNOWN);
  }

  /**
   * Where {@code user} lives, for a login on {@code asker}: when nobody holds him (unknown to the
   * maps), he is <em>claimed</em> for the asker at a new generation — placed on it in the maps
   * before the answer leaves, so that a second login into him meanwhile hears that the asker holds
   * him and hands its connection over, never makes a second copy. Records a {@code claim} event.
   *
   * @return his location, and whether this call claimed him
   */
  public synchronized Claim locateFor(String user, String asker) {
    Location location = users.getOrDefault(user, Location.UNKNOWN);
    if (!(location instanceof Location.Unknown) || holds.containsKey(user)) {
      return new Claim(location, false);
    }
    OnWorker claimed = new OnWorker(asker, generations.next());
    relocate(user, claimed);
    Map<String, Object> fields = new LinkedHashMap<>();
    fields.put("user", user);
    fields.put("worker", asker);
    fields.put("generation", claimed.generation());
    events.record("claim", fields);
    return new Claim(claimed, true);
  }

  /** A login's answer: where the identity lives, and whether the question claimed it. */
  public record Claim(Location location, boolean claimed) {}

  /** The connection of {@code page}, when the maps know it. */
  public synchronized Optional<String> connectionOfPage(String page) {
    return Optional.ofNullable(pageConnection.get(page));
  }

  /** The pages of {@code connection}, in the order they were opened. */
  public synchronized List<String> pagesOf(String connection) {
    return List.copyOf(connectionPages.getOrDefault(connection, Set.of()));
  }

  /** The connections of {@code user}, sorted. */
  public synchronized List<String> connectionsOf(String user) {
    return List.copyOf(new TreeSet<>(userConnections.getOrDefault(user, Set.of())));
  }

  /** The users living on {@code worker}, each with his stay's generation. */
  public synchronized Map<String, Long> staysOn(String worker) {
    Map<String, Long> stays = new TreeMap<>();
    for (String user : workerUsers.getOrDefault(worker, Set.of())) {
      if (users.get(user) instanceof OnWorker on) {
        stays.put(user, on.generation());
      }
    }
    return stays;
  }

  /**
   * The generation of the parcel {@code user} was woken from, while his stay has not written his
   * own over it as far as the maps know: a dead worker's parcel of it is his too. 0 when none.
   */
  public synchronized long wokenFrom(String user) {
    return wokenFrom.getOrDefault(user, 0L);
  }

  /** The users living on {@code worker}, sorted. */
  public synchronized List<String> usersOn(String worker) {
    return List.copyOf(new TreeSet<>(workerUsers.getOrDefault(worker, Set.of())));
  }

  /**
   * How many users count against {@code worker}'s admission: those living on it and the frozen ones
   * whose next request is already bound for it.
   */
  public synchronized int occupancy(String worker) {
    return workerUsers.getOrDefault(worker, Set.of()).size() + boundFor.getOrDefault(worker, 0);
  }

  /** The sequence number of the last announcement folded from {@code worker}, 0 before any. */
  public synchronized long lastSequence(String worker) {
    return lastSequence.getOrDefault(worker, 0L);
  }

  /** The counts the status shows. */
  public synchronized Counts counts() {
    return new Counts(users.size() - frozenCount, frozenCount, connectionUser.size(),
        pageConnection.size(), holds.size(), lost, anomalies, folds);
  }

  /**
   * A copy of every map, for tests and for a drain that writes them out.
   *
   * @param connectionUser connection → user
   * @param users user → location (never {@link Location.Unknown})
   * @param workerUsers worker → the users living on it
   * @param pageConnection page → connection
   * @param held the users held
   */
  public record Snapshot(Map<String, String> connectionUser, Map<String, Location> users,
      Map<String, Set<String>> workerUsers, Map<String, String> pageConnection, Set<String> held) {}

  /** A copy of every map. */
  public synchronized Snapshot snapshot() {
    Map<String, Set<String>> residents = new HashMap<>();
    workerUsers.forEach((worker, on) -> {
      if (!on.isEmpty()) {
        residents.put(worker, Set.copyOf(on));
      }
    });
    return new Snapshot(Map.copyOf(connectionUser), Map.copyOf(users), Map.copyOf(residents),
        Map.copyOf(pageConnection), Set.copyOf(holds.keySet()));
  }

  /**
   * The users frozen with no worker bound for their next request and no hold, sorted: those an
   * {@link Expiry} may drop.
   */
  public synchronized List<String> frozenUnbound() {
    List<String> out = new ArrayList<>();
    users.forEach((user, location) -> {
      if (location instanceof Frozen frozen && frozen.destination() == null
          && !holds.containsKey(user)) {
        out.add(user);
      }
    });
    out.sort(null);
    return out;
  }

  /** Every identity the maps answer for — placed, frozen, held — sorted: what the sweep keeps. */
  public synchronized List<String> identities() {
    TreeSet<String> out = new TreeSet<>(users.keySet());
    out.addAll(holds.keySet());
    out.addAll(userConnections.keySet());
    return List.copyOf(out);
  }

  /**
   * Forgets {@code user} for his expiry — he, his connections and their pages — when he is still
   * frozen, unbound and unheld; records the {@code user_expired} event.
   *
   * @param why what made him expire, for the event
   * @return whether he was forgotten (false: he was bound, held, woken or gone meanwhile)
   */
  public synchronized boolean forgetExpired(String user, String why) {
    if (!(users.get(user) instanceof Frozen frozen) || frozen.destination() != null
        || holds.containsKey(user)) {
      return false;
    }
    List<String> connections = List.copyOf(userConnections.getOrDefault(user, Set.of()));
    removeUser(user);
    Map<String, Object> fields = new LinkedHashMap<>();
    fields.put("user", user);
    fields.put("connections", connections.size());
    fields.put("message", "'" + user + "' expired (" + why + "): his folder is dropped and his "
        + connections.size() + " connections forgotten");
    events.record("user_expired", fields);
    return true;
  }

  // ------------------------------------------------------------------------------- folding

  /**
   * Folds one announcement of {@code worker}, arrived after every one folded before it from that
   * worker. Never throws for what the announcement says: what cannot be applied is an anomaly.
   */
  public synchronized void fold(String worker, Announcement announcement) {
    Objects.requireNonNull(worker, "worker");
    folds++;
    Map<String, Object> fields = new LinkedHashMap<>();
    fields.put("worker", worker);
    fields.put("seq", announcement.sequence());
    fields.put("kind", announcement.kind().code());
    fields.put("user", announcement.user());
    fields.put("keys", announcement.keys());
    fields.put("detail", announcement.detail());
    if (announcement.request() != null) {
      fields.put("request", announcement.request()); // the request whose call caused it
    }
    events.record("fold", fields);
    long expected = lastSequence.getOrDefault(worker, 0L) + 1;
    if (announcement.sequence() != expected) {
      anomaly(worker, announcement, "sequence " + announcement.sequence() + " where " + expected
          + " was due (an announcement was lost or repeated); folded anyway");
    }
    lastSequence.put(worker, Math.max(announcement.sequence(), expected - 1));
    String user = announcement.user();
    switch (announcement.kind()) {
      case NEW_USER -> placeOn(worker, user, announcement);
      case NEW_CONNECTION -> {
        if (placeOn(worker, user, announcement)) {
          for (String connection : announcement.keys()) {
            linkConnection(connection, user);
            lastNewConnection.put(worker + '\0' + user, connection);
          }
        }
      }
      case NEW_PAGE -> {
        if (placeOn(worker, user, announcement)) {
          for (String page : announcement.keys()) {
            newPage(worker, user, page, announcement);
          }
        }
      }
      case DROP_PAGE, DROP_PAGES -> {
        // A freeze drops the rows of a user's pages, not the pages: their browsers' sockets stay
        // open in the front, so a frozen user's pages stay mapped (pushes reach them) until he
        // wakes (his pages are announced anew) or is dropped.
        // A drop by a worker the maps do not give him to is a copy's (being repaired): its rows
        // are not his, and the maps keep his pages and connections.
        if (!users.containsKey(user) || holdsHere(worker, user, announcement)) {
          for (String page : announcement.keys()) {
            String connection = pageConnection.get(page);
            unlinkPage(page);
            if (announcement.kind() == dev.cryo.wire.protocol.AnnouncementKind.DROP_PAGE
                && connection != null) {
              closedPages.accept(connection, page); // closed by the application or an order
            }
          }
        }
      }
      case DROP_CONNECTION, DROP_CONNECTIONS -> {
        if (users.containsKey(user) && !holdsHere(worker, user, announcement)) {
          break; // a copy's, as above
        }
        for (String connection : announcement.keys()) {
          if (user.equals(connectionUser.get(connection))) { // else relabelled meanwhile: kept
            unlinkConnection(connection);
          }
        }
      }
      case DROP_USER -> dropUser(worker, user, announcement);
      case LOGIN -> login(worker, user, announcement);
      case USER_FROZEN -> frozen(worker, user, announcement);
      case USER_ADOPTED -> {
        if (placeOn(worker, user, announcement)) {
          releaseHold(user, new Hold.Ending.Folded(worker, "user_adopted"));
        }
      }
    }
  }

  /**
   * The death of {@code worker}: its users that were not frozen are lost, gone from every map, and
   * their holds released; the frozen ones are untouched (a destination on the dead worker is
   * forgotten). Records a {@code worker_died} event naming them, as an unplanned death.
   *
   * @return the lost users, sorted
   */
  public List<String> workerDied(String worker, String reason) {
    return workerDied(worker, reason, false);
  }

  /**
   * As {@link #workerDied(String, String)}; {@code planned} when the run ended the worker on
   * purpose (its quit into the freezer reported, or a drain abandoned its start): the event's
   * {@code planned} field, which the metrics count apart from deaths.
   */
  public synchronized List<String> workerDied(String worker, String reason, boolean planned) {
    return workerDied(worker, reason, planned, Map.of());
  }

  /**
   * As {@link #workerDied(String, String, boolean)}, with {@code checkpoints}: the parcels the
   * dead worker left of its users ({@link UserParcels}, read once its process was gone). A user
   * living there at the generation of his parcel, or woken there from it ({@link #wokenFrom}), is
   * not lost but frozen at it, with the
   * connections and pages it holds (those the maps gave him since are dropped; one the maps give
   * another user meanwhile stays that user's); the event names him under {@code restored}.
   *
   * @return the lost users, sorted (the restored are not among them)
   */
  public synchronized List<String> workerDied(String worker, String reason, boolean planned,
      Map<String, UserParcels> checkpoints) {
    List<String> residents = List.copyOf(new TreeSet<>(workerUsers.getOrDefault(worker,
        Set.of())));
    List<String> gone = new ArrayList<>();
    List<String> restored = new ArrayList<>();
    for (String user : residents) {
      UserParcels own = checkpoints.get(user);
      if (own != null && own.generation() > 0 && users.get(user) instanceof OnWorker on
          && (on.generation() == own.generation()
              || own.generation() == wokenFrom.getOrDefault(user, -1L))) {
        restore(user, own);
        restored.add(user);
      } else {
        removeUser(user);
        gone.add(user);
      }
    }
    lost += gone.size();
    workerUsers.remove(worker);
    suspects.remove(worker);
    forgetDestination(worker);
    lastSequence.remove(worker);
    lastNewConnection.keySet().removeIf(key -> key.startsWith(worker + '\0'));
    Map<String, Object> fields = new LinkedHashMap<>();
    fields.put("worker", worker);
    fields.put("reason", reason);
    fields.put("lost", gone);
    fields.put("restored", restored);
    fields.put("planned", planned);
    events.record("worker_died", fields);
    return List.copyOf(gone);
  }

  /** Freezes {@code user} at his parcels ({@code own}), his links made theirs; under the lock. */
  private void restore(String user, UserParcels own) {
    relocate(user, new Frozen(null, own.generation(), 0));
    for (String connection : new ArrayList<>(userConnections.getOrDefault(user, Set.of()))) {
      if (!own.connections().containsKey(connection)) {
        unlinkConnection(connection); // opened (or taken) since his parcels were written
      }
    }
    own.connections().forEach((connection, pages) -> {
      String holder = connectionUser.get(connection);
      if (holder != null && !holder.equals(user)) {
        return; // handed over to another since: the maps are newer
      }
      if (holder == null) {
        linkConnection(connection, user);
      }
      for (String page : new ArrayList<>(connectionPages.getOrDefault(connection, Set.of()))) {
        if (!pages.contains(page)) {
          unlinkPage(page);
        }
      }
      pages.forEach(page -> {
        if (!connection.equals(pageConnection.get(page))) {
          linkPage(page, connection);
        }
      });
    });
    releaseHold(user, new Hold.Ending.Forgotten());
  }

  /**
   * Loads the maps of an earlier run, every user frozen with no destination: his cookie resolves and
   * his next request wakes him where placement picks. {@code lostAtStart} users of that run that
   * were awake when it ended are counted as lost (they are named by the caller). Called once, on
   * empty maps, before any worker presented itself; records an {@code adopted} event.
   *
   * @throws IllegalStateException when the maps are not empty
   */
  public synchronized void adopt(CommanderItem item, List<String> lostAtStart) {
    adopt(item, lostAtStart, List.of());
  }

  /**
   * As {@link #adopt(CommanderItem, List)}; {@code restored} users of the item come back from a
   * checkpoint (what they wrote after it is lost), named so in the event.
   */
  public synchronized void adopt(CommanderItem item, List<String> lostAtStart,
      List<String> restored) {
    if (!users.isEmpty() || !connectionUser.isEmpty()) {
      throw new IllegalStateException("the maps hold users already; an earlier run's are adopted"
          + " only by a new commander");
    }
    for (String user : item.frozen()) { // his wake reads a parcel of his freeze's generation
      relocate(user, new Frozen(null, item.generations().getOrDefault(user, 0L), 0));
    }
    item.connectionUser().forEach((connection, user) -> linkConnection(connection, user));
    item.pageConnection().forEach(this::linkPage);
    lost += lostAtStart.size();
    Map<String, Object> fields = new LinkedHashMap<>();
    fields.put("cause", item.cause());
    fields.put("frozen", item.frozen().size());
    fields.put("connections", item.connectionUser().size());
    fields.put("pages", item.pageConnection().size());
    fields.put("lost", List.copyOf(lostAtStart));
    fields.put("restored", List.copyOf(restored));
    events.record("adopted", fields);
  }

  /**
   * Gives each frozen user of {@code handedOver} the connections whose parcels a login tail handed
   * over to him and left in his folder, with their pages, where the maps give them to nobody or to
   * another (the login's link came after the maps were taken: a drain's snapshot, a journal's lost
   * batch). Called by a start once it adopted, before any worker runs; journaled as any link.
   *
   * @return how many connections were given
   */
  public synchronized int adoptHandedOver(Map<String, Map<String, List<String>>> handedOver) {
    int given = 0;
    for (Map.Entry<String, Map<String, List<String>>> own : handedOver.entrySet()) {
      String user = own.getKey();
      if (!(users.get(user) instanceof Frozen)) {
        continue;
      }
      for (Map.Entry<String, List<String>> connection : own.getValue().entrySet()) {
        if (user.equals(connectionUser.get(connection.getKey()))) {
          continue;
        }
        if (connectionUser.containsKey(connection.getKey())) {
          unlinkConnection(connection.getKey()); // with the pages the maps gave it
        }
        linkConnection(connection.getKey(), user);
        connection.getValue().forEach(page -> linkPage(page, connection.getKey()));
        given++;
      }
    }
    if (given > 0) {
      LOG.log(Level.INFO, "a start gave " + given + " connections handed over by logins after the"
          + " maps were taken to their identities");
    }
    return given;
  }

  /**
   * Reconciles the maps with a photo of {@code worker} ({@code held}: the users it holds, each
   * with the generation of his stay there). A disagreement is acted on only when the worker's
   * previous photo showed it too — a photo races with the announcements on their way, never two
   * photos a heartbeat apart:
   *
   * <ul>
   *   <li>a stay the maps do not give the worker (neither living there at that generation, nor
   *       frozen with his wake granted to it at that generation) is a copy: dropped there by a
   *       fenced order ({@code stray_copy});
   *   <li>a user the maps say lives on the worker, which holds him at no generation, is not there:
   *       the maps mark him frozen, with no worker bound, so his next request wakes his parcel
   *       ({@code absent}).
   * </ul>
   *
   * Users at generation 0 (a worker that tells none) are left alone.
   *
   * <p>A photo may be one page of the worker's users ({@code PhotoMessage#covers}): then
   * {@code held} lists every user it holds among those {@code covers} accepts, and says nothing of
   * the others. Only users the page covers are compared: one it leaves out is never found absent,
   * and a suspicion about him from an earlier photo is kept, neither acted on nor cleared, until a
   * photo covers him again. "Two photos in a row" then means two photos covering him (a cycle of
   * pages apart, longer than a beat: more time for an announcement on its way to arrive); a
   * suspicion names the stay's generation, so one about an earlier stay never counts for a later.
   *
   * @param covers whether the photo speaks of a user (a whole photo: every user)
   */
  public synchronized void reconcile(String worker, Map<String, Long> held,
      java.util.function.Predicate<String> covers) {
    Set<String> now = new java.util.HashSet<>();
    held.forEach((user, generation) -> {
      if (generation == 0) {
        return;
      }
      Location location = users.get(user);
      boolean given = location instanceof OnWorker on && on.worker().equals(worker)
          && on.generation() == generation
          || location instanceof Frozen frozen && worker.equals(frozen.destination())
          && frozen.wakeGeneration() == generation;
      if (!given && !holds.containsKey(user)) {
        now.add(user + "@" + generation);
      }
    });
    for (String user : workerUsers.getOrDefault(worker, Set.of())) {
      if (users.get(user) instanceof OnWorker on && on.generation() != 0 && !held.containsKey(user)
          && !holds.containsKey(user) && covers.test(user)) {
        now.add("-" + user + "@" + on.generation());
      }
    }
    Set<String> before = suspects.get(worker);
    Set<String> kept = new java.util.HashSet<>(now);
    if (before != null) {
      for (String seen : before) {
        if (!covers.test(suspectUser(seen))) {
          kept.add(seen); // this page says nothing of him: a later one will
        }
      }
    }
    suspects.put(worker, kept);
    if (before == null) {
      return;
    }
    for (String seen : now) {
      if (!before.contains(seen)) {
        continue;
      }
      if (seen.startsWith("-")) {
        String user = suspectUser(seen);
        relocate(user, new Frozen(null, 0, 0));
        recordRepair("absent", worker, user, 0, null, "'" + user + "' lives on " + worker
            + " as the maps say, but two of its photos in a row show no stay of his: he is marked"
            + " frozen, and his next request wakes his parcel");
      } else {
        int at = seen.lastIndexOf('@');
        String user = seen.substring(0, at);
        long generation = Long.parseLong(seen.substring(at + 1));
        repair("stray_copy", worker, user, generation, "worker " + worker + " holds '" + user
            + "' at generation " + generation + " in two photos in a row, a stay the maps ("
            + describe(users.getOrDefault(user, Location.UNKNOWN)) + ") do not give it: it is"
            + " dropped there");
      }
    }
  }

  /** Reconciles with a whole photo: {@link #reconcile(String, Map, java.util.function.Predicate)}. */
  public void reconcile(String worker, Map<String, Long> held) {
    reconcile(worker, held, user -> true);
  }

  /** The user of a suspicion: {@code USER@GENERATION} or {@code -USER@GENERATION}. */
  private static String suspectUser(String suspect) {
    return suspect.substring(suspect.startsWith("-") ? 1 : 0, suspect.lastIndexOf('@'));
  }

  /**
   * Forgets the frozen {@code user} whose parcel no worker found for a whole hold: a repair
   * ({@code missing_parcel}) whose event names him as lost, so that his next request starts afresh
   * instead of being refused for ever. Nothing is done when he is not frozen (any more).
   *
   * @param why what the last worker said, for the event
   */
  public synchronized void forgetMissing(String user, String why) {
    if (!(users.get(user) instanceof Frozen)) {
      return;
    }
    removeUser(user);
    lost++;
    recordRepair("missing_parcel", null, user, 0, List.of(user), "'" + user + "' was frozen but"
        + " no worker found his parcel within a hold (" + why + "); he is forgotten: his next"
        + " request starts afresh");
  }

  /**
   * Records and counts an anomaly found outside a fold (a reply ahead of its announcements): logged,
   * and recorded as an {@code anomaly} event in fold order.
   */
  public synchronized void anomaly(String worker, long sequence, String message) {
    anomalies++;
    LOG.log(Level.ERROR, "worker " + worker + ": " + message);
    Map<String, Object> fields = new LinkedHashMap<>();
    fields.put("worker", worker);
    fields.put("seq", sequence);
    fields.put("message", message);
    events.record("anomaly", fields);
  }

  /**
   * Records an event about one worker, as {@link #note(String, Map)} does: its fields are
   * {@code worker}, then {@code pairs} read as name, value, name, value (an odd last one ignored).
   */
  public void noteWorker(String event, String worker, Object... pairs) {
    Map<String, Object> fields = new LinkedHashMap<>();
    fields.put("worker", worker);
    for (int i = 0; i + 1 < pairs.length; i += 2) {
      fields.put((String) pairs[i], pairs[i + 1]);
    }
    note(event, fields);
  }

  /** Records an event of the commander's in fold order (a birth, a move, a failed start). */
  public synchronized void note(String event, Map<String, Object> fields) {
    events.record(event, fields);
  }

  // ------------------------------------------------------------------------------- placement

  /**
   * Binds the next request of the frozen {@code user} to {@code worker} at a new generation, unless
   * one is bound already: every request of a burst goes to the same worker with the same grant,
   * and that worker wakes him once.
   *
   * @return his location, bound (its destination and wake generation set), or empty when he is
   *     not frozen (any more)
   */
  public synchronized Optional<Frozen> bindFrozen(String user, String worker) {
    if (!(users.get(user) instanceof Frozen frozen)) {
      return Optional.empty();
    }
    if (frozen.destination() != null && frozen.wakeGeneration() != 0) {
      return Optional.of(frozen);
    }
    Frozen bound = frozen.boundFor(frozen.destination() != null ? frozen.destination() : worker,
        generations.next());
    relocate(user, bound);
    return Optional.of(bound);
  }

  /**
   * Forgets {@code worker} as the destination of every frozen user bound for it (it quits): their
   * next requests are placed anew.
   *
   * @return how many were bound for it
   */
  public synchronized int unbindAllFrom(String worker) {
    int bound = boundFor.getOrDefault(worker, 0);
    forgetDestination(worker);
    return bound;
  }

  /** Forgets the worker a frozen user's requests were bound to (its wake there failed). */
  public synchronized void unbindFrozen(String user, String worker) {
    if (users.get(user) instanceof Frozen frozen && worker.equals(frozen.destination())) {
      relocate(user, frozen.boundFor(null, 0)); // the wake's generation is never granted again
    }
  }

  // ------------------------------------------------------------------------------- holds

  /**
   * Holds {@code user} for {@code reason}.
   *
   * @param destination the worker his next request goes to once a {@code user_frozen} is folded
   *     (a move's), or null
   * @return the hold, or empty when he is held already (by someone else's operation)
   */
  public synchronized Optional<Hold> hold(String user, HoldReason reason, String destination) {
    if (holds.containsKey(user)) {
      return Optional.empty();
    }
    Hold hold = new Hold(user, reason, destination);
    holds.put(user, hold);
    return Optional.of(hold);
  }

  /** The hold standing on {@code user}, if any. */
  public synchronized Optional<Hold> holdOf(String user) {
    return Optional.ofNullable(holds.get(user));
  }

  /** Releases {@code hold} when it still stands (its operation failed or ended); idempotent. */
  public synchronized void release(Hold hold) {
    if (holds.get(hold.user()) == hold) {
      holds.remove(hold.user());
    }
    hold.markReleased(new Hold.Ending.ByHolder()); // no-op when a fold released it first
  }

  /**
   * Waits until no hold stands on {@code user}, or {@code deadlineNanos} ({@link System#nanoTime()})
   * passes. Holds that follow one another are waited for in turn, against the same deadline.
   *
   * @return whether he is free of holds
   */
  public boolean awaitUnheld(String user, long deadlineNanos) throws InterruptedException {
    while (true) {
      Hold hold;
      synchronized (this) {
        hold = holds.get(user);
      }
      if (hold == null) {
        return true;
      }
      if (!hold.awaitRelease(deadlineNanos)) {
        return false;
      }
    }
  }

  // ------------------------------------------------------------------------------- internals

  /**
   * Makes {@code user} live on {@code worker} at the announcement's generation, when the maps give
   * him to it: he is unknown (a birth), frozen and woken by a grant newer than his freeze (the wake
   * bound for the worker, or one whose binding was given up while its call was on its way: a
   * quitting worker's, which freezes him again), or lives there already. Otherwise the worker
   * holds a copy the maps do not give it: it is
   * {@linkplain #repair repaired} — dropped there by a fenced order, never left alive — and false
   * is returned. A generation of 0 (a worker that tells none) is taken as the maps' own.
   */
  private boolean placeOn(String worker, String user, Announcement announcement) {
    Location location = users.get(user);
    long generation = announcement.generation();
    switch (location) {
      case OnWorker on when on.worker().equals(worker) -> {
        if (generation > on.generation()) {
          relocate(user, new OnWorker(worker, generation)); // his stay there, told by its worker
        }
        return true;
      }
      case OnWorker on -> {
        repair("second_copy", worker, user, generation, "'" + user + "' lives on " + on.worker()
            + " at generation " + on.generation() + " as the maps say; worker " + worker
            + " announced a copy of him at generation " + generation + " (" + announcement.kind()
            .code() + "): it is dropped there");
        return false;
      }
      case Frozen frozen when generation != 0 && generation <= frozen.generation() -> {
        repair("second_copy", worker, user, generation, "'" + user + "' is frozen at generation "
            + frozen.generation() + "; worker " + worker + " announced a copy of him at generation "
            + generation + " (" + announcement.kind().code() + "), a stay older than his freeze:"
            + " it is dropped there");
        return false;
      }
      case null, default -> {
        relocate(user, new OnWorker(worker, generation));
        if (location instanceof Frozen frozen && frozen.generation() > 0) {
          wokenFrom.put(user, frozen.generation()); // a wake: his parcel is kept until replaced
        }
        return true;
      }
    }
  }

  /**
   * A repair of the maps: a worker holds what the maps do not give it. Counted by {@code kind},
   * recorded as a {@code repair} event in fold order, logged, and when {@code generation} is a
   * stay's, the copy is dropped there by a fenced order.
   */
  private void repair(String kind, String worker, String user, long generation, String message) {
    recordRepair(kind, worker, user, generation, null, message);
    if (generation != 0) {
      repairOrders.dropCopy(worker, user, generation);
    }
  }

  /** Counts a repair and records its event ({@code lost}: the users it forgot, or null). */
  private void recordRepair(String kind, String worker, String user, long generation,
      List<String> lostUsers, String message) {
    repairs.merge(kind, 1L, Long::sum);
    LOG.log(lostUsers == null ? Level.WARNING : Level.ERROR, "repair (" + kind + "): " + message);
    Map<String, Object> fields = new LinkedHashMap<>();
    fields.put("kind", kind);
    fields.put("worker", worker);
    fields.put("user", user);
    fields.put("generation", generation);
    if (lostUsers != null) {
      fields.put("lost", lostUsers);
    }
    fields.put("message", message);
    events.record("repair", fields);
  }

  private void newPage(String worker, String user, String page, Announcement announcement) {
    String connection = announcement.detail();
    if (connection == null) {
      connection = lastNewConnection.get(worker + '\0' + user);
    }
    if (connection == null || !user.equals(connectionUser.get(connection))) {
      Set<String> own = userConnections.getOrDefault(user, Set.of());
      connection = own.size() == 1 ? own.iterator().next() : connection;
    }
    if (connection == null || !user.equals(connectionUser.get(connection))) {
      anomaly(worker, announcement, "page '" + page + "' of '" + user + "' names no connection"
          + " of his the maps know; it is not mapped");
      return;
    }
    linkPage(page, connection);
  }

  private void linkPage(String page, String connection) {
    String before = pageConnection.put(page, connection);
    if (before != null && !before.equals(connection)) {
      connectionPages.get(before).remove(page);
    }
    connectionPages.computeIfAbsent(connection, c -> new LinkedHashSet<>()).add(page);
    changes.paged(page, connection);
  }

  private void login(String worker, String user, Announcement announcement) {
    String previous = announcement.detail();
    if (!users.containsKey(user) && !placeOn(worker, user, announcement)) {
      return;
    }
    boolean tail = !(users.get(user) instanceof OnWorker on && on.worker().equals(worker));
    for (String connection : announcement.keys()) {
      linkConnection(connection, user);
      if (tail) { // handed over by the freezer: his worker adopts it at its next call
        awaitingAdoption.add(connection);
      }
    }
    // A guest whose last connection was relabelled is re-keyed by the worker: no drop_user follows.
    if (previous != null && !previous.equals(user) && users.get(previous) instanceof OnWorker on
        && on.worker().equals(worker) && previous.startsWith("guest_")
        && userConnections.getOrDefault(previous, Set.of()).isEmpty()) {
      removeUser(previous);
    }
  }

  private void dropUser(String worker, String user, Announcement announcement) {
    Location location = users.get(user);
    if (location == null) {
      return;
    }
    if (holdsHere(worker, user, announcement)) {
      List<String> waiting = new ArrayList<>();
      for (String connection : userConnections.getOrDefault(user, Set.of())) {
        if (awaitingAdoption.contains(connection)) {
          waiting.add(connection);
        }
      }
      if (waiting.isEmpty()) {
        removeUser(user);
      } else {
        keepForHandOvers(worker, user, waiting);
      }
      return;
    }
    anomaly(worker, announcement, "'" + user + "' is " + describe(location) + "; the drop was not"
        + " applied");
  }

  /**
   * A user his worker dropped (his last connection there logged away, or ended) while login tails
   * on other workers had handed him {@code handed}: connections that wait, unadopted, in his
   * folder ({@link #awaitingAdoption}), which his worker never knew. Dropping him would forget
   * them, and their browsers would start over as guests. He is kept frozen instead, unbound, at
   * generation 0 (no user parcel is his state any more: his worker dropped it), with those
   * connections alone; the next request of one wakes him, empty, with them ({@code Waking}).
   * Records a {@code user_kept} event.
   */
  private void keepForHandOvers(String worker, String user, List<String> handed) {
    for (String connection : new ArrayList<>(userConnections.get(user))) {
      if (!handed.contains(connection)) {
        unlinkConnection(connection); // his worker's, which it did not announce dropped
      }
    }
    relocate(user, new Frozen(null, 0, 0));
    releaseHold(user, new Hold.Ending.Forgotten()); // his stay ended as a drop's would
    List<String> waiting = List.copyOf(new TreeSet<>(handed));
    Map<String, Object> fields = new LinkedHashMap<>();
    fields.put("user", user);
    fields.put("worker", worker);
    fields.put("connections", waiting);
    fields.put("message", "worker " + worker + " dropped '" + user + "', but " + waiting.size()
        + " connections a login handed to him wait in his folder: he is kept frozen, without his"
        + " dropped state, and their next request wakes him with them");
    events.record("user_kept", fields);
  }

  /**
   * Whether the maps give {@code user} to {@code worker} at the announcement's stay: he lives there,
   * at its generation (0 on either side: a worker that tells none).
   */
  private boolean holdsHere(String worker, String user, Announcement announcement) {
    return users.get(user) instanceof OnWorker on && on.worker().equals(worker)
        && (announcement.generation() == 0 || on.generation() == 0
            || on.generation() == announcement.generation());
  }

  private void frozen(String worker, String user, Announcement announcement) {
    Location location = users.get(user);
    if (location instanceof OnWorker on && !on.worker().equals(worker)) {
      repair("frozen_copy", worker, user, 0, "'" + user + "' lives on " + on.worker() + "; worker "
          + worker + " froze a copy of him at generation " + announcement.generation() + " that"
          + " the maps never gave it: the maps keep him where he lives");
      return;
    }
    Hold.Ending ending = new Hold.Ending.Folded(worker, "user_frozen"); // frozen already
    if (!(location instanceof Frozen)) {
      Hold hold = holds.get(user);
      String destination = hold == null ? null : hold.destination();
      relocate(user, new Frozen(destination, announcement.generation(),
          destination == null ? 0 : generations.next()));
      ending = new Hold.Ending.Froze(worker, destination);
      if (hold != null && hold.reason() == HoldReason.MOVING) {
        // The move's event is written here, in fold order: before any adoption it leads to.
        Map<String, Object> fields = new LinkedHashMap<>();
        fields.put("user", user);
        fields.put("from", worker);
        fields.put("to", hold.destination());
        fields.put("refused", null);
        fields.put("message", "'" + user + "' was frozen on " + worker + "; his next request"
            + " wakes him on " + hold.destination());
        events.record("move", fields);
      }
    }
    releaseHold(user, ending);
  }

  private void forgetDestination(String worker) {
    if (boundFor.containsKey(worker)) {
      for (Map.Entry<String, Location> entry : List.copyOf(users.entrySet())) {
        if (entry.getValue() instanceof Frozen frozen && worker.equals(frozen.destination())) {
          relocate(entry.getKey(), frozen.boundFor(null, 0));
        }
      }
    }
  }

  private void linkConnection(String connection, String user) {
    awaitingAdoption.remove(connection); // adopted, or linked anew: a login's own marks it after
    String before = connectionUser.put(connection, user);
    if (before != null && !before.equals(user)) {
      userConnections.get(before).remove(connection);
    }
    userConnections.computeIfAbsent(user, u -> new LinkedHashSet<>()).add(connection);
    changes.linked(connection, user);
  }

  private void unlinkConnection(String connection) {
    awaitingAdoption.remove(connection);
    String user = connectionUser.remove(connection);
    if (user != null) {
      Set<String> own = userConnections.get(user);
      own.remove(connection);
      if (own.isEmpty()) {
        userConnections.remove(user);
      }
    }
    Set<String> pages = connectionPages.remove(connection);
    if (pages != null) {
      pages.forEach(pageConnection::remove);
    }
    changes.unlinked(connection);
  }

  private void unlinkPage(String page) {
    String connection = pageConnection.remove(page);
    if (connection != null) {
      Set<String> pages = connectionPages.get(connection);
      pages.remove(page);
      if (pages.isEmpty()) {
        connectionPages.remove(connection);
      }
      changes.unpaged(page);
    }
  }

  /**
   * Changes where {@code user} lives (null: forgets him), keeping the index worker → users, the
   * counts of frozen users bound for each worker and the count of the frozen in step.
   */
  private void relocate(String user, Location next) {
    Location before = next == null ? users.remove(user) : users.put(user, next);
    if (!(next instanceof OnWorker on && before instanceof OnWorker was
        && on.worker().equals(was.worker()))) {
      wokenFrom.remove(user); // another stay, or none: what a wake read is not his any more
    }
    if (before instanceof OnWorker on) {
      Set<String> residents = workerUsers.get(on.worker());
      if (residents != null) {
        residents.remove(user);
        if (residents.isEmpty()) {
          workerUsers.remove(on.worker());
        }
      }
    } else if (before instanceof Frozen frozen) {
      frozenCount--;
      if (frozen.destination() != null) {
        boundFor.merge(frozen.destination(), -1, (a, b) -> a + b == 0 ? null : a + b);
      }
    }
    if (next instanceof OnWorker on) {
      workerUsers.computeIfAbsent(on.worker(), w -> new LinkedHashSet<>()).add(user);
    } else if (next instanceof Frozen frozen) {
      frozenCount++;
      if (frozen.destination() != null) {
        boundFor.merge(frozen.destination(), 1, Integer::sum);
      }
    }
    if (next == null) {
      if (before != null) {
        changes.forgotten(user);
      }
    } else if ((before instanceof Frozen) != (next instanceof Frozen) || before == null
        || generationOf(before) != generationOf(next)) {
      changes.located(user, next instanceof Frozen, generationOf(next));
    }
  }

  /** The generation a location holds a user at: his stay's, or his freeze's; 0 otherwise. */
  private static long generationOf(Location location) {
    return switch (location) {
      case OnWorker on -> on.generation();
      case Frozen frozen -> frozen.generation();
      default -> 0;
    };
  }

  private void removeUser(String user) {
    relocate(user, null);
    for (String connection : new ArrayList<>(userConnections.getOrDefault(user, Set.of()))) {
      unlinkConnection(connection);
    }
    userConnections.remove(user);
    releaseHold(user, new Hold.Ending.Forgotten());
  }

  private void releaseHold(String user, Hold.Ending ending) {
    Hold hold = holds.remove(user);
    if (hold != null) {
      hold.markReleased(ending);
    }
  }

  private void anomaly(String worker, Announcement announcement, String message) {
    anomalies++;
    String where = announcement == null ? "" : " (" + announcement.kind().code() + " #"
        + announcement.sequence() + " " + announcement.keys() + ")";
    LOG.log(Level.WARNING, "worker " + worker + where + ": " + message);
    Map<String, Object> fields = new LinkedHashMap<>();
    fields.put("worker", worker);
    fields.put("seq", announcement == null ? null : announcement.sequence());
    fields.put("message", message);
    events.record("anomaly", fields);
  }

  private static String describe(Location location) {
    return switch (location) {
      case OnWorker on -> "on worker " + on.worker();
      case Frozen frozen -> "frozen";
      case Location.Unknown unknown -> "unknown";
    };
  }
}
