package dev.cryo.bench.freezer;

import dev.cryo.freezer.SmileCodec;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * The least any implementation of the freezer's contract does for one freeze + adopt, with bare
 * file calls and the same codec (the default, Smile): the folder made and removed; per hold, a semaphore published the
 * cheapest way that never shows half a record (a temporary written, hard-linked to {@code .lock},
 * removed) and unlinked at the end; the payloads encoded and written, then read, decoded and
 * removed. No envelope, no checks, no holder record, no proof of anything. What cryo does beyond
 * this is cryo's own overhead; what this costs bounds every implementation from below.
 */
public final class ContractFloor {

  private final Path root;
  private final SmileCodec codec = new SmileCodec();
  private final Object userStore = RealisticUser.userStore();
  private final Map<String, ? extends Object> connections = RealisticUser.connections();
  private final byte[] record = ("cryo-lock 1\npid " + ProcessHandle.current().pid()
      + "\nholder bench\ntoken 00112233445566778899aabbccddeeff\n").getBytes();

  /** A contract floor working in {@code root} (existing). */
  public ContractFloor(Path root) {
    this.root = root;
  }

  /** Freezes and adopts {@code user}; returns how many payloads came back. */
  public int freezeAndAdopt(String user) throws IOException {
    Path folder = Files.createDirectory(root.resolve(user));
    Path lock = take(folder);
    Files.write(folder.resolve("user"), codec.encode(userStore));
    for (Map.Entry<String, ? extends Object> connection : connections.entrySet()) {
      Files.write(folder.resolve(connection.getKey()), codec.encode(connection.getValue()));
    }
    Files.delete(lock);

    lock = take(folder);
    int read = 0;
    for (String name : names()) {
      Path parcel = folder.resolve(name);
      read += codec.decode(Files.readAllBytes(parcel)) != null ? 1 : 0;
      Files.delete(parcel);
    }
    Files.delete(lock);
    Files.delete(folder);
    return read;
  }

  private List<String> names() {
    List<String> names = new java.util.ArrayList<>();
    names.add("user");
    names.addAll(connections.keySet());
    return names;
  }

  private Path take(Path folder) throws IOException {
    Path temporary = Files.write(folder.resolve(".lock.tmp"), record,
        java.nio.file.StandardOpenOption.CREATE_NEW, java.nio.file.StandardOpenOption.WRITE);
    Path lock = Files.createLink(folder.resolve(".lock"), temporary);
    Files.delete(temporary);
    return lock;
  }
}
