package dev.cryo.worker;

import dev.cryo.freezer.Freezer;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The forces of durable checkpoints, committed in groups: each user whose durable checkpoint was
 * just written joins the group that is open, and one force ({@link Freezer#forceUsers}: every
 * member's folder at once, then the root's entries once) commits the whole group; whoever joins
 * while it runs waits for the next. Under load a force serves everyone who arrived during the
 * previous one, so the disk's wait is paid once per group, not once per call.
 *
 * <p>A member calls {@link #force} on its checkpoint's trip, holding its user's semaphore: no
 * other write of his can replace the parcel being forced until the force returned, so a folder's
 * entries are never made durable ahead of the data they name. The trips of durable checkpoints run
 * on threads of their own (they wait here), never on the worker's disk threads.
 *
 * <p>Thread-safe. The forcing runs on one virtual thread at a time, started when a group opens
 * and ending when no member waits.
 */
final class GroupCommit {

  /** What forces a group: {@link Freezer#forceUsers} of the worker's freezer. */
  @FunctionalInterface
  interface Force {
    void users(List<String> users) throws IOException;
  }

  /** One user waiting for his folder's force. */
  private record Member(String user, CompletableFuture<Void> forced) {}

  private final Force force;
  private final List<Member> open = new ArrayList<>(); // guarded by this: the next group
  private boolean forcing; // guarded by this: a forcing thread runs
  private final AtomicLong groups = new AtomicLong();
  private final AtomicLong members = new AtomicLong();

  GroupCommit(Freezer freezer) {
    this(users -> freezer.forceUsers(users));
  }

  GroupCommit(Force force) {
    this.force = force;
  }

  /**
   * Returns once {@code user}'s folder, as it is now, is forced to disk, with the group this call
   * joined. The caller holds his semaphore.
   *
   * @throws IOException when the force failed: his folder is not known to be on disk
   */
  void force(String user) throws IOException {
    Member member = new Member(user, new CompletableFuture<>());
    boolean start;
    synchronized (this) {
      open.add(member);
      start = !forcing;
      forcing = true;
    }
    if (start) {
      Thread.ofVirtual().name("cryo-worker-group-commit").start(this::forceGroups);
    }
    try {
      member.forced().get();
    } catch (ExecutionException e) {
      throw e.getCause() instanceof IOException io ? io : new IOException(e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while " + user + "'s folder was forced; it is not known"
          + " to be on disk", e);
    }
  }

  /** Forces group after group until none is open. */
  private void forceGroups() {
    while (true) {
      List<Member> group;
      synchronized (this) {
        if (open.isEmpty()) {
          forcing = false;
          return;
        }
        group = List.copyOf(open);
        open.clear();
      }
      groups.incrementAndGet();
      members.addAndGet(group.size());
      try {
        force.users(group.stream().map(Member::user).distinct().toList());
        group.forEach(member -> member.forced().complete(null));
      } catch (IOException | RuntimeException e) {
        group.forEach(member -> member.forced().completeExceptionally(e));
      }
    }
  }

  /** How many members wait in the open group, not yet forcing. */
  synchronized int waiting() {
    return open.size();
  }

  /** How many groups were forced so far. */
  long groups() {
    return groups.get();
  }

  /** How many members those groups had in all. */
  long members() {
    return members.get();
  }
}
