package dev.cryo.freezer;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The shape of a user's parcels that cryo itself reads, without the application: whose a parcel
 * is, which connections a user parcel lists, which pages a connection parcel holds. The worker
 * writes these fields; a start that adopts the users of a killed run reads them to know each
 * user's connections and pages as his worker last held them. Everything else in a parcel is the
 * worker's and the application's.
 *
 * <p>A parcel is plain data ({@link PlainTree}); a field of the wrong type reads as absent, an
 * entry of the wrong type is skipped: a reader trusts nothing a file says beyond its type. Pure
 * functions, thread-safe.
 */
public final class ParcelTree {

  /** The field of every parcel and of each page in a connection parcel: its row's key. */
  public static final String ID = "id";
  /** The field of a user parcel listing the ids of the connections frozen with him. */
  public static final String CONNECTIONS = "connections";
  /** The field of a connection parcel listing its pages, each a map with an {@link #ID}. */
  public static final String PAGES = "pages";
  /**
   * The field of a checkpoint's user parcel ({@link ParcelHeader#CHECKPOINT_CAUSE}) holding the
   * parcels of his connections, by connection id: one file, written whole or not at all. Where it
   * is, the connection parcel files of the folder are not his connections' state.
   */
  public static final String CONNECTION_PARCELS = "connection_parcels";
  /**
   * The field marking a connection parcel a login tail handed over to its identity, waiting in
   * his folder for a call on it: his, though his user parcel does not list it.
   */
  public static final String HANDED_OVER = "handed_over";

  private ParcelTree() {}

  /** The id a parcel (or a page of one) names, when it names one as a string. */
  public static Optional<String> id(Map<?, ?> parcel) {
    return parcel.get(ID) instanceof String id ? Optional.of(id) : Optional.empty();
  }

  /** Whether a connection parcel was handed over by a login tail ({@link #HANDED_OVER}). */
  public static boolean handedOver(Map<?, ?> connectionParcel) {
    return Boolean.TRUE.equals(connectionParcel.get(HANDED_OVER));
  }

  /**
   * The connection parcels a checkpoint's user parcel holds inside it ({@link
   * #CONNECTION_PARCELS}), by id; empty when it holds none that way (then they are files).
   */
  public static Optional<Map<String, Map<?, ?>>> innerConnectionParcels(Map<?, ?> userParcel) {
    if (!(userParcel.get(CONNECTION_PARCELS) instanceof Map<?, ?> inner)) {
      return Optional.empty();
    }
    Map<String, Map<?, ?>> parcels = new java.util.LinkedHashMap<>();
    inner.forEach((id, parcel) -> {
      if (id instanceof String connection && parcel instanceof Map<?, ?> map) {
        parcels.put(connection, map);
      }
    });
    return Optional.of(parcels);
  }

  /** The connection ids a user parcel lists, in its order; none when it lists none. */
  public static List<String> connectionIds(Map<?, ?> userParcel) {
    List<String> ids = new ArrayList<>();
    if (userParcel.get(CONNECTIONS) instanceof List<?> listed) {
      for (Object id : listed) {
        if (id instanceof String connection) {
          ids.add(connection);
        }
      }
    }
    return ids;
  }

  /** The page ids a connection parcel holds, in its order; none when it holds none. */
  public static List<String> pageIds(Map<?, ?> connectionParcel) {
    List<String> ids = new ArrayList<>();
    if (connectionParcel.get(PAGES) instanceof List<?> pages) {
      for (Object page : pages) {
        if (page instanceof Map<?, ?> map) {
          id(map).ifPresent(ids::add);
        }
      }
    }
    return ids;
  }
}
