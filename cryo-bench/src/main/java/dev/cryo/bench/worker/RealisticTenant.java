package dev.cryo.bench.worker;

import dev.cryo.bench.freezer.RealisticUser;
import dev.cryo.worker.Call;
import dev.cryo.worker.Worker;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The realistic user of the freezer benchmarks ({@link RealisticUser}) placed on a worker through
 * the example application: his store holds the 2 KB user store, each of his 2 connections has 3
 * pages whose stores hold about 1 KB each.
 */
public final class RealisticTenant {

  /** The key under which each store keeps its content. */
  public static final String KEY = "data";

  private RealisticTenant() {}

  /** The page ids of connection {@code connectionId}, in order. */
  public static List<String> pages(String connectionId) {
    List<String> pages = new ArrayList<>();
    for (int p = 0; p < RealisticUser.PAGES; p++) {
      pages.add(connectionId + "-page-" + p);
    }
    return pages;
  }

  /** The first page of the first connection: where the benchmarks' calls go. */
  public static String firstPage() {
    return pages(RealisticUser.CONNECTION_IDS.get(0)).get(0);
  }

  /** Brings {@code user} into being on {@code worker} with the realistic stores. */
  public static void place(Worker worker, String user) {
    boolean first = true;
    for (String connectionId : RealisticUser.CONNECTION_IDS) {
      for (String page : pages(connectionId)) {
        put(worker, user, connectionId, page, "page", RealisticUser.store(page, 1024));
        if (first) {
          put(worker, user, connectionId, page, "user", RealisticUser.userStore());
          first = false;
        }
      }
    }
  }

  /** A call that reads the user's store on the first page, with the verdict "frozen" if asked. */
  public static Call readUserStore(String user, boolean frozen) {
    Call call = Call.rpc(user, RealisticUser.CONNECTION_IDS.get(0), firstPage(), "get")
        .withArguments(Map.of("scope", "user", "key", KEY));
    return frozen ? call.withUserFrozen() : call;
  }

  private static void put(Worker worker, String user, String connectionId, String page,
      String scope, Object value) {
    worker.call(Call.userEvent(user, connectionId, page, "put")
        .withArguments(Map.of("scope", scope, "key", KEY, "value", value)));
  }
}
