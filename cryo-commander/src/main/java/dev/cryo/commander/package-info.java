/**
 * The commander of one run of cryo: the run lock and {@code run.json}, the routing maps, holds,
 * placement, the worker processes (spawn, presentation, heartbeat, death) and moves. It has no HTTP
 * in it: the front drives it through {@link dev.cryo.commander.Commander}.
 *
 * <h2>Rules of the package</h2>
 * <ul>
 *   <li><b>The ordering rule.</b> The routing maps ({@link dev.cryo.commander.Routing}) change only
 *       by announcements, folded in the order they arrive from each worker, by quit reports and by
 *       deaths. "Frozen" is known only from a {@code user_frozen} announcement or a quit report
 *       naming the user, never inferred.
 *   <li>A user being frozen, moved or dropped is held: his requests wait, 5 s in all, then are
 *       answered 503 with {@code Retry-After}.
 *   <li>A dead worker's users that were not frozen are lost: dropped from the maps, their freezer
 *       folders dropped, counted and logged by name. The frozen ones are untouched.
 *   <li>Every refusal says what happened, what was kept and what to do, with a machine-readable
 *       reason. Logging goes through
 *       {@link java.lang.System.Logger}.
 * </ul>
 */
package dev.cryo.commander;
