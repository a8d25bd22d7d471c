/**
 * The benchmarks of cryo, each measured side by side with the anchor it is compared with, in the
 * same run. Nothing here is shipped.
 *
 * <p>{@link dev.cryo.bench.Benchmarks} is the entry point of the runnable jar: it runs JMH with
 * short defaults. Sub-packages hold the benchmarks and cross-process harnesses of one building
 * block each ({@code dev.cryo.bench.lock} for {@code cryo-lock}). Rules: a benchmark reports a ratio
 * to its anchor, never a bare number; a harness checks what it measures (mutual exclusion, clock
 * ordering) and fails loudly instead of reporting a figure it cannot trust; timings are never
 * asserted in tests.
 */
package dev.cryo.bench;
