/**
 * The auditor's checker: reads a run's history (the operations the workload invoked and how each
 * completed, the faults the nemesis injected) and the run's event logs, and judges the two promises
 * of cryo from outside — one live copy of a user at a time, and no acknowledged write lost except
 * where the run documents the loss. Jepsen-style, for the demo's registers: a counter per user,
 * and a counter and numbered notes per page.
 *
 * <p>Entry points: {@link dev.cryo.chaos.check.Checker#check} gives a
 * {@link dev.cryo.chaos.check.Verdict} (text and JSON), {@link dev.cryo.chaos.check.Timeline}
 * draws the run as one self-contained HTML file, and {@link dev.cryo.chaos.check.CheckCommand} is
 * the {@code check} command line.
 *
 * <p>Rules of the package:
 * <ul>
 *   <li><b>Black box.</b> It knows cryo only through the history's lines
 *       ({@link dev.cryo.chaos.history.Entry}) and the event log's documented JSON lines; it uses
 *       no class of cryo.
 *   <li><b>Time.</b> Operations are ordered by {@code t}, the history's one monotonic clock; they
 *       are compared with the event log through {@code wall} (epoch milliseconds), with a slack of
 *       5 ms either side.
 *   <li><b>Epochs.</b> A documented loss of a user (an event naming him lost, or his expiry) ends
 *       an epoch of his counter and of the pages he may have owned; the drop of a real user while
 *       a login away from him was in flight ends an epoch of his counter (a later login starts him
 *       afresh). Values are compared only within one epoch, and an operation whose span touches
 *       an end belongs to none ({@code Losses}, {@code Epochs}).
 *   <li><b>Sound, then strict.</b> Every rule holds for any history of a correct server
 *       (property-tested against a simulated one); within that, every failure or missing value the
 *       run does not explain is reported.
 *   <li><b>Linear.</b> Rules sort and sweep (n log n per register); a soak of millions of lines is
 *       checked in seconds.
 * </ul>
 */
package dev.cryo.chaos.check;
