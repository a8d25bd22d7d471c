package dev.cryo.register;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.Lock;

/**
 * The invariants of the ownership chain, checked in one consistent view (under the structure lock,
 * shared): both directions of every edge agree, every index agrees with its rows, no row is
 * orphaned, every page's user is derivable, and no row is left half-demolished.
 */
final class ChainInvariants {

  private ChainInvariants() {}

  /** The list of violations; empty when the chain is sound. */
  static List<String> violations(RegisterRegistry registry) {
    return violations(registry, false);
  }

  /**
   * The list of violations. With {@code demolitionsMayBeUnderWay}, rows marked as being dropped are
   * accepted (a concurrent drop between its claim and its removal); otherwise every row is live.
   */
  static List<String> violations(RegisterRegistry registry, boolean demolitionsMayBeUnderWay) {
    List<String> out = new ArrayList<>();
    Register<UserRow> users = registry.userItems();
    Register<ConnectionRow> connections = registry.connectionItems();
    Register<PageRow> pages = registry.pageItems();
    Lock read = pages.structure().read();
    read.lock();
    try {
      for (Register<? extends Row> register : List.of(users, connections, pages)) {
        for (Row row : register.rowsLocked()) {
          if (register.rowLocked(row.key()) != row) {
            out.add(register.name() + ": row " + row.key() + " is not filed under its key");
          }
          if (row.register != register) {
            out.add(register.name() + ": row " + row.key() + " does not name its register");
          }
          boolean acceptable = row.state == Row.LIVE
              || (demolitionsMayBeUnderWay && row.state == Row.LEAVING);
          if (!acceptable) {
            out.add(register.name() + ": row " + row.key() + " in state " + row.state);
          }
        }
        try {
          IndexProbe.assertAgreesLocked(register);
        } catch (AssertionError e) {
          out.add(e.getMessage());
        }
      }
      for (PageRow page : pages.rowsLocked()) {
        ConnectionRow connection = connections.rowLocked(page.connectionId());
        if (connection == null) {
          out.add("page " + page.key() + " is orphaned: no connection " + page.connectionId());
          continue;
        }
        if (!connection.pages.contains(page.key())) {
          out.add("page " + page.key() + " names connection " + connection.key()
              + ", whose pages do not name it");
        }
        if (page.has(ConnectionRow.USER)) {
          out.add("page " + page.key() + " stores a user");
        }
        try {
          String derived = registry.pageUser(page.key());
          if (!derived.equals(connection.user())) {
            out.add("pageUser(" + page.key() + ") = " + derived + ", not " + connection.user());
          }
        } catch (RuntimeException e) {
          out.add("pageUser(" + page.key() + ") failed: " + e);
        }
      }
      for (ConnectionRow connection : connections.rowsLocked()) {
        UserRow user = users.rowLocked(connection.user());
        if (user == null) {
          out.add("connection " + connection.key() + " is orphaned: no user " + connection.user());
        } else if (!user.connections.contains(connection.key())) {
          out.add("connection " + connection.key() + " names user " + user.key()
              + ", whose connections do not name it");
        }
        connection.pages.forEach(pageId -> {
          PageRow page = pages.rowLocked(pageId);
          if (page == null) {
            out.add("connection " + connection.key() + " names a missing page " + pageId);
          } else if (!connection.key().equals(page.connectionId())) {
            out.add("connection " + connection.key() + " names page " + pageId
                + ", which hangs from " + page.connectionId());
          }
        });
      }
      for (UserRow user : users.rowsLocked()) {
        user.connections.forEach(connectionId -> {
          ConnectionRow connection = connections.rowLocked(connectionId);
          if (connection == null) {
            out.add("user " + user.key() + " names a missing connection " + connectionId);
          } else if (!user.key().equals(connection.user())) {
            out.add("user " + user.key() + " names connection " + connectionId
                + ", which belongs to " + connection.user());
          }
        });
      }
    } finally {
      read.unlock();
    }
    return out;
  }

  /**
   * A comparable picture of the whole chain: every row (by identity) with every field. Two
   * pictures are equal when nothing was created, dropped, relabelled or written in between.
   */
  static Map<String, Object> picture(RegisterRegistry registry) {
    Map<String, Object> out = new LinkedHashMap<>();
    Lock read = registry.pageItems().structure().read();
    read.lock();
    try {
      for (Register<? extends Row> register : List.of(registry.userItems(),
          registry.connectionItems(), registry.pageItems())) {
        for (Row row : register.rowsLocked()) {
          out.put(register.name() + "/" + row.key(), List.of(row, row.fields()));
        }
      }
    } finally {
      read.unlock();
    }
    return out;
  }
}
