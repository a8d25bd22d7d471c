/**
 * The front: the run's one public port. Jetty 12's core handlers on virtual threads turn each HTTP
 * request into a call of the commander's Java API and write its reply back.
 *
 * <h2>Rules of the package</h2>
 *
 * <ul>
 *   <li>Who a request is for comes only from the connection cookie {@code cryo_connection}, a
 *       128-bit random value cryo minted itself. A value the commander does not know — unknown,
 *       forged, expired, malformed — makes a new anonymous connection with a new value, never
 *       anybody else's. The value is a bearer secret that never leaves the front: the connection's
 *       id, which the commander, the workers and the application see, is a one-way hash of it.
 *       The application cannot set the cookie.
 *   <li>Everything is bounded before it reaches a worker: a body over the limit is refused with
 *       413; header limits are Jetty's.
 *   <li>Paths under {@code /_cryo/} are cryo's own and never reach the application.
 *   <li>The front holds no state of its own about users: the commander's maps are the truth.
 * </ul>
 */
package dev.cryo.front;
