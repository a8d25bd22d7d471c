package dev.cryo.commander;

/** What placement decided for a request or a move. Immutable values. */
public sealed interface Verdict {

  /** Send it to {@code worker}. */
  record Place(String worker) implements Verdict {}

  /** No worker admits him: start a new one and place him there. */
  record Grow() implements Verdict {}

  /** No worker admits him and no more may start, but one is starting: wait for it, then decide again. */
  record AwaitStart() implements Verdict {}

  /** Nobody can take him now; {@code reason} says why, for the 503's log and a move's refusal. */
  record Saturated(String reason) implements Verdict {}
}
