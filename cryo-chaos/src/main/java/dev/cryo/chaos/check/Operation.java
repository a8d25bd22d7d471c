package dev.cryo.chaos.check;

import dev.cryo.chaos.history.Entry;
import dev.cryo.chaos.history.Function;

/**
 * One operation of the history: its invocation paired with its completion by {@code op}.
 *
 * @param invoke the {@code invoke} line
 * @param completion the {@code ok}, {@code fail} or {@code info} line, or null when the operation
 *     never completed (the history ended first)
 * @param function the function, or null when the history names one this checker does not know
 */
record Operation(Entry invoke, Entry completion, Function function) {

  /** The outcome of an operation that never completed. */
  static final String PENDING = "pending";

  long id() {
    return invoke.op();
  }

  String vuser() {
    return invoke.vuser();
  }

  long invokeT() {
    return invoke.t();
  }

  long invokeWall() {
    return invoke.wall();
  }

  /** When it completed (for {@code info}: when the client gave up); never for a pending one. */
  long completeT() {
    return completion == null ? Long.MAX_VALUE : completion.t();
  }

  long completeWall() {
    return completion == null ? Long.MAX_VALUE : completion.wall();
  }

  /** {@code ok}, {@code fail}, {@code info} or {@link #PENDING}. */
  String outcome() {
    return completion == null ? PENDING : completion.type();
  }

  boolean isOk() {
    return completion != null && Entry.OK.equals(completion.type());
  }

  boolean is(Function candidate) {
    return function == candidate;
  }

  /** The user the reply named, or null. */
  String user() {
    return completion == null ? null : completion.user();
  }

  /** The page it names: the invocation's, or the one an {@code open_page} reply names. */
  String page() {
    if (invoke.page() != null) {
      return invoke.page();
    }
    return completion == null ? null : completion.page();
  }

  /** A note's number (the invocation's {@code arg}), or null when there is none or not a number. */
  Long noteNumber() {
    String arg = invoke.arg();
    if (arg == null) {
      return null;
    }
    try {
      return Long.parseLong(arg.strip());
    } catch (NumberFormatException e) {
      return null;
    }
  }

  /** Whether the completion is the demo's {@code 404 unknown_page} refusal. */
  boolean isUnknownPage() {
    return completion != null && Entry.FAIL.equals(completion.type())
        && Integer.valueOf(404).equals(completion.status())
        && "unknown_page".equals(completion.error());
  }

  /** Its time for reports, in seconds since the run began: completion, or invocation if none. */
  double seconds() {
    return (completion == null ? invoke.t() : completion.t()) / 1e9;
  }

  /** A short description for explanations: {@code inc 17 (vuser v3)}. */
  String describe() {
    return (function == null ? invoke.f() : function.wireName()) + " " + id() + " (vuser "
        + vuser() + ")";
  }
}
