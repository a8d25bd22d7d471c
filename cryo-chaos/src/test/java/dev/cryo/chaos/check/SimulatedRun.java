package dev.cryo.chaos.check;

import dev.cryo.chaos.history.Entry;
import dev.cryo.chaos.history.FaultKind;
import dev.cryo.chaos.history.Function;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A correct server of the demo's JSON API, simulated in one thread with an explicit clock, and the
 * history a harness would write while driving it. A call is invoked, applied (its effect on the
 * state, atomically, at the current time) and completed separately, so tests interleave calls as
 * they like: every history it writes is linearizable by construction, with each call taking
 * effect between its invocation and its completion. The server follows docs/demo.md: a cookie
 * (virtual user) is one connection, a guest {@code guest_…} until it logs in; a guest's first
 * identity takes its counter; an existing identity keeps its own; a user whose last connection
 * logs in elsewhere is dropped (a {@code fold drop_user} event). Faults, documented losses (their
 * event lines) and undocumented ones (bugs) are the test's to script.
 */
final class SimulatedRun {

  static final long WALL_BASE = 1_780_000_000_000L;

  private long now = 1_000_000_000L;
  private long nextOperation = 1;
  private long nextFault = 1;
  private long nextEvent = 1;
  private long nextPage = 1;
  private long nextGuest = 1;
  private final List<Entry> entries = new ArrayList<>();
  private final List<Event> events = new ArrayList<>();
  private final Map<String, Long> counters = new HashMap<>();
  private final Map<String, String> connections = new HashMap<>();
  private final Map<String, Page> pages = new HashMap<>();
  private final Map<String, String> believed = new HashMap<>();
  private final Map<String, Long> nextNote = new HashMap<>();
  boolean refuseMoves;

  /** A page's state. */
  private static final class Page {
    final String vuser;
    long counter;
    final ArrayDeque<Long> notes = new ArrayDeque<>();

    Page(String vuser) {
      this.vuser = vuser;
    }
  }

  /** One call: what was asked and, once applied, what the server replied. */
  final class Call {
    final long op;
    final String vuser;
    final String process;
    final Function function;
    final String page;
    final String arg;
    boolean applied;
    boolean completed;
    String user;
    Long counter;
    Long pageCounter;
    Long noteMax;
    Integer notes;
    String replyPage;
    Integer refusalStatus;
    String refusalError;
    String servedBy;
    Long generation;

    Call(long op, String vuser, String process, Function function, String page, String arg) {
      this.op = op;
      this.vuser = vuser;
      this.process = process;
      this.function = function;
      this.page = page;
      this.arg = arg;
    }

    boolean refused() {
      return refusalStatus != null;
    }
  }

  long now() {
    return now;
  }

  long wall() {
    return WALL_BASE + now / 1_000_000;
  }

  /** Moves the clock on. */
  SimulatedRun advance(double millis) {
    now += Math.round(millis * 1_000_000);
    return this;
  }

  /** Every line of the history gets its own instant: one microsecond on. */
  private void tick() {
    now += 1_000;
  }

  /** Invokes a call (nothing happens on the server yet). */
  Call invoke(String vuser, String process, Function function, String page, String arg) {
    tick();
    Call call = new Call(nextOperation++, vuser, process, function, page, arg);
    entries.add(Entry.invoke(now, wall(), call.op, vuser, process, function, "http",
        believed.get(vuser), page, arg));
    return call;
  }

