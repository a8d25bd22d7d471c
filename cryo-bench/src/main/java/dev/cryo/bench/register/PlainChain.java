package dev.cryo.bench.register;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Set;

/**
 * The baseline: the same bookkeeping written the plain way, with hash maps and hash sets and
 * nothing else — no locks, no stores, no clocks, no field maps, no refusals beyond a duplicate page.
 * It keeps what the registry keeps: a page's connection, root and parent; a connection's user and
 * pages; a user's connections; and the pages of each root tree. Keys by connection read the
 * connection's own set, the leanest way to answer it. Not thread-safe.
 */
final class PlainChain implements Chain {

  record Page(String connection, String root, String parent) {}

  static final class Connection {
    final String user;
    final HashSet<String> pages = new HashSet<>();

    Connection(String user) {
      this.user = user;
    }
  }

  private final HashMap<String, Page> pages = new HashMap<>();
  private final HashMap<String, Connection> connections = new HashMap<>();
  private final HashMap<String, HashSet<String>> users = new HashMap<>();
  private final HashMap<String, HashSet<String>> pagesByRoot = new HashMap<>();

  @Override
  public void newPage(String page, String user, String connection, String parent, String root) {
    if (pages.containsKey(page)) {
      throw new IllegalStateException("duplicate page " + page);
    }
    Connection owner = connections.get(connection);
    if (owner == null) {
      owner = new Connection(user);
      connections.put(connection, owner);
      users.computeIfAbsent(user, key -> new HashSet<>()).add(connection);
    }
    String rootPage = root == null ? page : root;
    pages.put(page, new Page(connection, rootPage, parent));
    owner.pages.add(page);
    pagesByRoot.computeIfAbsent(rootPage, key -> new HashSet<>()).add(page);
  }

  @Override
  public String pageUser(String page) {
    return connections.get(pages.get(page).connection()).user;
  }

  @Override
  public Set<String> keysByConnection(String connection) {
    Connection owner = connections.get(connection);
    return owner == null ? Set.of() : Set.copyOf(owner.pages);
  }

  @Override
  public void dropUser(String user) {
    HashSet<String> owned = users.remove(user);
    for (String connection : owned) {
      Connection row = connections.remove(connection);
      for (String page : row.pages) {
        Page gone = pages.remove(page);
        HashSet<String> tree = pagesByRoot.get(gone.root());
        tree.remove(page);
        if (tree.isEmpty()) {
          pagesByRoot.remove(gone.root());
        }
      }
    }
  }

  @Override
  public int pageCount() {
    return pages.size();
  }
}
