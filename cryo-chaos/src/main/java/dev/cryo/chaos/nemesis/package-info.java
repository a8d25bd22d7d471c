/**
 * The nemesis: the run under test ({@link dev.cryo.chaos.nemesis.Server}, the {@code cryo serve}
 * processes on one home) and the faults injected into it by a seeded
 * {@link dev.cryo.chaos.nemesis.Schedule} — {@code kill -9} of a worker or of the commander,
 * {@code SIGSTOP} of a worker, reloads, drains and restarts, a drain during a reload, move storms,
 * and a full disk ({@link dev.cryo.chaos.nemesis.SmallDisk}, a tmpfs mounted as root; skipped,
 * and said, where it cannot be). One fault at a time, from one thread.
 */
package dev.cryo.chaos.nemesis;
