package dev.cryo.chaos.check;

import dev.cryo.chaos.history.Entry;
import dev.cryo.chaos.history.Function;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A history paired up: its operations (each invocation with its completion), its faults, and the
 * per-virtual-user views the rules need. Built once per check.
 */
final class Operations {

  /** Operations by invocation time (then id). */
  final List<Operation> all;
  /** Faults by start time. */
  final List<FaultWindow> faults;
  /** The latest {@code t} of the history. */
  final long endT;
  /** How many lines the history has. */
  final int lines;
  /**
   * Per virtual user, his {@code ok} completions that name a user, by completion time; not those
   * whose connection cookie he dropped ({@link Entry#COOKIE_DROPPED}: another connection's).
   */
  final Map<String, List<Operation>> repliesByVuser;
  /** Per virtual user, its logins (any outcome), by invocation time. */
  final Map<String, List<Operation>> loginsByVuser;
  /**
   * Per virtual user, every identity he may have had: believed at an invocation, reported by a
   * reply, or the target of one of his logins (whatever its outcome).
   */
  final Map<String, Set<String>> identitiesByVuser;
  private final Map<Long, Long> settled = new HashMap<>();

  private Operations(List<Operation> all, List<FaultWindow> faults, long endT, int lines) {
    this.all = all;
    this.faults = faults;
    this.endT = endT;
    this.lines = lines;
    this.repliesByVuser = new HashMap<>();
    this.loginsByVuser = new HashMap<>();
    this.identitiesByVuser = new HashMap<>();
    for (Operation operation : all) {
      identity(operation.vuser(), operation.invoke().user());
      identity(operation.vuser(), operation.user());
      if (operation.isOk() && operation.user() != null
          && !Entry.COOKIE_DROPPED.equals(operation.completion().cookie())) {
        repliesByVuser.computeIfAbsent(operation.vuser(), v -> new ArrayList<>()).add(operation);
      }
      if (operation.is(Function.LOGIN)) {
        loginsByVuser.computeIfAbsent(operation.vuser(), v -> new ArrayList<>()).add(operation);
        identity(operation.vuser(), operation.invoke().arg());
      }
    }
    Comparator<Operation> byCompletion = Comparator.comparingLong(Operation::completeT)
        .thenComparingLong(Operation::id);
    repliesByVuser.values().forEach(list -> list.sort(byCompletion));
  }

  private void identity(String vuser, String user) {
    if (vuser != null && user != null) {
      identitiesByVuser.computeIfAbsent(vuser, v -> new HashSet<>(4)).add(user);
    }
  }

  /**
   * Whether a login may take effect after its completion: when its outcome is unknown
   * ({@code info}, or it never completed: a held request may be done when its worker resumes, after
   * the client gave up), or when it was answered {@code 303 See Other} (the connection joins the
   * identity once that reply is sent, travelling by the freezer).
   */
  static boolean mayActLate(Operation login) {
    Entry completion = login.completion();
    return completion == null || Entry.INFO.equals(completion.type())
        || Integer.valueOf(303).equals(completion.status());
  }

  /**
   * Whether a login's reply never came (its outcome unknown: {@code info}, or no completion). Such
   * a login may have rotated the connection's cookie: its reply held the new one, and the client
   * kept the retired one, refused for a grace, then answered as a new visitor's, his pages gone
   * with the connection (docs/security.md).
   */
  static boolean unanswered(Operation login) {
    Entry completion = login.completion();
    return completion == null || Entry.INFO.equals(completion.type());
  }

  /**
   * Whether a login of the operation's virtual user whose reply never came ({@link #unanswered})
   * was invoked at or after {@code sinceWall} (wall, ms) and before the operation was invoked: his
   * connection may have been retired unseen since then.
   */
  boolean afterUnansweredLogin(Operation operation, long sinceWall) {
    for (Operation login : loginsByVuser.getOrDefault(operation.vuser(), List.of())) {
      if (login.invokeT() >= operation.invokeT()) {
        break; // by invocation
      }
      if (unanswered(login) && login.invokeWall() >= sinceWall) {
        return true;
      }
    }
    return false;
  }

