/**
 * The whole runtime's speed over HTTP and its page sockets: a closed-loop load generator with a
 * cookie per virtual user, the single-process anchor it is compared with, and the benchmark that
 * runs both in one run; the page socket beside HTTP and push latency; idle sockets held by the
 * front beside a bare Jetty WebSocket server, with their users frozen; drain and restart.
 */
package dev.cryo.bench.serve;
