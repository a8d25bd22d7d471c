/**
 * The admin side of a run of cryo: a live status page ({@code /_cryo/status}, server-sent events),
 * the status as JSON ({@code /_cryo/status.json}, the shape of {@code cryo status --json}) and the
 * metrics in Prometheus' text format ({@code /_cryo/metrics}), served by an admin listener of its
 * own ({@link dev.cryo.admin.Admin}, {@link dev.cryo.admin.AdminListener}).
 *
 * <h2>Rules of the package</h2>
 * <ul>
 *   <li>Nothing of the run is served to the network without the admin token: the admin port is
 *       loopback unless a token is set, and the public port serves the admin paths only with a
 *       token, to requests that prove it ({@link dev.cryo.admin.AdminToken}, compared in constant
 *       time); a missing or wrong token is 401, and without a token the paths are 404 there.
 *   <li>Without a token, the admin port answers only requests whose {@code Host} is an address or
 *       localhost (403 {@code host_not_allowed} otherwise): no DNS rebinding.
 *   <li>Read only: nothing served here changes the run.
 *   <li>The admin knows the run only through small seams — the commander's
 *       {@link dev.cryo.commander.RunListener} and {@link dev.cryo.commander.Status}, the front's
 *       {@link dev.cryo.front.RequestListener} and {@link dev.cryo.front.SocketStats} — and is
 *       the one module that knows Micrometer ({@link dev.cryo.admin.RunMetrics}).
 *   <li>Bounded: the events and the chart keep a fixed number of entries, the live streams are
 *       limited in number (a new one past the limit ends the oldest, so nobody holding streams
 *       locks the operator out), the page loads nothing from outside the listener.
 * </ul>
 */
package dev.cryo.admin;