  /**
   * Whether a login of the operation's virtual user had not yet shown its effect while the
   * operation ran: a login (not refused) invoked before the operation completed, with no reply of
   * his naming the login's target completed after the login's invocation and before the
   * operation's. While a login's connection travels (a {@code 303} login goes by the freezer),
   * his pages may be briefly unknown without being lost.
   */
  boolean duringLogin(Operation operation) {
    for (Operation login : loginsByVuser.getOrDefault(operation.vuser(), List.of())) {
      if (login.invokeT() >= operation.completeT()) {
        break; // by invocation
      }
      if (login.completion() != null && Entry.FAIL.equals(login.completion().type())) {
        continue;
      }
      if (settledAt(login) > operation.invokeT()) {
        return true;
      }
    }
    return false;
  }

  private long settledAt(Operation login) {
    return settled.computeIfAbsent(login.id(), id -> {
      String target = login.invoke().arg();
      for (Operation reply : repliesAfter(login.vuser(), login.invokeT())) {
        if (reply.user().equals(target)) {
          return reply.completeT();
        }
      }
      return Long.MAX_VALUE;
    });
  }

  /** The replies of {@code vuser} completed after {@code t}, in completion order. */
  private List<Operation> repliesAfter(String vuser, long t) {
    List<Operation> replies = repliesByVuser.getOrDefault(vuser, List.of());
    int low = 0;
    int high = replies.size();
    while (low < high) {
      int middle = (low + high) >>> 1;
      if (replies.get(middle).completeT() <= t) {
        low = middle + 1;
      } else {
        high = middle;
      }
    }
    return replies.subList(low, replies.size());
  }

  /** The identities {@code vuser} may have had (empty when none is known). */
  Set<String> identitiesOf(String vuser) {
    return identitiesByVuser.getOrDefault(vuser, Set.of());
  }

  /**
   * Pairs the history's lines.
   *
   * @throws IllegalArgumentException when the history is not one: an operation invoked twice, a
   *     completion without its invocation or completed twice, a line without its {@code op}
   */
  static Operations of(List<Entry> history) {
    Map<Long, Entry> invoked = new HashMap<>();
    Map<Long, Entry> faultStarts = new LinkedHashMap<>();
    List<Operation> operations = new ArrayList<>();
    List<FaultWindow> faults = new ArrayList<>();
    Map<String, Function> functions = new HashMap<>();
    long endT = 0;
    int number = 0;
    for (Entry entry : history) {
      number++;
      endT = Math.max(endT, entry.t());
      String type = entry.type();
      if (Entry.INVOKE.equals(type)) {
        Long op = requireOp(entry, number);
        if (invoked.putIfAbsent(op, entry) != null) {
          throw new IllegalArgumentException("history line " + number + ": operation " + op
              + " is invoked a second time");
        }
      } else if (entry.isCompletion()) {
        Long op = requireOp(entry, number);
        Entry invoke = invoked.remove(op);
        if (invoke == null) {
          throw new IllegalArgumentException("history line " + number + ": operation " + op
              + " completes (" + type + ") without a pending invocation");
        }
        operations.add(new Operation(invoke, entry, function(invoke.f(), functions)));
      } else if (Entry.FAULT_START.equals(type)) {
        faultStarts.put(requireOp(entry, number), entry);
      } else if (Entry.FAULT_END.equals(type)) {
        Entry start = faultStarts.remove(requireOp(entry, number));
        if (start != null) {
          faults.add(new FaultWindow(start.op(), kind(start, entry), start.t(), entry.t(),
              start.detail()));
        }
      }
      // meta, push and types to come: not operations
    }
    for (Entry start : faultStarts.values()) {
      faults.add(new FaultWindow(start.op(), kind(start, null), start.t(), Long.MAX_VALUE,
          start.detail()));
    }
    for (Entry invoke : invoked.values()) {
      operations.add(new Operation(invoke, null, function(invoke.f(), functions)));
    }
    operations.sort(Comparator.comparingLong(Operation::invokeT).thenComparingLong(Operation::id));
    faults.sort(Comparator.comparingLong(FaultWindow::startT).thenComparingLong(FaultWindow::id));
    return new Operations(operations, faults, endT, number);
  }

  private static Long requireOp(Entry entry, int number) {
    if (entry.op() == null) {
      throw new IllegalArgumentException("history line " + number + ": a " + entry.type()
          + " line without \"op\"");
    }
    return entry.op();
  }

  private static String kind(Entry start, Entry end) {
    if (start.fault() != null) {
      return start.fault();
    }
    return end != null && end.fault() != null ? end.fault() : "unknown";
  }

  private static Function function(String name, Map<String, Function> known) {
    if (name == null) {
      return null;
    }
    return known.computeIfAbsent(name, n -> {
      try {
        return Function.of(n);
      } catch (IllegalArgumentException e) {
        return null;
      }
    });
  }
}
