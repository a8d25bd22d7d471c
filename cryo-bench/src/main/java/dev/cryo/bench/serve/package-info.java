/**
 * The whole runtime's speed over HTTP: a closed-loop load generator with a cookie per virtual user,
 * the single-process anchor it is compared with, and the benchmark that runs both in one run; the
 * page socket's (a call beside HTTP, push latency, and idle sockets held by the front beside a bare
 * Jetty WebSocket server with their users frozen: {@code IdleSocketsBench}), a run's drain and
 * restart ({@code DrainBench}) and its rolling reload under load ({@code ReloadBench}).
 */
package dev.cryo.bench.serve;
