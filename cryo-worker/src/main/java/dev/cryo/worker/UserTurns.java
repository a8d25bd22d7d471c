package dev.cryo.worker;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One turn per user: a fair, reentrant lock per user name, made on first use and forgotten when
 * nobody holds or waits for it. Calls of one user take his turn in the order they ask for it;
 * different users never wait for each other. Thread-safe.
 */
final class UserTurns {

  /** One user's turn; {@link #holders} counts who holds or waits for it, guarded by the map. */
  static final class Turn {
    final String user;
    final ReentrantLock lock = new ReentrantLock(true);
    int holders;

    Turn(String user) {
      this.user = user;
    }
  }

  private final ConcurrentHashMap<String, Turn> turns = new ConcurrentHashMap<>();

  /** Waits for {@code user}'s turn and takes it; give it back with {@link #exit}. */
  Turn enter(String user) {
    Turn turn = turns.compute(user, (name, existing) -> {
      Turn chosen = existing != null ? existing : new Turn(name);
      chosen.holders++;
      return chosen;
    });
    turn.lock.lock();
    return turn;
  }

  /** Gives a turn back; forgets it when nobody else holds or waits for it. */
  void exit(Turn turn) {
    turn.lock.unlock();
    turns.compute(turn.user, (name, existing) -> {
      if (existing != turn) {
        return existing;
      }
      return --existing.holders == 0 ? null : existing;
    });
  }

  /** The turn of {@code user} when somebody holds or awaits it, else null; for tests. */
  Turn turn(String user) {
    return turns.get(user);
  }

  /** How many users have a turn held or awaited, for tests. */
  int size() {
    return turns.size();
  }
}
