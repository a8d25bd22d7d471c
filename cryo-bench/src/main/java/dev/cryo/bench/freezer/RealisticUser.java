package dev.cryo.bench.freezer;

import dev.cryo.freezer.CborCodec;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The realistic user of the freezer benchmarks: a user store of about 2 KB and two connections with
 * three pages each, each page with a store of about 1 KB — plain {@code HashMap}s, {@code ArrayList}s,
 * strings, numbers and booleans, as the registers hold. Sizes are those of the CBOR encoding; the
 * same objects are handed to every contender. Deterministic: every call builds equal trees.
 */
public final class RealisticUser {

  /** The connection ids, in order. */
  public static final List<String> CONNECTION_IDS = List.of("conn-1", "conn-2");

  /** Pages per connection. */
  public static final int PAGES = 3;

  private static final CborCodec CBOR = new CborCodec();

  private RealisticUser() {}

  /** The user's own store, about 2 KB once encoded. */
  public static HashMap<String, Object> userStore() {
    return store("user", 2048);
  }

  /** One connection with its {@value #PAGES} pages, each with a store of about 1 KB. */
  public static HashMap<String, Object> connection(String id) {
    HashMap<String, Object> connection = new HashMap<>();
    connection.put("id", id);
    connection.put("openedAt", 1_764_400_000_000L);
    connection.put("userAgent", "Mozilla/5.0 (X11; Linux x86_64) Gecko/20100101 Firefox/145.0");
    ArrayList<Object> pages = new ArrayList<>();
    for (int p = 0; p < PAGES; p++) {
      HashMap<String, Object> page = new HashMap<>();
      page.put("id", id + "-page-" + p);
      page.put("path", "/app/section-" + p + "/view");
      page.put("store", store(id + "-" + p, 1024));
      pages.add(page);
    }
    connection.put("pages", pages);
    return connection;
  }

  /** Every connection, by id, in {@link #CONNECTION_IDS} order. */
  public static Map<String, HashMap<String, Object>> connections() {
    Map<String, HashMap<String, Object>> all = new java.util.LinkedHashMap<>();
    for (String id : CONNECTION_IDS) {
      all.put(id, connection(id));
    }
    return all;
  }

  /** The whole user as one tree (the codec benchmark's payload): the store and the connections. */
  public static HashMap<String, Object> whole() {
    HashMap<String, Object> whole = new HashMap<>();
    whole.put("user", userStore());
    whole.put("connections", new ArrayList<Object>(connections().values()));
    return whole;
  }

  /** A store of mixed plain values whose CBOR encoding just reaches {@code bytes}. */
  public static HashMap<String, Object> store(String seed, int bytes) {
    HashMap<String, Object> store = new HashMap<>();
    for (int i = 0; CBOR.encode(store).length < bytes; i++) {
      String key = "field" + i;
      switch (i % 5) {
        case 0 -> store.put(key, seed + " text value number " + i);
        case 1 -> store.put(key, 1_000_003 * i);
        case 2 -> store.put(key, i % 2 == 0);
        case 3 -> store.put(key, new ArrayList<Object>(List.of(i, i + 1, i + 2, "item-" + i)));
        default -> store.put(key, i * 0.25);
      }
    }
    return store;
  }
}
