/**
 * The auditor of cryo: {@link dev.cryo.chaos.Chaos} ({@code cryo-chaos run | check | generator})
 * drives a real {@code cryo serve} from outside under a fault schedule and checks its two promises
 * — a user is live in at most one worker, and no acknowledged write is lost beyond the losses the
 * docs name — on the history of what its clients saw (docs/reliability.md).
 *
 * <h2>Rules of the module</h2>
 * <ul>
 *   <li><b>Black box.</b> Nothing of cryo's code is on its class path. It knows a run only by what
 *       a user or an operator sees: the demo's HTTP API and page socket (docs/demo.md,
 *       docs/socket.md), the {@code cryo} command ({@code serve}, {@code stop}, {@code reload}),
 *       the admin listener's {@code status.json}, the run's {@code events.jsonl}, and the
 *       processes and signals of the machine. It keeps working when the runtime is rebuilt.
 *   <li>{@link dev.cryo.chaos.history} is the contract between the harness and the checker: the
 *       harness ({@link dev.cryo.chaos.load}, {@link dev.cryo.chaos.nemesis}) only writes
 *       histories, the checker ({@link dev.cryo.chaos.check}) only reads them, with the event
 *       logs.
 *   <li>A run is replayable in its faults: the schedule and the workload's choices come from one
 *       printed seed (the run's timing, and so its interleavings, do not).
 * </ul>
 */
package dev.cryo.chaos;
