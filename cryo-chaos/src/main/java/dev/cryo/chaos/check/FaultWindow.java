package dev.cryo.chaos.check;

/**
 * One fault of the history, from its {@code fault_start} to its {@code fault_end}.
 *
 * @param id the fault's id (its lines' {@code op})
 * @param kind the fault's kind as the history names it ({@code kill_worker}, …)
 * @param startT when it began (the history's {@code t}, ns)
 * @param endT when it ended, or {@link Long#MAX_VALUE} when the history has no end for it
 * @param detail the start line's detail (its target), or null
 */
record FaultWindow(long id, String kind, long startT, long endT, String detail) {

  /** Whether it never ended in the history. */
  boolean open() {
    return endT == Long.MAX_VALUE;
  }

  /** How long it lasted, in seconds; an open fault lasts until {@code historyEndT}. */
  double seconds(long historyEndT) {
    return (Math.max(startT, open() ? historyEndT : endT) - startT) / 1e9;
  }
}