  /** The call takes effect now, as the demo would do it. */
  void apply(Call call) {
    if (call.applied) {
      throw new IllegalStateException("call " + call.op + " applied twice");
    }
    call.applied = true;
    String user = userOf(call.vuser);
    Page page = call.page == null ? null : pages.get(call.page);
    boolean pageRefused = call.page != null && (page == null || !page.vuser.equals(call.vuser));
    if (pageRefused && call.function != Function.OPEN_PAGE && call.function != Function.MOVE) {
      call.refusalStatus = 404;
      call.refusalError = "unknown_page";
      return;
    }
    switch (call.function) {
      case OPEN_PAGE -> {
        call.replyPage = "p" + nextPage++;
        pages.put(call.replyPage, new Page(call.vuser));
      }
      case INC -> {
        long counter = counters.merge(user, 1L, Long::sum);
        page.counter++;
        call.user = user;
        call.counter = counter;
        call.pageCounter = page.counter;
      }
      case READ -> state(call, user, page);
      case NOTE -> {
        page.notes.addLast(Long.parseLong(call.arg));
        while (page.notes.size() > PageCheck.KEPT_NOTES) {
          page.notes.removeFirst();
        }
        call.noteMax = page.notes.stream().mapToLong(Long::longValue).max().orElseThrow();
        call.notes = page.notes.size();
      }
      case LOGIN -> {
        login(call.vuser, user, call.arg);
        state(call, call.arg, page);
      }
      case MOVE -> {
        if (refuseMoves) {
          call.refusalStatus = 409;
          call.refusalError = "move_refused";
        }
      }
      default -> throw new IllegalStateException("no such function " + call.function);
    }
  }

  private void state(Call call, String user, Page page) {
    call.user = user;
    call.counter = counters.get(user);
    if (page != null) {
      call.pageCounter = page.counter;
      call.notes = page.notes.size();
      call.noteMax = page.notes.isEmpty() ? null
          : page.notes.stream().mapToLong(Long::longValue).max().orElseThrow();
    }
  }

  private void login(String vuser, String previous, String target) {
    if (previous.equals(target)) {
      return;
    }
    boolean transfer = !counters.containsKey(target) && previous.startsWith("guest_");
    if (transfer) {
      counters.put(target, counters.remove(previous)); // the guest follows his first identity
    } else {
      counters.putIfAbsent(target, 0L);
    }
    connections.put(vuser, target);
    if (!transfer && !connections.containsValue(previous)) {
      counters.remove(previous);
      event("fold", Map.of("worker", "w1", "seq", nextEvent, "kind", "drop_user", "user",
          previous, "keys", List.of(previous)));
    }
  }

  private String userOf(String vuser) {
    return connections.computeIfAbsent(vuser, v -> {
      String guest = "guest_" + v + "_" + nextGuest++;
      counters.put(guest, 0L);
      return guest;
    });
  }

  /** Completes the call now: {@code ok}, or {@code fail} with its refusal. */
  void complete(Call call) {
    if (!call.applied) {
      throw new IllegalStateException("call " + call.op + " completed ok before it was applied");
    }
    if (call.refused()) {
      finish(call, Entry.FAIL, call.refusalStatus, call.refusalError, false);
    } else {
      finish(call, Entry.OK, 200, null, true);
      if (call.user != null) {
        believed.put(call.vuser, call.user);
      }
    }
  }

  /**
   * Completes a login with {@code 303 See Other} before it takes effect: the run's login tail,
   * whose connection travels by the freezer; {@link #apply} it later.
   */
  void seeOther(Call login) {
    finish(login, Entry.OK, 303, null, false);
  }

  /** Completes the call with a refusal it was not applied for (a 503, say). */
  void fail(Call call, int status, String error) {
    if (call.applied) {
      throw new IllegalStateException("call " + call.op + " failed though applied");
    }
    finish(call, Entry.FAIL, status, error, false);
  }

  /** Completes the call as unknown (applied or not). */
  void info(Call call, String error) {
    finish(call, Entry.INFO, null, error, false);
  }

  private void finish(Call call, String type, Integer status, String error, boolean reply) {
    if (call.completed) {
      throw new IllegalStateException("call " + call.op + " completed twice");
    }
    call.completed = true;
    tick();
    entries.add(Entries.of("type", type, "t", now, "wall", wall(), "op", call.op,
        "vuser", call.vuser, "process", call.process, "f", call.function.wireName(),
        "via", "http", "page", reply && call.replyPage != null ? call.replyPage : call.page,
        "status", status, "error", error,
        "user", reply ? call.user : null, "counter", reply ? call.counter : null,
        "pageCounter", reply ? call.pageCounter : null, "noteMax", reply ? call.noteMax : null,
        "notes", reply ? call.notes : null, "worker", reply ? "w1" : null,
        "servedBy", reply ? call.servedBy : null, "generation", reply ? call.generation : null));
  }

