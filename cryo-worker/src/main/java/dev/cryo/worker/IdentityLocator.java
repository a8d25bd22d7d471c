package dev.cryo.worker;

import dev.cryo.wire.protocol.RefusalReason;
import java.util.Objects;

/**
 * Where an identity lives, as the commander knows it: the seam a {@link Worker}'s login asks
 * ({@link Worker#login(String, String)}) to choose between the relabel in place and the login tail.
 * In the worker process it is the wire call {@code locate}.
 *
 * <p>Called on the thread of the call that logs in, with no lock of the worker held; it may block
 * (a round trip to the commander). Implementations must be thread-safe. A throw refuses the login
 * with {@link RefusalReason#LOCATE_FAILED}, nothing changed.
 */
@FunctionalInterface
public interface IdentityLocator {

  /**
   * The locator of a worker alone: every identity lives here or nowhere, so logins relabel in place
   * (at generation 0).
   */
  IdentityLocator NOWHERE = user -> Location.NOWHERE;

  /**
   * Where {@code user} lives.
   *
   * @param user a real identity (never a guest)
   * @return its location; never null
   * @throws Exception when the answer cannot be had (the login is refused, retryable)
   */
  Location locate(String user) throws Exception;

  /**
   * An identity's whereabouts, fenced by its generation ({@link dev.cryo.wire.protocol.Grant}).
   *
   * @param worker the worker holding it (the asker, when {@code claimed}), or null when no worker
   *     does
   * @param frozen whether it waits in the freezer
   * @param generation the generation it is held at; 0 for a worker alone
   * @param claimed whether nobody held it and the answer gave it to the asker at
   *     {@code generation}: the login may create it here, at that generation only
   */
  record Location(String worker, boolean frozen, long generation, boolean claimed) {

    /**
     * Nowhere: no worker holds it and the freezer has no parcel of it (a first login), for a
     * worker alone, which may create it at generation 0.
     */
    public static final Location NOWHERE = new Location(null, false, 0, false);

    /** In the freezer. */
    public static final Location FROZEN = new Location(null, true, 0, false);

    /** Held by worker {@code name} at generation 0. */
    public static Location on(String name) {
      return new Location(Objects.requireNonNull(name, "name"), false, 0, false);
    }

    /** Held by worker {@code name} at {@code generation}; {@code claimed} when just given to it. */
    public static Location on(String name, long generation, boolean claimed) {
      return new Location(Objects.requireNonNull(name, "name"), false, generation, claimed);
    }

    /** Whether a login on worker {@code here} may make the identity's tenant when absent. */
    boolean createsOn(String here) {
      return claimed ? here.equals(worker) : worker == null && !frozen;
    }

    /**
     * Whether the identity lives away from worker {@code here}: on another worker, or in the
     * freezer (its parcel must be woken, never shadowed by a fresh entry here).
     */
    public boolean elsewhereThan(String here) {
      return frozen || (worker != null && !worker.equals(here));
    }
  }
}
