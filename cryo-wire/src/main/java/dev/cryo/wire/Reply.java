package dev.cryo.wire;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The future of one call's reply. Waiting on it ({@link #get()}, {@link #get(long, TimeUnit)},
 * {@link #join()}) reads the wire on the waiting thread when nobody else does ({@link ReadTurn}):
 * the reply then wakes no other thread. Its dependent stages, and every other method, behave as
 * {@link CompletableFuture}'s (stages attached without an executor run on the thread that reads
 * the reply in, which may be any caller of the wire, or its reader thread).
 *
 * <p>A thread that reads the wire (a handler of an event or of an inline call) and waits for a
 * reply of the same wire cannot read that reply itself without handling later frames before the
 * frame at hand: it waits as a plain future does (until the call's timeout).
 */
final class Reply extends CompletableFuture<byte[]> {

  private final Wire wire;

  Reply(Wire wire) {
    this.wire = wire;
  }

  /** Waits for the reply, reading the wire meanwhile when its turn is free. */
  @Override
  public byte[] get() throws InterruptedException, ExecutionException {
    if (!wire.readsOnCurrentThread()) {
      wire.await(this, true, false, 0);
    }
    return super.get();
  }

  /** Waits for the reply at most the given time, reading the wire meanwhile (see the class). */
  @Override
  public byte[] get(long timeout, TimeUnit unit)
      throws InterruptedException, ExecutionException, TimeoutException {
    if (wire.readsOnCurrentThread()) {
      return super.get(timeout, unit);
    }
    if (!wire.await(this, true, true, System.nanoTime() + unit.toNanos(timeout))) {
      throw new TimeoutException("no reply within " + timeout + " " + unit);
    }
    return super.get(0, TimeUnit.NANOSECONDS);
  }

  /** Waits for the reply without giving up on an interrupt (kept, given back at the end). */
  @Override
  public byte[] join() {
    try {
      if (!wire.readsOnCurrentThread()) {
        wire.await(this, false, false, 0);
      }
    } catch (InterruptedException e) {
      throw new AssertionError("an uninterruptible wait threw " + e, e);
    }
    return super.join();
  }
}
