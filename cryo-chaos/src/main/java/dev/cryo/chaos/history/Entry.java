package dev.cryo.chaos.history;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * One line of a run's history: an operation's invocation or completion, a fault's start or end, a
 * push received, or the run's description. Absent fields are {@code null} and left out of the line.
 *
 * <p>Every line has {@code type}, {@code t} (nanoseconds since the run began, one monotonic clock
 * for the whole history) and {@code wall} (milliseconds since the epoch, the machine's clock, which
 * is what the run's {@code events.jsonl} is stamped with). The types:
 * <ul>
 *   <li>{@code invoke} — an operation begins: {@code op} (its id, unique in the history),
 *       {@code vuser} (the virtual user: one cookie), {@code process} (the thread of that virtual
 *       user issuing it; one operation at a time per process), {@code f} (a {@link Function} name),
 *       {@code via} ({@code http} or {@code ws}), {@code user} (the identity the virtual user
 *       believes he is, when he knows), {@code page}, {@code arg} (a note's number, a login's
 *       identity);
 *   <li>{@code ok}, {@code fail}, {@code info} — it completed: {@code op}, {@code vuser},
 *       {@code process}, {@code f}, {@code status} (the HTTP status, or null when none came; a
 *       login answered {@code 303} completes {@code ok} with no {@code user}),
 *       {@code error} (the error code of the body, or the exception's class for {@code info}),
 *       and what the reply said: {@code page} (for {@code open_page}, the page opened),
 *       {@code user}, {@code counter}, {@code pageCounter},
 *       {@code noteMax} (the highest note number of this harness among the page's notes),
 *       {@code notes} (how many notes), {@code worker}, {@code servedBy} and {@code generation}
 *       (the placement that served it, when the run reports it), {@code cookie} (when the reply set
 *       a connection cookie: {@code new} when the virtual user took it as his, {@code dropped}
 *       when another of his processes had already taken another new one — two requests sent
 *       with a cookie the run had forgotten each made a connection, and the client keeps one: the
 *       user of a {@code dropped} reply is left behind by the client, not lost by the run), and
 *       {@code detail} (a refusal's message, or an unknown outcome's exception message).
 *       {@code ok}: it was done;
 *       {@code fail}: it was definitely not done (a refusal); {@code info}: unknown.
 *   <li>{@code push} — a push of the application received on a page socket: {@code vuser},
 *       {@code page}, {@code user}, {@code counter} or {@code pageCounter}.
 *   <li>{@code fault_start}, {@code fault_end} — {@code op} (the fault's id), {@code fault} (its
 *       {@link FaultKind} name), {@code detail}.
 *   <li>{@code meta} — the run's description in {@code detail} (the seed and the options).
 * </ul>
 *
 * @param type the line's type
 * @param t nanoseconds since the run began
 * @param wall milliseconds since the epoch
 * @param op the operation's or fault's id
 * @param vuser the virtual user
 * @param process the virtual user's thread
 * @param f the operation's function
 * @param via {@code http} or {@code ws}
 * @param user the identity (believed at invocation, reported at completion)
 * @param page the page
 * @param arg the argument: a note's number or a login's identity
 * @param status the HTTP status
 * @param error the error code, or an exception's class
 * @param counter the user's counter in the reply
 * @param pageCounter the page's counter in the reply
 * @param noteMax the highest note number among the page's notes in the reply
 * @param notes how many notes the reply listed
 * @param worker the worker the reply names
 * @param servedBy the worker that served it, as the run reports it in a header
 * @param generation the placement's generation, as the run reports it in a header
 * @param cookie {@code new} or {@code dropped}: a connection cookie the reply set, kept or not
 * @param fault the fault's kind
 * @param detail free text: a fault's target and outcome, the run's description, an unknown
 *     outcome's exception message
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Entry(
    String type, long t, long wall, Long op, String vuser, String process, String f, String via,
    String user, String page, String arg, Integer status, String error, Long counter,
    Long pageCounter, Long noteMax, Integer notes, String worker, String servedBy, Long generation,
    String cookie, String fault, String detail) {

  /** A reply's cookie that the virtual user took as his connection's. */
  public static final String COOKIE_NEW = "new";
  /** A reply's cookie that the virtual user left behind: another new one was taken first. */
  public static final String COOKIE_DROPPED = "dropped";

  /** The line types. */
  public static final String INVOKE = "invoke";
  /** An operation that was done. */
  public static final String OK = "ok";
  /** An operation that was definitely not done. */
  public static final String FAIL = "fail";
  /** An operation whose outcome is unknown. */
  public static final String INFO = "info";
  /** A push received. */
  public static final String PUSH = "push";
  /** A fault begins. */
  public static final String FAULT_START = "fault_start";
  /** A fault ends. */
  public static final String FAULT_END = "fault_end";
  /** The run's description. */
  public static final String META = "meta";

  /** Whether this line completes an operation ({@code ok}, {@code fail} or {@code info}). */
  @JsonIgnore
  public boolean isCompletion() {
    return OK.equals(type) || FAIL.equals(type) || INFO.equals(type);
  }

  /** An invocation line. */
  public static Entry invoke(long t, long wall, long op, String vuser, String process, Function f,
      String via, String user, String page, String arg) {
    return new Entry(INVOKE, t, wall, op, vuser, process, f.wireName(), via, user, page, arg, null,
        null, null, null, null, null, null, null, null, null, null, null);
  }

  /** A fault's start or end line. */
  public static Entry fault(String type, long t, long wall, long id, FaultKind kind,
      String detail) {
    return new Entry(type, t, wall, id, null, null, null, null, null, null, null, null, null,
        null, null, null, null, null, null, null, null, kind.wireName(), detail);
  }

  /** The run's description line. */
  public static Entry meta(long t, long wall, String detail) {
    return new Entry(META, t, wall, null, null, null, null, null, null, null, null, null, null,
        null, null, null, null, null, null, null, null, null, detail);
  }
}
