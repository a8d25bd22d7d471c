package dev.cryo.bench.register;

import dev.cryo.register.PageRow;
import dev.cryo.register.Register;
import dev.cryo.register.RegisterRegistry;
import dev.cryo.register.Row;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** The chain kept by a plain {@link RegisterRegistry}: default stores, system clock, no seams. */
final class RegistryChain implements Chain {

  private final RegisterRegistry registry = new RegisterRegistry();

  @Override
  public void newPage(String page, String user, String connection, String parent, String root) {
    if (parent == null) {
      registry.newPage(page, user, connection);
    } else {
      registry.newPage(page, user, connection,
          Map.of(PageRow.PARENT_PAGE_ID, parent, PageRow.ROOT_PAGE_ID, root));
    }
  }

  @Override
  public String pageUser(String page) {
    return registry.pageUser(page);
  }

  @Override
  public Set<String> keysByConnection(String connection) {
    return registry.pageItems().keysBy(PageRow.CONNECTION_ID, connection);
  }

  @Override
  public void dropUser(String user) {
    registry.dropUser(user);
  }

  @Override
  public void lockEveryRowOnce() {
    for (Register<? extends Row> register : List.of(registry.userItems(),
        registry.connectionItems(), registry.pageItems())) {
      for (String key : register.keys()) {
        register.get(key).ifPresent(row -> {
          row.lock().lock();
          row.lock().unlock();
        });
      }
    }
  }

  @Override
  public int pageCount() {
    return registry.pageItems().size();
  }
}
