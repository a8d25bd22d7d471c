package dev.cryo.commander;

import dev.cryo.freezer.Freezer;
import dev.cryo.freezer.ParcelHeader;
import dev.cryo.lock.LockException;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The expiry of the frozen: a frozen user whose parcel was written longer ago than his time to live
 * ({@link Housekeeping#frozenUserTtl()}, {@link Housekeeping#frozenGuestTtl()} for a guest, the
 * shorter of it and {@link Housekeeping#frozenEmptyGuestTtl()} for a guest whose parcel's cause is
 * {@link ParcelHeader#EMPTY_GUEST_CAUSE}: his worker's idle valve froze him holding nothing) is
 * forgotten by the maps — he and his connections, whose cookies then arrive anonymous — and his
 * folder dropped. The time is the user parcel's header's, never a file's date.
 *
 * <p>Only a user frozen with no worker bound for his next request and no hold is a candidate, and
 * only while the commander holds his semaphore: a wake in progress (the semaphore taken) or a
 * request already placed (a binding) keeps him, and he is tried again at the next round. A header
 * that cannot be read keeps him too (logged): his time is unknown, so nothing is guessed.
 *
 * <p>Thread-safety: one round at a time ({@link #run} is synchronized); the maps and the freezer
 * are safe to share.
 */
final class Expiry {

  private static final System.Logger LOG = System.getLogger(Expiry.class.getName());
  /** The holder the commander's semaphore records name. */
  static final String HOLDER = "commander (expiry)";
  /** The start of a guest's name. */
  static final String GUEST_PREFIX = "guest_";

  private final Routing routing;
  private final Freezer freezer;
  private final Housekeeping policy;
  private final Clock clock;

  Expiry(Routing routing, Freezer freezer, Housekeeping policy, Clock clock) {
    this.routing = routing;
    this.freezer = freezer;
    this.policy = policy;
    this.clock = clock;
  }

  /**
   * One round: expires every frozen user past his time; returns those expired, sorted. A round
   * whose thread is interrupted stops at the next user, keeping him and the rest; the interrupt
   * stays set.
   */
  synchronized List<String> run() {
    Instant now = clock.instant();
    List<String> expired = new ArrayList<>();
    List<String> candidates = routing.frozenUnbound();
    for (int at = 0; at < candidates.size(); at++) {
      String user = candidates.get(at);
      if (Thread.currentThread().isInterrupted()) {
        return stopped(expired, candidates.size() - at);
      }
      Optional<ParcelHeader> header;
      try {
        header = freezer.userParcelHeader(user);
      } catch (IOException e) {
        if (Thread.currentThread().isInterrupted()) { // the read was cut, not the parcel torn
          return stopped(expired, candidates.size() - at);
        }
        LOG.log(Level.WARNING, "the parcel header of frozen '" + user + "' does not read (" + e
            + "); he is kept, since his age is unknown");
        continue;
      }
      if (header.isEmpty()) {
        continue; // a login tail's connection only, or moved meanwhile: nothing to date him by
      }
      Duration ttl = ttlOf(user, header.get());
      if (header.get().writtenAt().plus(ttl).isAfter(now)) {
        continue;
      }
      if (expire(user, header.get(), ttl)) {
        expired.add(user);
      }
    }
    return expired;
  }

  /** The time to live of frozen {@code user} whose user parcel has {@code header}. */
  Duration ttlOf(String user, ParcelHeader header) {
    if (!user.startsWith(GUEST_PREFIX)) {
      return policy.frozenUserTtl();
    }
    if (ParcelHeader.EMPTY_GUEST_CAUSE.equals(header.cause())
        && policy.frozenEmptyGuestTtl().compareTo(policy.frozenGuestTtl()) < 0) {
      return policy.frozenEmptyGuestTtl();
    }
    return policy.frozenGuestTtl();
  }

  /** Ends a round whose thread was interrupted (the commander closing), in one line. */
  private static List<String> stopped(List<String> expired, int left) {
    LOG.log(Level.INFO, "the expiry round was interrupted (the commander is closing); the " + left
        + " frozen users it had not looked at are kept, and the next round looks at them");
    return expired;
  }

  private boolean expire(String user, ParcelHeader header, Duration ttl) {
    try {
      if (!freezer.tryTakeSemaphore(user, HOLDER)) {
        return false; // a worker is waking him: tried again at the next round
      }
    } catch (LockException e) {
      LOG.log(Level.WARNING, "the semaphore of '" + user + "' could not be taken for his expiry ("
          + e + "); he is kept");
      return false;
    }
    boolean forgotten = false;
    try {
      forgotten = routing.forgetExpired(user, "frozen since " + header.writtenAt()
          + ", longer than his time to live of " + ttl);
      if (forgotten) {
        freezer.dropUserFolder(user); // the semaphore goes with the folder
      }
      return forgotten;
    } catch (IOException e) {
      LOG.log(Level.WARNING, "the folder of expired '" + user + "' could not be dropped (" + e
          + "); the maps forgot him, and the sweep takes what is left");
      return true;
    } finally {
      if (!forgotten) {
        release(user);
      }
    }
  }

  private void release(String user) {
    try {
      freezer.releaseSemaphore(user, HOLDER);
    } catch (LockException | RuntimeException e) {
      LOG.log(Level.WARNING, "the semaphore of '" + user + "' could not be released: " + e);
    }
  }
}
