package dev.cryo.bench.freezer;

import dev.cryo.freezer.Freezer;
import dev.cryo.freezer.FreezerException;
import dev.cryo.lock.LockException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * cryo's side: freeze (take the semaphore, write the user parcel and one parcel per connection,
 * release) then adopt (take, read every parcel, drop every parcel, release: the folder goes with
 * the release). Fails loudly if anything read back is missing or the semaphore is refused.
 */
public final class CryoFreezeAdopt {

  private static final String HOLDER = "bench-worker";

  private final Freezer freezer;
  private final Object userStore = RealisticUser.userStore();
  private final Map<String, ? extends Object> connections = RealisticUser.connections();

  /** A freezer at {@code root} with its default codec. */
  public CryoFreezeAdopt(Path root) throws FreezerException {
    this.freezer = new Freezer(root);
  }

  /** The freezer measured. */
  public Freezer freezer() {
    return freezer;
  }

  /** Freezes {@code user}, then adopts it; returns how many payloads were read back. */
  public int freezeAndAdopt(String user) throws FreezerException, LockException {
    take(user);
    freezer.writeUserParcel(user, userStore, HOLDER, "freeze", "bench");
    for (Map.Entry<String, ? extends Object> connection : connections.entrySet()) {
      freezer.writeConnectionParcel(user, connection.getKey(), connection.getValue(), HOLDER,
          "freeze", "bench");
    }
    freezer.releaseSemaphore(user, HOLDER);

    take(user);
    int read = freezer.readUserParcel(user).isPresent() ? 1 : 0;
    for (String id : connections.keySet()) {
      read += freezer.readConnectionParcel(user, id).isPresent() ? 1 : 0;
    }
    freezer.dropUserParcel(user);
    for (String id : connections.keySet()) {
      freezer.dropConnectionParcel(user, id);
    }
    freezer.releaseSemaphore(user, HOLDER);
    if (read != 1 + connections.size()) {
      throw new IllegalStateException("only " + read + " parcels of " + user + " came back");
    }
    return read;
  }

  /**
   * The bytes of each parcel a freeze writes (user parcel first), as they lie on disk, for the
   * floor to write the same; leaves nothing behind.
   */
  public List<byte[]> parcelBytes() throws FreezerException, LockException, IOException {
    String user = "sizing";
    take(user);
    freezer.writeUserParcel(user, userStore, HOLDER, "freeze", "bench");
    List<byte[]> bytes = new ArrayList<>();
    bytes.add(Files.readAllBytes(freezer.folder(user).resolve(Freezer.USER_PARCEL)));
    for (Map.Entry<String, ? extends Object> connection : connections.entrySet()) {
      freezer.writeConnectionParcel(user, connection.getKey(), connection.getValue(), HOLDER,
          "freeze", "bench");
      bytes.add(Files.readAllBytes(freezer.connectionParcel(user, connection.getKey())));
    }
    freezer.dropUserFolder(user);
    return bytes;
  }

  private void take(String user) throws LockException {
    if (!freezer.tryTakeSemaphore(user, HOLDER)) {
      throw new IllegalStateException("the semaphore of " + user + " is taken");
    }
  }
}
