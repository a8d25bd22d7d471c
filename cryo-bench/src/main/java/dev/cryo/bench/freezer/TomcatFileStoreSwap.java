package dev.cryo.bench.freezer;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import org.apache.catalina.Session;
import org.apache.catalina.core.StandardContext;
import org.apache.catalina.session.FileStore;
import org.apache.catalina.session.StandardManager;
import org.apache.catalina.session.StandardSession;

/**
 * The anchor: Tomcat's {@link FileStore} saving an equivalent {@link StandardSession} (the user
 * store and each connection as session attributes, the same {@code HashMap}/{@code ArrayList} trees)
 * with its own Java serialisation, loading it back and removing it — what a persistent manager does
 * to swap a session out and in. The context and manager are set up minimally, without being
 * started: the store only needs the manager's context for its logger and class loader.
 */
public final class TomcatFileStoreSwap {

  private final StandardManager manager = new StandardManager();
  private final FileStore store = new FileStore();
  private final Map<String, ? extends Object> connections = RealisticUser.connections();
  private final Object userStore = RealisticUser.userStore();

  /** A file store writing into {@code directory} (absolute; created by the store when missing). */
  public TomcatFileStoreSwap(Path directory) {
    StandardContext context = new StandardContext();
    context.setName("bench");
    context.setPath("");
    manager.setContext(context);
    store.setDirectory(directory.toAbsolutePath().toString());
    store.setManager(manager);
  }

  /** A session holding the realistic user, with id {@code id}, registered with the manager. */
  public StandardSession session(String id) {
    StandardSession session = new StandardSession(manager);
    session.setNew(true);
    session.setValid(true);
    session.setCreationTime(System.currentTimeMillis());
    session.setMaxInactiveInterval(1800);
    session.setId(id, false);
    session.setAttribute("user", userStore, false);
    for (Map.Entry<String, ? extends Object> connection : connections.entrySet()) {
      session.setAttribute("connection-" + connection.getKey(), connection.getValue(), false);
    }
    return session;
  }

  /** Saves {@code session}, loads it back and removes it; returns how many attributes came back. */
  public int saveLoadRemove(StandardSession session) throws IOException, ClassNotFoundException {
    store.save(session);
    Session loaded = store.load(session.getIdInternal());
    store.remove(session.getIdInternal());
    if (loaded == null) {
      throw new IllegalStateException("session " + session.getIdInternal() + " did not come back");
    }
    int attributes = java.util.Collections.list(
        ((StandardSession) loaded).getAttributeNames()).size();
    if (attributes != 1 + connections.size()) {
      throw new IllegalStateException("only " + attributes + " attributes came back");
    }
    return attributes;
  }

  /** The store measured. */
  public FileStore store() {
    return store;
  }
}
