/**
 * A run's history: what every client operation invoked and what came back ({@code ok},
 * {@code fail}, {@code info}), the pushes received, and the faults with their start and end, as
 * JSON lines ({@link dev.cryo.chaos.history.Entry}, {@link dev.cryo.chaos.history.History}). The
 * harness writes it, the checker reads it; nothing else is shared between them.
 */
package dev.cryo.chaos.history;
