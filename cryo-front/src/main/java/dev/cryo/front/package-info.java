/**
 * The front: the run's one public port. Jetty 12's core handlers on virtual threads turn each HTTP
 * request, and each call on a page socket, into a call of the commander's Java API and write its
 * reply back; the application's pushes go out on the page sockets.
 *
 * <h2>Rules of the package</h2>
 *
 * <ul>
 *   <li>Who a request is for comes only from the connection cookie {@code cryo_connection}, a
 *       128-bit random value cryo minted itself. A value the commander does not know — unknown,
 *       forged, expired, malformed — makes a new anonymous connection with a new value, never
 *       anybody else's. The value is a bearer secret that never leaves the front: the connection's
 *       id, which the commander, the workers and the application see, is a one-way hash of it.
 *       The application cannot set the cookie (its {@code Set-Cookie} of it is removed, logged
 *       once): a login rotates it — the reply carries a new value, {@code ID.SECRET}, and the
 *       value before it is retired in the same call — and {@code call.logout()} or
 *       {@code call.forget()} clears it ({@code ConnectionCookie}). A retired value is answered
 *       as one the commander does not know. Whether a value still proves its connection is the
 *       worker's to say (the connection's credential travels with it); the front mints the
 *       successor secret of every request and sends only its hash.
 *   <li>Everything is bounded before it reaches a worker: a body over the limit is refused with
 *       413; header limits are Jetty's. A request that would make a new guest (no known cookie) is
 *       charged to its client address's {@code NewVisitorBudget} and, past it, refused 429 before
 *       anything is read, minted or asked of the run; a known cookie is never charged.
 *   <li>Paths under {@code /_cryo/} are cryo's own and never reach the application.
 *   <li>A browser's request from another site changes nothing: anything but GET, HEAD and
 *       OPTIONS whose {@code Origin} or {@code Sec-Fetch-Site} says another site, and whose origin
 *       is not allowed, is refused with 403 before it is read ({@code CrossSiteGate}). The page's
 *       own origin and the allowed ones are one policy for requests and sockets
 *       ({@code OriginPolicy}).
 *   <li>The front's own refusals are JSON {@code {"error", "message"}} ({@code Refusals}) and name
 *       no path, worker or internal API of the run.
 *   <li>The page sockets ({@code /_cryo/ws}, docs/socket.md) are the one thing the front keeps:
 *       which socket each page's channel is open on. They never mint a connection (a handshake
 *       without a known cookie, or with a retired one, is closed 1008; a rotation closes the
 *       sockets opened with the value it retired), pass an Origin gate, and are bounded (message
 *       size, calls in flight, the outbound queue). A freeze or a move of a user never touches
 *       them; a push is written to them by the front, so it wakes nobody. A page the server
 *       closed for good ({@code Upstream.pushSink}'s {@code pageClosed}, as the commander folds a
 *       {@code drop_page}) leaves its sockets: one left without pages is closed 4404
 *       {@code page_closed} once its calls in flight are answered.
 *   <li>Every request and every socket call gets an id the front mints ({@code RequestIds}),
 *       never the client's: it goes to the worker as {@code Cryo-Request-Id}, comes back in the
 *       reply's, and names the request in the front's lines about it.
 *   <li>The browser client, {@code /_cryo/cryo.js} (docs/client.md), is a resource of this
 *       package served by the front itself ({@code ClientScript}): like every {@code /_cryo/}
 *       path it reaches no worker and mints no cookie. Its protocol is the page socket's; a
 *       change to one is a change to the other and to both pages of docs.
 *   <li>The application's static files ({@code routes.staticResources}, docs/app.md): a path
 *       under a prefix the workers presented is served through {@code Upstream.serveStatic}
 *       before any cookie is read or minted — it belongs to no connection and wakes nobody.
 *       Jetty's own refusals (a malformed or ambiguous URI) are JSON too ({@code JsonErrors}).
 *   <li>Apart from the sockets, the front holds no state of its own about users: the commander's
 *       maps are the truth.
 * </ul>
 */
package dev.cryo.front;
