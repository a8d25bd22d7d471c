package dev.cryo.chaos.check;

import dev.cryo.chaos.check.CounterCheck.Reading;
import dev.cryo.chaos.history.Entry;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The history sorted into registers: per user (the name a reply reports), the readings of his
 * counter; per page, the readings of its counter, its notes written and read, its acked writes and
 * its {@code 404 unknown_page} refusals, and who owned it.
 *
 * <p>What each {@code ok} completion observes: an increment, the user's counter and the page's
 * (and the notes when the reply lists them); a read and a login, the same when present; a note,
 * the page's notes. A page is owned by every identity its virtual users may have had
 * ({@link Operations#identitiesOf}) — generous on purpose: a loss of any of them may have taken
 * the page.
 */
final class Registers {

  final Map<String, List<Reading>> userCounters = new HashMap<>();
  final Map<String, List<Reading>> pageCounters = new HashMap<>();
  final Map<String, List<Operation>> notesWritten = new HashMap<>();
  final Map<String, List<Operation>> notesObserved = new HashMap<>();
  final Map<String, List<Operation>> pageWrites = new HashMap<>();
  final Map<String, List<Operation>> unknownPages = new HashMap<>();
  /** Per page, its {@code ok} operations. */
  final Map<String, List<Operation>> pageAnswers = new HashMap<>();
  /** Per user, when his first acked increment completed ({@code t}). */
  final Map<String, Long> firstAckedIncrement = new HashMap<>();
  /** Per page, the earliest invocation of an operation naming it (wall, ms). */
  final Map<String, Long> pageFirstNamedWall = new HashMap<>();
  /** Every page named, in order of first appearance. */
  final Set<String> pages = new LinkedHashSet<>();
  /** Every user a reply named. */
  final Set<String> users = new HashSet<>();

  private final Map<String, Set<String>> vusersOfPage = new HashMap<>();
  private final Operations operations;

  private Registers(Operations operations) {
    this.operations = operations;
  }

  /** Sorts the operations. */
  static Registers of(Operations operations) {
    Registers registers = new Registers(operations);
    for (Operation operation : operations.all) {
      registers.add(operation);
    }
    return registers;
  }

  private void add(Operation operation) {
    String vuser = operation.vuser();
    String page = operation.page();
    Entry completion = operation.completion();
    if (page != null) {
      pages.add(page);
      pageFirstNamedWall.merge(page, operation.invokeWall(), Math::min);
      if (vuser != null) {
        vusersOfPage.computeIfAbsent(page, p -> new HashSet<>()).add(vuser);
      }
    }
    if (operation.isUnknownPage() && page != null) {
      append(unknownPages, page, operation);
    }
    if (!operation.isOk() || operation.function() == null) {
      return;
    }
    if (page != null) {
      append(pageAnswers, page, operation);
    }
    String user = operation.user();
    if (user != null) {
      users.add(user);
    }
    switch (operation.function()) {
      case INC -> {
        if (user != null) {
          userCounters.computeIfAbsent(user, u -> new ArrayList<>())
              .add(new Reading(operation, completion.counter(), true));
          firstAckedIncrement.merge(user, operation.completeT(), Math::min);
        }
        if (page != null) {
          pageCounters.computeIfAbsent(page, p -> new ArrayList<>())
              .add(new Reading(operation, completion.pageCounter(), true));
          append(pageWrites, page, operation);
        }
        observeNotes(page, operation);
      }
      case READ, LOGIN -> {
        if (user != null && completion.counter() != null) {
          userCounters.computeIfAbsent(user, u -> new ArrayList<>())
              .add(new Reading(operation, completion.counter(), false));
        }
        if (page != null && completion.pageCounter() != null) {
          pageCounters.computeIfAbsent(page, p -> new ArrayList<>())
              .add(new Reading(operation, completion.pageCounter(), false));
        }
        observeNotes(page, operation);
      }
      case NOTE -> {
        if (page != null && operation.noteNumber() != null) {
          append(notesWritten, page, operation);
          append(pageWrites, page, operation);
        }
        observeNotes(page, operation);
      }
      default -> {
        // open_page and move observe nothing of the registers
      }
    }
  }

  private void observeNotes(String page, Operation operation) {
    Entry completion = operation.completion();
    if (page != null && (completion.noteMax() != null || completion.notes() != null)) {
      append(notesObserved, page, operation);
    }
  }

  /** When the page's {@code ok} operations were invoked, sorted ({@code t}). */
  long[] pageAnsweredInvocations(String page) {
    List<Operation> answered = pageAnswers.getOrDefault(page, List.of());
    long[] invoked = new long[answered.size()];
    for (int i = 0; i < invoked.length; i++) {
      invoked[i] = answered.get(i).invokeT();
    }
    java.util.Arrays.sort(invoked);
    return invoked;
  }

  /** Every identity any virtual user of the page had. */
  Set<String> ownersOf(String page) {
    Set<String> owners = new HashSet<>();
    for (String vuser : vusersOfPage.getOrDefault(page, Set.of())) {
      owners.addAll(operations.identitiesOf(vuser));
    }
    return owners;
  }

  private static void append(Map<String, List<Operation>> map, String key, Operation operation) {
    map.computeIfAbsent(key, k -> new ArrayList<>()).add(operation);
  }
}
