/**
 * Control files of a server run: how a running server is told to stop, by anybody, without a lock.
 *
 * <p>A run directory holds {@code run.json} ({@link dev.cryo.control.RunState}: which run of the
 * server is current, named by a random invocation id) and, when a stop was asked for,
 * {@code stop-request} ({@link dev.cryo.control.StopRequest}: {@code drain} or {@code now}, bound to
 * one invocation). {@link dev.cryo.control.RunDirectory} publishes, reads and cleans them.
 *
 * <p>The server that runs in a run directory holds it as a {@link dev.cryo.control.RunHome}: the
 * run's home, created 0700, and the one rule every entry it reads, writes or creates there is
 * judged by — of the kind the run keeps there (never a link or special file where it keeps a file
 * or directory), owned by the user the server runs as, writable by nobody else.
 *
 * <p>Rules of the package:
 * <ul>
 *   <li>Every file under a run directory is reached through a {@link dev.cryo.control.SafeRoot}:
 *       never through a symbolic link, never blocking on a FIFO, never reading past a size limit,
 *       never trusting the size a file claims.
 *   <li>A file a second writer may race for is published by {@code link(2)} through
 *       {@link dev.cryo.lock.Publication}, the one publication primitive of cryo: a reader sees it
 *       whole or not at all, and an existing entry is never replaced.
 *   <li>Readers take no lock and are strict: duplicate keys, unknown or missing fields, non-JSON
 *       numbers, wrong types and invalid UTF-8 are refused. A stop request that does not parse is
 *       read as a drain, never as a crash; an unsafe path above it throws, for the caller to fail
 *       closed. Reading creates nothing.
 *   <li>Only the holder of the run's lock removes or replaces anything; nothing here signals a
 *       process.
 *   <li>The server acts on no file of its home that another user owns or that its group or
 *       others may write ({@link dev.cryo.control.RunHome}): at its start such a file, or the
 *       home itself, is refused with nothing read, changed or deleted; during its run a stop
 *       request ({@link dev.cryo.control.StopWatcher}) or reload request of that kind is left
 *       where it is, unread. Everything it creates is 0600 (files) or 0700 (directories).
 * </ul>
 * Refusals are {@link dev.cryo.control.ControlException}s with a machine-readable
 * {@link dev.cryo.control.ControlException.Reason}. Linux only: the walk needs
 * {@link java.nio.file.SecureDirectoryStream} and {@code /proc/self/fd}.
 */
package dev.cryo.control;
