package dev.cryo.register;

import static dev.cryo.register.Chain.checkFields;
import static dev.cryo.register.Chain.lockOrder;
import static dev.cryo.register.Chain.refuseIfLeaving;
import static dev.cryo.register.RegisterRegistry.CONNECTION_ITEMS;
import static dev.cryo.register.RegisterRegistry.GUEST_PREFIX;

import dev.cryo.register.RegisterException.Reason;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.locks.Lock;

/**
 * The login: a live connection relabelled onto a user, and the guest's entry transferred whole
 * when it claims its first real identity. It looks at the chain under the structure lock (shared),
 * builds what it needs with no lock held, locks the connection and then, for a transfer, the
 * guest's entry (upwards, as the lock order says), and relabels in one exclusive section after
 * checking that nothing it saw has moved; when something has, it looks again.
 *
 * <p>The contract is that of {@link RegisterRegistry#changeConnectionUser}. Thread-safe.
 */
final class Login {

  private final Chain chain;
  private final StructureLock structure;
  private final Lock write;
  private final Register<UserRow> users;
  private final Register<ConnectionRow> connections;
  private final Register<PageRow> pages;

  Login(Chain chain) {
    this.chain = chain;
    this.structure = chain.structure;
    this.write = chain.write;
    this.users = chain.users;
    this.connections = chain.connections;
    this.pages = chain.pages;
  }

  /** See {@link RegisterRegistry#changeConnectionUser}. */
  ConnectionRow changeConnectionUser(String connectionId, String user,
      Map<String, ?> fields) {
    Objects.requireNonNull(connectionId, "connectionId");
    Objects.requireNonNull(user, "user");
    Objects.requireNonNull(fields, "fields");
    if (user.startsWith(GUEST_PREFIX)) {
      throw new RegisterException(Reason.GUEST_TARGET, CONNECTION_ITEMS, connectionId,
          "changeConnectionUser '" + connectionId + "' to '" + user + "': '" + GUEST_PREFIX
              + "' is reserved, nobody logs in as a guest; nothing was changed: pass a real user");
    }
    while (true) {
      LoginView view = structure.read(() -> {
        ConnectionRow found = connections.rowLocked(connectionId);
        if (found == null) {
          throw connections.unknown(connectionId, "changeConnectionUser");
        }
        refuseIfLeaving(found, "changeConnectionUser", connectionId);
        UserRow owner = users.rowLocked(found.user());
        UserRow resident = users.rowLocked(user);
        refuseIfLeaving(resident, "changeConnectionUser", connectionId);
        return new LoginView(found, owner, resident,
            resident == null && owner.isGuest() && owner.connections.size() == 1);
      });
      ConnectionRow connection = view.connection();
      UserRow previous = view.previous();
      UserRow target = view.target();
      boolean transfer = view.transfer();
      checkFields(connection, fields);
      if (previous.lock().isHeldByCurrentThread() && !connection.lock().isHeldByCurrentThread()) {
        throw lockOrder("changeConnectionUser", connectionId, previous);
      }
      UserRow created = null;
      if (target == null) {
        if (transfer) {
          checkFields(previous, fields);
        } else {
          created = users.build(user, fields, chain.births(fields));
        }
      }
      connection.lock().lock();
      try {
        if (transfer) {
          previous.lock().lock(); // upwards from the connection
        }
        try {
          write.lock();
          try {
            if (connection.register != connections || connection.state != Row.LIVE
                || users.rowLocked(connection.user()) != previous
                || users.rowLocked(user) != target || previous.state != Row.LIVE
                || (transfer && previous.connections.size() != 1)) {
              continue; // the chain moved meanwhile: look again
            }
            // The resident was live when we looked, but a drop may have claimed it since: it is
            // still registered, so the check above passes, and its removal takes only the
            // connections it had at its claim. Moving this one onto it would orphan it.
            refuseIfLeaving(target, "changeConnectionUser", connectionId);
            Map<String, Object> connectionChanges = new HashMap<>(fields);
            connectionChanges.put(ConnectionRow.USER, user);
            if (transfer) {
              users.rekeyLocked(previous, user);
              users.applyLocked(previous, fields);
              connections.applyLocked(connection, connectionChanges);
              return connection;
            }
            UserRow destination = target;
            if (destination == null) {
              users.insertLocked(created);
              destination = created;
            }
            connections.applyLocked(connection, connectionChanges);
            if (destination != previous) {
              previous.connections.remove(connectionId);
              destination.connections.addNew(connectionId);
              if (previous.connections.isEmpty()) {
                users.removeLocked(previous);
              }
            }
            return connection;
          } finally {
            write.unlock();
          }
        } finally {
          if (transfer) {
            previous.lock().unlock();
          }
        }
      } finally {
        connection.lock().unlock();
      }
    }
  }

  /** What a login saw of the chain before locking anything; checked again under the lock. */
  private record LoginView(ConnectionRow connection, UserRow previous, UserRow target,
      boolean transfer) {}
}
