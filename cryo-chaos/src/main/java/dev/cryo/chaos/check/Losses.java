package dev.cryo.chaos.check;

import dev.cryo.chaos.history.Entry;
import dev.cryo.chaos.history.Function;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What the event logs document about the end of users' state, per user, as sorted wall times (ms).
 *
 * <ul>
 *   <li><b>Losses</b>: every user named in a {@code lost} or {@code restored} array of any event
 *       (a user frozen at his checkpoint when his worker died loses what he wrote since; the documented ones
 *       are {@code worker_died}, {@code adopted}, {@code drain_committed}, {@code drain_failed},
 *       {@code shrunk}, {@code replaced}, {@code reload_ended}, {@code quit_ended}; a type that
 *       comes later with a {@code lost} array is read the same way), and the {@code user} of every
 *       {@code user_expired}. A loss excuses what disappears across it: it ends an epoch of the
 *       user and of the pages he owns, and explains a forgotten identity or an unknown page.
 *   <li><b>Drops</b>: a {@code fold} of {@code drop_user} naming a real (not guest) user while a
 *       login away from him was in flight. The demo drops a user whose last connection logs in
 *       elsewhere, and a later login to that name starts him afresh, so such a drop ends an epoch
 *       of the user's counter (never of his pages, which follow their connection). A login away
 *       from him is a login to another name by a virtual user who was, at some time of the
 *       history, that user ({@link Operations#identitiesOf}; generous, since two logins of one
 *       virtual user may race and a reply may never come); one that may act after its completion
 *       ({@link Operations#mayActLate}: unknown outcome, or a {@code 303}) is in flight from its
 *       invocation on. A drop with no such login explains nothing.
 *   <li><b>A guest's logins</b>: a guest whose connection logs in is re-keyed to the identity or
 *       dropped; his name holds nothing after it (the run may make the same connection a guest
 *       again, under the same name, afresh), so every login away from him ends an epoch of his
 *       counter.
 * </ul>
 *
 * <p>A page's epochs end at the losses of every identity its virtual users may have had, and at
 * the losses of users the history never names ({@link #unattributed}). Its notes' epochs end only
 * at the <b>hard</b> ones ({@link #hardLossesOfAny}): a note is written on the demo's durable
 * route, answered once a checkpoint holding it is forced to disk, so a user {@code restored} from
 * his checkpoint keeps every acknowledged note.
 */
final class Losses {

  private static final String GUEST_PREFIX = "guest_";
  /**
   * The arrays of an event naming users whose state ended there: {@code lost}, and
   * {@code restored} (a {@code worker_died}'s users frozen at their last checkpoint: what they
   * wrote after it is lost, within the documented window, so it is read as a loss).
   */
  private static final String RESTORED = "restored";
  private static final List<String> LOSS_FIELDS = List.of("lost", RESTORED);

  private final Map<String, long[]> lost;
  private final Map<String, long[]> hard;
  private final Map<String, long[]> ends;
  /** How many (user, time) losses the logs document. */
  final int lossCount;
  /** How many drops a login away from the user explains. */
  final int dropCount;

  private Losses(Map<String, long[]> lost, Map<String, long[]> hard, Map<String, long[]> ends,
      int lossCount, int dropCount) {
    this.lost = lost;
    this.hard = hard;
    this.ends = ends;
    this.lossCount = lossCount;
    this.dropCount = dropCount;
  }

  /** Reads the events against the history's logins. */
  static Losses of(EventLog log, Operations operations) {
    Map<String, List<Long>> lost = new HashMap<>();
    Map<String, List<Long>> hard = new HashMap<>(); // not restored from a checkpoint
    Map<String, List<Long>> drops = new HashMap<>();
    int lossCount = 0;
    for (Event event : log.events()) {
      for (String field : LOSS_FIELDS) {
        List<String> names = event.names(field);
        if (names != null) {
          for (String user : names) {
            lost.computeIfAbsent(user, u -> new ArrayList<>()).add(event.atMillis());
            if (!field.equals(RESTORED)) {
              hard.computeIfAbsent(user, u -> new ArrayList<>()).add(event.atMillis());
            }
            lossCount++;
          }
        }
      }
      if ("user_expired".equals(event.type()) && event.text("user") != null) {
        lost.computeIfAbsent(event.text("user"), u -> new ArrayList<>()).add(event.atMillis());
        hard.computeIfAbsent(event.text("user"), u -> new ArrayList<>()).add(event.atMillis());
        lossCount++;
      }
      String dropped = event.text("user");
      if ("fold".equals(event.type()) && "drop_user".equals(event.text("kind"))
          && dropped != null && !dropped.startsWith(GUEST_PREFIX)) {
        drops.computeIfAbsent(dropped, u -> new ArrayList<>()).add(event.atMillis());
      }
    }
    Map<String, long[]> lostTimes = sorted(lost);
    Map<String, long[]> endTimes = new HashMap<>(lostTimes);
    int dropCount = 0;
    if (!drops.isEmpty()) {
      Map<String, LoginsAway> away = LoginsAway.index(operations);
      for (Map.Entry<String, List<Long>> entry : drops.entrySet()) {
        LoginsAway logins = away.get(entry.getKey());
        List<Long> explained = new ArrayList<>();
        for (long at : entry.getValue()) {
          if (logins != null && logins.inFlightAt(at)) {
            explained.add(at);
          }
        }
        if (!explained.isEmpty()) {
          dropCount += explained.size();
          long[] both = Epochs.merge(List.of(lostTimes.getOrDefault(entry.getKey(),
              Epochs.none()), toSortedArray(explained)));
          endTimes.put(entry.getKey(), both);
        }
      }
    }
    guestLogins(operations).forEach((guest, times) -> endTimes.put(guest, Epochs.merge(
        List.of(endTimes.getOrDefault(guest, Epochs.none()), toSortedArray(times)))));
    return new Losses(lostTimes, sorted(hard), endTimes, lossCount, dropCount);
  }

  /**
   * The ends of guests by logins: a guest whose connection logs in is re-keyed to the identity or
   * dropped, so his name holds nothing after it; should the run later make that connection a
   * guest again, the same name starts afresh. Per guest, the invocation and completion (wall) of
   * every login (not refused) to another name by a virtual user who was at some time that guest.
   */
  private static Map<String, List<Long>> guestLogins(Operations operations) {
    Map<String, List<Long>> times = new HashMap<>();
    for (Operation login : operations.all) {
      if (!login.is(Function.LOGIN) || (login.completion() != null
          && Entry.FAIL.equals(login.completion().type()))) {
        continue;
      }
      for (String identity : operations.identitiesOf(login.vuser())) {
        if (identity.startsWith(GUEST_PREFIX) && !identity.equals(login.invoke().arg())) {
          List<Long> list = times.computeIfAbsent(identity, g -> new ArrayList<>());
          list.add(login.invokeWall());
          if (login.completion() != null) {
            list.add(login.completeWall());
          }
        }
      }
    }
    return times;
  }

  /** The documented losses of {@code user}, sorted (ms). */
  long[] lossesOf(String user) {
    return user == null ? Epochs.none() : lost.getOrDefault(user, Epochs.none());
  }

  /**
   * The ends of {@code user}'s counter: his losses, his explained drops, and for a guest his
   * logins away, sorted (ms).
   */
  long[] endsOf(String user) {
    return user == null ? Epochs.none() : ends.getOrDefault(user, Epochs.none());
  }

  /**
   * The losses of users the history never names (not believed, reported or logged in to): guests
   * whose virtual users only opened pages or wrote notes (replies that name no user) before they
   * were lost. They may be anyone's, so they end every page's epochs.
   */
  long[] unattributed(Operations operations) {
    return unattributed(operations, lost);
  }

  /** As {@link #unattributed(Operations)}, of the hard losses only. */
  long[] unattributedHard(Operations operations) {
    return unattributed(operations, hard);
  }

  private static long[] unattributed(Operations operations, Map<String, long[]> losses) {
    Set<String> named = new HashSet<>();
    operations.identitiesByVuser.values().forEach(named::addAll);
    List<long[]> arrays = new ArrayList<>();
    losses.forEach((user, times) -> {
      if (!named.contains(user)) {
        arrays.add(times);
      }
    });
    return Epochs.merge(arrays);
  }

  /**
   * The sorted union of the hard losses of the users: those not {@code restored} from a
   * checkpoint, which keeps every durable write acknowledged before it.
   */
  long[] hardLossesOfAny(Collection<String> users) {
    List<long[]> arrays = new ArrayList<>(users.size());
    for (String user : users) {
      arrays.add(user == null ? Epochs.none() : hard.getOrDefault(user, Epochs.none()));
    }
    return Epochs.merge(arrays);
  }

  /** The sorted union of the losses of the users. */
  long[] lossesOfAny(Collection<String> users) {
    List<long[]> arrays = new ArrayList<>(users.size());
    for (String user : users) {
      arrays.add(lossesOf(user));
    }
    return Epochs.merge(arrays);
  }

  private static Map<String, long[]> sorted(Map<String, List<Long>> times) {
    Map<String, long[]> sorted = new HashMap<>();
    times.forEach((user, list) -> sorted.put(user, toSortedArray(list)));
    return sorted;
  }

  private static long[] toSortedArray(List<Long> list) {
    long[] array = new long[list.size()];
    for (int i = 0; i < array.length; i++) {
      array[i] = list.get(i);
    }
    java.util.Arrays.sort(array);
    return array;
  }

  /** The logins away from one user, by invocation wall time, for "in flight at" questions. */
  private static final class LoginsAway {
    private final List<Operation> logins = new ArrayList<>();
    private long[] invokeWalls;
    private long[] latestCompletion; // prefix maximum of the completion walls

    static Map<String, LoginsAway> index(Operations operations) {
      Map<String, LoginsAway> index = new HashMap<>();
      for (Operation login : operations.all) {
        if (!login.is(Function.LOGIN)) {
          continue;
        }
        String target = login.invoke().arg();
        for (String from : operations.identitiesOf(login.vuser())) {
          if (!from.equals(target)) {
            index.computeIfAbsent(from, f -> new LoginsAway()).logins.add(login);
          }
        }
      }
      index.values().forEach(LoginsAway::seal);
      return index;
    }

    /** Until when the login may have acted (wall); one that may act late, for ever. */
    private static long reachWall(Operation login) {
      return Operations.mayActLate(login) ? Long.MAX_VALUE : login.completeWall();
    }

    private void seal() {
      logins.sort(java.util.Comparator.comparingLong(Operation::invokeWall));
      invokeWalls = new long[logins.size()];
      latestCompletion = new long[logins.size()];
      long latest = Long.MIN_VALUE;
      for (int i = 0; i < invokeWalls.length; i++) {
        invokeWalls[i] = logins.get(i).invokeWall();
        latest = Math.max(latest, reachWall(logins.get(i)));
        latestCompletion[i] = latest;
      }
    }

    /** Whether one of them spans {@code at}, with the slack either side. */
    boolean inFlightAt(long at) {
      int started = Epochs.countAtMost(invokeWalls, at + Epochs.SLACK_MILLIS);
      if (started == 0) {
        return false;
      }
      long latest = latestCompletion[started - 1];
      return latest == Long.MAX_VALUE || latest + Epochs.SLACK_MILLIS >= at;
    }
  }
}
