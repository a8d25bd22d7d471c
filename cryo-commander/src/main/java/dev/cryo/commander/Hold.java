package dev.cryo.commander;

import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One hold on a user (see {@link Routing#hold}): while it stands, his requests wait. Released once,
 * by the fold that ends it ({@code user_frozen}, {@code user_adopted}, {@code drop_user}, the death
 * of his worker) or by its holder when the operation failed. The first release records what ended
 * the hold ({@link #ending()}); later ones change nothing. Thread-safe.
 */
public final class Hold {

  /**
   * What released a hold: recorded by the first release, under the maps' lock, as the release itself
   * (so the maps and the ending never disagree). The holder learns from it what its operation did,
   * never from re-reading the maps after it: once the hold is released, the user's waiting requests
   * may have changed them (woken him elsewhere) already.
   */
  public sealed interface Ending {

    /**
     * The fold of {@code user_frozen} from {@code worker} put him in the freezer, his next request
     * bound for {@code destination} (the hold's: a move's, else null). For a move's hold, the fold
     * recorded the move's {@code move} event with it: the move was done.
     */
    record Froze(String worker, String destination) implements Ending {}

    /**
     * Another fold ended it without freezing him: {@code user_adopted} from {@code worker}, or a
     * {@code user_frozen} of a user the maps had in the freezer already.
     */
    record Folded(String worker, String kind) implements Ending {}

    /**
     * He left the maps: his worker died (he was lost), a {@code drop_user} of his was folded, or his
     * guest identity was re-keyed by a login.
     */
    record Forgotten() implements Ending {}

    /** Its holder released it ({@link Routing#release}): no fold ended it first. */
    record ByHolder() implements Ending {}
  }

  private final String user;
  private final HoldReason reason;
  private final String destination;
  private final CompletableFuture<Ending> released = new CompletableFuture<>();
  private final AtomicBoolean hurried = new AtomicBoolean();
  private final CompletableFuture<Void> ordered = new CompletableFuture<>();

  Hold(String user, HoldReason reason, String destination) {
    this.user = Objects.requireNonNull(user, "user");
    this.reason = Objects.requireNonNull(reason, "reason");
    this.destination = destination;
  }

  /** The user held. */
  public String user() {
    return user;
  }

  /** Why he is held. */
  public HoldReason reason() {
    return reason;
  }

  /** The worker his next request goes to once he is frozen (a move's), or null. */
  public String destination() {
    return destination;
  }

  /** Whether the hold was released. */
  public boolean isReleased() {
    return released.isDone();
  }

  /** What released the hold (the first release's), or null while it stands. */
  public Ending ending() {
    return released.getNow(null);
  }

  /**
   * Runs {@code hurry} once the quit that holds this user was ordered ({@link #quitOrdered}): at
   * once when it was, else on the quitter's thread when it is; never when the hold is not a quit's
   * or its order is never sent. Only the first caller's runs, so a hold is hurried once.
   */
  void hurryOnceOrdered(Runnable hurry) {
    if (hurried.compareAndSet(false, true)) {
      ordered.thenRun(hurry);
    }
  }

  /** Marks that the quit holding this user was sent to his worker; see {@link #hurryOnceOrdered}. */
  void quitOrdered() {
    ordered.complete(null);
  }

  /**
   * Marks the hold released by {@code ending} and wakes its waiters. Only the first call counts: a
   * later one keeps the first's ending.
   */
  void markReleased(Ending ending) {
    released.complete(Objects.requireNonNull(ending, "ending"));
  }

  /**
   * Waits until the hold is released or {@code deadlineNanos} ({@link System#nanoTime()}) passes.
   *
   * @return whether it was released
   */
  public boolean awaitRelease(long deadlineNanos) throws InterruptedException {
    long remaining = deadlineNanos - System.nanoTime();
    if (released.isDone()) {
      return true;
    }
    if (remaining <= 0) {
      return false;
    }
    try {
      released.get(remaining, TimeUnit.NANOSECONDS);
      return true;
    } catch (TimeoutException e) {
      return false;
    } catch (ExecutionException e) {
      throw new IllegalStateException("a hold never fails", e);
    }
  }

  @Override
  public String toString() {
    return "Hold[" + user + ", " + reason.code() + (destination == null ? "" : " to " + destination)
        + (isReleased() ? ", released: " + ending() : "") + "]";
  }
}
