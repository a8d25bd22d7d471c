package dev.cryo.bench.worker;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cryo.app.Response;
import dev.cryo.bench.freezer.RealisticUser;
import dev.cryo.wire.protocol.Grant;
import dev.cryo.worker.AppHost;
import dev.cryo.worker.Worker;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The realistic user of the freezer benchmarks ({@link RealisticUser}) placed on a worker through
 * its application host and the {@link BenchApplication}: his store holds the 2 KB user store, each
 * of his 2 connections has 3 pages whose stores hold about 1 KB each. Every call is an HTTP call,
 * served by {@link AppHost#serve} as the commander's are.
 */
public final class RealisticTenant {

  private static final ObjectMapper JSON = new ObjectMapper();

  private RealisticTenant() {}

  /**
   * Brings {@code user} into being on {@code worker} (built by {@link HandOverBench#worker}) with
   * the realistic stores.
   *
   * @return the page ids of his first connection, in order
   */
  public static List<String> place(Worker worker, String user) {
    List<String> first = null;
    boolean userStore = true;
    for (String connectionId : RealisticUser.CONNECTION_IDS) {
      List<String> pages = new ArrayList<>();
      for (int p = 0; p < RealisticUser.PAGES; p++) {
        JsonNode opened = read(serve(worker, user, connectionId, false, "/pages", "", Map.of()));
        String page = opened.get("page").asText();
        pages.add(page);
        serve(worker, user, connectionId, false, "/put", "scope=page&page=" + page,
            Map.of("value", RealisticUser.store(page, 1024)));
        if (userStore) {
          serve(worker, user, connectionId, false, "/put", "scope=user",
              Map.of("value", RealisticUser.userStore()));
          userStore = false;
        }
      }
      if (first == null) {
        first = pages;
      }
    }
    return first;
  }

  /**
   * A call that reads the user's store from his first connection, with the verdict "frozen" (a
   * wake grant) if asked.
   *
   * @return the store as the application answered it
   */
  public static JsonNode readUserStore(Worker worker, String user, boolean frozen) {
    return read(serve(worker, user, RealisticUser.CONNECTION_IDS.get(0), frozen, "/get",
        "scope=user", null)).get("value");
  }

  /** The realistic user store as the application answers it. */
  public static JsonNode expectedUserStore() {
    return JSON.valueToTree(RealisticUser.userStore());
  }

  /**
   * Serves one call of {@code user}'s from {@code connectionId} on {@code worker}, with the verdict
   * "frozen" if asked.
   *
   * @throws IllegalStateException when the application answered another status than 200
   */
  static byte[] serve(Worker worker, String user, String connectionId, boolean frozen, String path,
      String query, Object body) {
    Grant grant = frozen ? Grant.wake(Grant.ALONE.generation(), Grant.ALONE.generation())
        : Grant.ALONE;
    byte[] bytes;
    try {
      bytes = body == null ? new byte[0] : JSON.writeValueAsBytes(body);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    Response reply = worker.application().serve(worker, new dev.cryo.wire.protocol
        .HttpCall(user, connectionId, grant, "POST", path, query, List.of(), bytes, null));
    if (reply.status() != 200) {
      throw new IllegalStateException(path + " answered " + reply.status() + ": "
          + new String(reply.body(), java.nio.charset.StandardCharsets.UTF_8));
    }
    return reply.body();
  }

  /** A JSON body, read. */
  static JsonNode read(byte[] body) {
    try {
      return JSON.readTree(body);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
