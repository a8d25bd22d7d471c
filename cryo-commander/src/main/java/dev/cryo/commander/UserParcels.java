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
   * checkpoint; else each connection's file in his folder, a listed one without a readable file
   * left out); and the connection parcels a login tail handed over and left in his folder for a
   * call on them, which it does not list. A folder that cannot be listed gives the checkpoint's
   * connections only.
   */
  static UserParcels read(Freezer freezer, String user, Map<?, ?> userParcel) {
    Map<String, List<String>> connections = new HashMap<>();
    Set<String> listed = new LinkedHashSet<>(ParcelTree.connectionIds(userParcel));
    Optional<Map<String, Map<?, ?>>> inner = ParcelTree.innerConnectionParcels(userParcel);
    Map<String, Object> files;
    try {
      files = freezer.connectionParcelsOf(user);
    } catch (FreezerException e) {
      files = Map.of();
    }
    for (String connection : listed) {
      Object parcel = inner.isPresent() ? inner.get().get(connection) : files.get(connection);
      if (parcel instanceof Map<?, ?> map) {
        connections.put(connection, ParcelTree.pageIds(map));
      }
    }
    files.forEach((connection, parcel) -> {
      if (!listed.contains(connection) && parcel instanceof Map<?, ?> map
          && ParcelTree.handedOver(map)) {
        connections.put(connection, ParcelTree.pageIds(map));
      }
    });
    return new UserParcels(Grant.generationOf(userParcel), connections);
  }
}