  /** Invokes, applies and completes one call, a millisecond apart. */
  Call run(String vuser, String process, Function function, String page, String arg) {
    Call call = invoke(vuser, process, function, page, arg);
    advance(1);
    apply(call);
    advance(1);
    complete(call);
    return call;
  }

  /** Opens a page for the virtual user; returns its id. */
  String openPage(String vuser, String process) {
    return run(vuser, process, Function.OPEN_PAGE, null, null).replyPage;
  }

  /** The next note of the page: invoked, applied, completed. */
  Call note(String vuser, String process, String page) {
    long number = nextNote.merge(page, 1L, Long::sum);
    return run(vuser, process, Function.NOTE, page, Long.toString(number));
  }

  /** The number the next note of the page gets (and takes it). */
  String nextNoteNumber(String page) {
    return Long.toString(nextNote.merge(page, 1L, Long::sum));
  }

  /** The page's newest note is gone, as a restore from an older state would leave it. */
  void dropNewestNote(String page) {
    pages.get(page).notes.removeLast();
  }

  /** A fault begins; returns its id. */
  long faultStart(FaultKind kind, String detail) {
    long id = nextFault++;
    entries.add(Entry.fault(Entry.FAULT_START, now, wall(), id, kind, detail));
    return id;
  }

  /** A fault ends. */
  void faultEnd(long id, FaultKind kind) {
    entries.add(Entry.fault(Entry.FAULT_END, now, wall(), id, kind, null));
  }

  /**
   * The user is lost, as the run documents it ({@code type} with {@code lost: [user]}): his state,
   * his connections and their pages are gone; his cookies come back as new guests.
   */
  void lose(String user, String type) {
    event(type, Map.of("worker", "w1", "reason", "killed", "lost", List.of(user)));
    forgetUser(user);
  }

  /** The user is lost and nothing says so: the bug the checker is for. */
  void forgetUser(String user) {
    counters.remove(user);
    List<String> vusers = new ArrayList<>();
    connections.forEach((vuser, owner) -> {
      if (owner.equals(user)) {
        vusers.add(vuser);
      }
    });
    for (String vuser : vusers) {
      connections.remove(vuser);
      pages.values().removeIf(page -> page.vuser.equals(vuser));
    }
  }

  /** The user's counter goes back to {@code value}, documented as a loss or not. */
  void rollBack(String user, long value, boolean documented) {
    if (documented) {
      event("worker_died", Map.of("worker", "w1", "reason", "killed", "lost", List.of(user)));
    }
    counters.put(user, value);
  }

  /**
   * The run makes the virtual user's connection the guest {@code guest} again, afresh, and
   * nothing says so (as a run that names a guest after his connection may).
   */
  void revertToGuest(String vuser, String guest) {
    connections.put(vuser, guest);
    counters.put(guest, 0L);
  }

  /** The page is gone and nothing says so. */
  void forgetPage(String page) {
    pages.remove(page);
  }

  /** The user the virtual user is now, on the server (a guest is made if he has none). */
  String userNow(String vuser) {
    return userOf(vuser);
  }

  /** The counter of the user now. */
  long counterOf(String user) {
    return counters.get(user);
  }

  /** Whether the page is one of the virtual user's now. */
  boolean hasPage(String vuser, String page) {
    Page state = pages.get(page);
    return state != null && state.vuser.equals(vuser);
  }

  /** Writes an event line stamped now. */
  void event(String type, Map<String, ?> fields) {
    Map<String, Object> all = new LinkedHashMap<>(fields);
    events.add(Event.of(nextEvent++, Instant.ofEpochMilli(wall()), type, all));
  }

  List<Entry> history() {
    return entries;
  }

  EventLog eventLog() {
    return EventLog.of(events);
  }

  /** Checks with the default grace. */
  Verdict check() {
    return Checker.check(entries, eventLog(), Checker.DEFAULT_GRACE);
  }
}
