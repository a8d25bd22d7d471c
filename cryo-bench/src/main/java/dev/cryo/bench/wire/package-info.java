/**
 * The speed of {@code cryo-wire}: {@link dev.cryo.bench.wire.WireRoundTrip} times a call round
 * trip with 1 KiB each way beside a bare Unix-socket ping-pong of the same bytes (the floor), in
 * the same run, interleaved block by block, and reports p50 / p99 of both and their ratio.
 *
 * <p>Every round trip checks what came back and fails otherwise; timings are never asserted in
 * tests. {@code docs/benchmarks.md} keeps the latest figures. Nothing here is shipped.
 */
package dev.cryo.bench.wire;
