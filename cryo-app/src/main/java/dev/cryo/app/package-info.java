/**
 * The API an application is written against: routes ({@link dev.cryo.app.Routes}), the call
 * ({@link dev.cryo.app.Call}), typed per-user, per-connection and per-page state
 * ({@link dev.cryo.app.State}), lifecycle hooks ({@link dev.cryo.app.CryoApplication}), login, and
 * a test kit ({@link dev.cryo.app.CryoTestKit}).
 *
 * <h2>Rules of the package</h2>
 *
 * <ul>
 *   <li>It names no class of the runtime and depends on Jackson and on Micrometer's core (the
 *       application's meters, {@link dev.cryo.app.AppContext#meters()}) alone: an application compiles
 *       against it and nothing else.
 *   <li>One turn per user: the runtime runs one call of a user at a time, in arrival order; the
 *       API never asks an application for a lock.
 *   <li>State is plain data. What cannot be frozen is refused when it is written, with the field's
 *       name ({@link dev.cryo.app.StateException.Reason#NOT_FREEZABLE}), never dropped at a freeze.
 *       What one version wrote, the next reads: unknown fields are ignored, missing ones defaulted,
 *       and an application that declares a new {@link dev.cryo.app.CryoApplication#stateVersion()}
 *       upgrades older values in {@link dev.cryo.app.CryoApplication#upgrade}; what the running
 *       version cannot read is refused ({@link dev.cryo.app.StateException.Reason#UNREADABLE}) and
 *       left as stored, never dropped.
 *   <li>Filters ({@link dev.cryo.app.Routes#before}, {@link dev.cryo.app.Routes#after}) run around
 *       every route's handler with its {@link dev.cryo.app.Call}, in the same turn of the user.
 *   <li>A guest's user state reaches an identity that exists only through the application's login
 *       merges ({@link dev.cryo.app.Routes#mergeAtLogin}), run in the identity's turn where the two
 *       states meet; a host keeps the guest's store for them under
 *       {@link dev.cryo.app.Dispatcher#MERGING_GUESTS} and never merges itself.
 *   <li>A stored field a state class no longer has is ignored on read and told once per class and
 *       field ({@link dev.cryo.app.IgnoredStateFields}), never silently.
 *   <li>A handler's own failure is a {@code 500} with a generic body, logged through
 *       {@link java.lang.System.Logger}; a {@link dev.cryo.app.Refusal} is an answer, not a
 *       failure.
 *   <li>Hosts — the worker's application host, the test kit — use {@link dev.cryo.app.Dispatcher},
 *       {@link dev.cryo.app.CallHost}, {@link dev.cryo.app.StateHost} and
 *       {@link dev.cryo.app.Scope}; applications never need them. Both hosts follow one
 *       {@link dev.cryo.app.HostPolicy} (wake once per stay, the 500 of a failed {@code onWake},
 *       the freeze hooks, the 503 of state the running version cannot read), so that an
 *       application that passes in the kit behaves the same in the runtime: a host decides where
 *       state lives and whose turn it is, never what those replies are.
 * </ul>
 */
package dev.cryo.app;
