package dev.cryo.commander;

import dev.cryo.freezer.Freezer;
import dev.cryo.freezer.FreezerException;
import dev.cryo.freezer.ParcelTree;
import dev.cryo.wire.protocol.Grant;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * What a user's own parcels say of him, read by the commander when its maps may be older than his
 * worker's last word: a start adopting a killed run's users ({@link Adoption}), and the burial of
 * a worker whose users left checkpoints ({@code Supervisor}). Immutable.
 *
 * @param generation the generation his user parcel was written at (0: not known)
 * @param connections his connections with their pages, as his worker last held them
 */
record UserParcels(long generation, Map<String, List<String>> connections) {

  UserParcels {
    connections = Map.copyOf(connections);
  }

  /**
   * What the parcels of {@code user} say of him, {@code userParcel} his user parcel: its
   * generation; the connections it lists, with the pages of their parcels (inside it, for a
   * checkpoint; else each connection's file — one that does not read kept with no page, for his
   * wake to decide; one with no file left out); and of {@code linked} (connections the maps give
   * him that it does not list), those whose parcel a login tail handed over and left in his folder
   * for a call on it.
   */
  static UserParcels read(Freezer freezer, String user, Map<?, ?> userParcel,
      List<String> linked) {
    Map<String, List<String>> connections = new HashMap<>();
    Set<String> listed = new LinkedHashSet<>(ParcelTree.connectionIds(userParcel));
    Optional<Map<String, Map<?, ?>>> inner = ParcelTree.innerConnectionParcels(userParcel);
    Set<String> all = new LinkedHashSet<>(listed);
    all.addAll(linked);
    for (String connection : all) {
      if (inner.isPresent() && listed.contains(connection)) {
        Map<?, ?> parcel = inner.get().get(connection);
        if (parcel != null) {
          connections.put(connection, ParcelTree.pageIds(parcel));
        }
        continue;
      }
      try {
        Optional<Object> parcel = freezer.readConnectionParcel(user, connection);
        if (parcel.isPresent() && parcel.get() instanceof Map<?, ?> map
            && (listed.contains(connection) || ParcelTree.handedOver(map))) {
          connections.put(connection, ParcelTree.pageIds(map));
        }
      } catch (FreezerException e) {
        if (listed.contains(connection)) {
          connections.put(connection, List.of());
        }
      }
    }
    return new UserParcels(Grant.generationOf(userParcel), connections);
  }
}
