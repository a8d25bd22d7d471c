package dev.cryo.commander;

import dev.cryo.control.SafeRoot;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The commander's journal read back: its records replayed from empty maps into who was frozen, who
 * was awake, and the connections and pages. A torn last record (a frame cut short, or a checksum
 * that fails on the file's last frame: what a kill during a write leaves) is dropped and said
 * ({@link #tornTail()}); damage before the last frame is {@link #corruption()}: nothing after it is
 * trusted, and the caller adopts nothing rather than guess. Immutable once read; thread-safe.
 */
public final class JournalReplay {

  private final Map<String, Boolean> users = new HashMap<>(); // user → frozen
  private final Map<String, Long> generations = new HashMap<>(); // frozen user → his freeze's
  private final Map<String, Long> stays = new HashMap<>(); // awake user → his stay's generation
  private final Map<String, String> connectionUser = new HashMap<>();
  private final Map<String, String> pageConnection = new HashMap<>();
  private final Set<String> gone = new HashSet<>(); // users the file says are gone, and since
  private long firstGeneration;
  private int records;
  private boolean tornTail;
  private String corruption;

  private JournalReplay() {}

  /** The largest journal read back: a Java array's bound. */
  static final int MAX_BYTES = Integer.MAX_VALUE - 64;

  /**
   * Reads and replays {@code file}: reached without following a link at its name, never blocking
   * on a FIFO ({@link SafeRoot#read}).
   *
   * @throws NoSuchFileException when there is no such file
   * @throws IOException when the file cannot be read, or is not a regular file
   */
  public static JournalReplay read(Path file) throws IOException {
    Path absolute = file.toAbsolutePath().normalize();
    try (SafeRoot directory = SafeRoot.open(absolute.getParent())) {
      byte[] bytes = directory.read(absolute.getFileName().toString(), MAX_BYTES)
          .orElseThrow(() -> new NoSuchFileException(absolute.toString()));
      return replay(bytes, absolute);
    }
  }

  /** Replays the journal {@code bytes}, read from {@code file} (named in what it says). */
  static JournalReplay replay(byte[] bytes, Path file) {
    JournalReplay replay = new JournalReplay();
    ByteBuffer in = ByteBuffer.wrap(bytes);
    while (in.hasRemaining()) {
      int at = in.position();
      if (in.remaining() < JournalRecord.FRAME) {
        replay.tornTail = true;
        break;
      }
      int length = in.getInt();
      int checksum = in.getInt();
      if (length < 1 || length > JournalRecord.MAX_BODY) {
        replay.damage(file, at, "a record of length " + length, true);
        break;
      }
      if (length > in.remaining()) {
        replay.tornTail = true; // the frame runs past the end: a write cut short
        break;
      }
      boolean last = in.position() + length == bytes.length;
      if (JournalRecord.checksum(bytes, in.position(), length) != checksum) {
        replay.damage(file, at, "a record whose checksum fails", !last);
        break;
      }
      JournalRecord record;
      try {
        record = JournalRecord.read(in.slice(in.position(), length));
      } catch (IllegalArgumentException e) {
        replay.damage(file, at, "a record that does not read (" + e.getMessage() + ")", true);
        break;
      }
      in.position(in.position() + length);
      replay.apply(record);
      replay.records++;
    }
    return replay;
  }

  private void damage(Path file, int offset, String what, boolean corrupt) {
    if (corrupt) {
      corruption = file + " holds " + what + " at byte " + offset + ", before its last record";
    } else {
      tornTail = true;
    }
  }

  private void apply(JournalRecord record) {
    switch (record.kind()) {
      case LINK -> connectionUser.put(record.key(), record.value());
      case UNLINK -> {
        connectionUser.remove(record.key());
        pageConnection.values().removeIf(record.key()::equals);
      }
      case PAGE -> pageConnection.put(record.key(), record.value());
      case UNPAGE -> pageConnection.remove(record.key());
      case RUN -> firstGeneration = parse(record.key());
      case FROZEN, FROZEN_AT -> {
        gone.remove(record.key());
        users.put(record.key(), true);
        stays.remove(record.key());
        remember(generations, record);
      }
      case AWAKE, AWAKE_AT -> {
        gone.remove(record.key());
        users.put(record.key(), false);
        generations.remove(record.key());
        remember(stays, record);
      }
      case GONE -> {
        gone.add(record.key());
        users.remove(record.key());
        generations.remove(record.key());
        stays.remove(record.key());
      }
    }
  }

  /** Puts the generation {@code record} tells of its user into {@code into}, or forgets it. */
  private static void remember(Map<String, Long> into, JournalRecord record) {
    long generation = record.value() == null ? 0 : parse(record.value());
    if (generation > 0) {
      into.put(record.key(), generation);
    } else {
      into.remove(record.key());
    }
  }

  /** A generation written in decimal; 0 (none known) for what does not read as a positive one. */
  private static long parse(String decimal) {
    try {
      return Math.max(0, Long.parseLong(decimal));
    } catch (NumberFormatException e) { // checksummed, so written so: a generation of no known one
      return 0;
    }
  }

  /**
   * The first generation of the run that wrote the journal ({@link JournalRecord.Kind#RUN}), 0
   * when the journal does not say: a parcel at or above it was written by a stay of that run.
   */
  public long firstGeneration() {
    return firstGeneration;
  }

  /**
   * Whether the journal tells anything of {@code user}: frozen, awake, or gone. A user it does not
   * know was born after its last record on disk (or was gone before its last compaction).
   */
  public boolean knows(String user) {
    return users.containsKey(user) || gone.contains(user);
  }

  /**
   * The generation of the stay {@code user} was awake in at the end of the journal, 0 when not
   * known (or not awake): a parcel of his older than it is residue of an earlier stay.
   */
  public long stayGeneration(String user) {
    return stays.getOrDefault(user, 0L);
  }

  /** How many records were replayed. */
  public int records() {
    return records;
  }

  /** Whether a torn last record was dropped. */
  public boolean tornTail() {
    return tornTail;
  }

  /** What damage stopped the replay before the last record, if any: nothing is to be adopted. */
  public Optional<String> corruption() {
    return Optional.ofNullable(corruption);
  }

  /** The users frozen at the end of the journal, sorted. */
  public List<String> frozen() {
    return users(true);
  }

  /**
   * The users awake (on a worker) at the end of the journal, sorted: with a crash of the
   * commander, each comes back only from the parcel his worker wrote (or an older one).
   */
  public List<String> awake() {
    return users(false);
  }

  private List<String> users(boolean frozen) {
    TreeSet<String> chosen = new TreeSet<>();
    users.forEach((user, isFrozen) -> {
      if (isFrozen == frozen) {
        chosen.add(user);
      }
    });
    return List.copyOf(chosen);
  }

  /**
   * The frozen users with their connections, pages and the generations they were frozen at (those
   * the journal knows), as an item to adopt.
   */
  CommanderItem item(Instant now) {
    return item(now, Map.of());
  }

  /**
   * The frozen users and {@code parcelled} (users awake at the end of the journal, or born after
   * it, whose parcel the freezer holds: each with what his parcels say, which his wake then reads,
   * or newer), with their connections and pages, as an item to adopt: all of them frozen.
   *
   * <p>A parcelled user's connections and pages are his parcels', not the journal's: they were
   * written after the journal's last record of him, by the worker that held him. A connection the
   * journal links to him that his parcels do not hold was handed over or closed after it, and is
   * dropped with its pages; a connection his parcels hold is his, whoever the journal links it to.
   * Two parcels that hold one connection (a crash within a login's hand-over) give it to the newer
   * one's user.
   */
  CommanderItem item(Instant now, Map<String, UserParcels> parcelled) {
    return item(now, parcelled, Map.of());
  }

  /**
   * As {@link #item(Instant, Map)}, with {@code handedOver}: for frozen users, the connections a
   * login tail handed over to them whose parcels wait in their folders (with their pages), which
   * the journal may not have linked yet (the login's last batch). Each is given to its frozen
   * user unless a parcelled user's parcels hold it.
   */
  CommanderItem item(Instant now, Map<String, UserParcels> parcelled,
      Map<String, Map<String, List<String>>> handedOver) {
    List<String> frozen = new ArrayList<>(frozen());
    frozen.addAll(new TreeSet<>(parcelled.keySet()));
    TreeSet<String> kept = new TreeSet<>(frozen);
    Map<String, String> held = new HashMap<>(); // connection → the parcelled user holding it
    Map<String, List<String>> heldPages = new HashMap<>();
    new TreeMap<>(parcelled).forEach((user, own) -> own.connections().keySet()
        .forEach(connection -> held.merge(connection, user, (first, second) ->
            parcelled.get(second).generation() > parcelled.get(first).generation()
                ? second : first)));
    held.forEach((connection, user) -> heldPages.put(connection,
        parcelled.get(user).connections().get(connection)));
    new TreeMap<>(handedOver).forEach((user, own) -> {
      if (kept.contains(user) && !parcelled.containsKey(user)) {
        own.forEach((connection, pages) -> {
          if (held.putIfAbsent(connection, user) == null) {
            heldPages.put(connection, pages);
          }
        });
      }
    });
    Map<String, String> connections = new HashMap<>();
    connectionUser.forEach((connection, user) -> {
      if (kept.contains(user) && !parcelled.containsKey(user) && !held.containsKey(connection)) {
        connections.put(connection, user);
      }
    });
    Map<String, String> pages = new HashMap<>();
    pageConnection.forEach((page, connection) -> {
      if (connections.containsKey(connection)) {
        pages.put(page, connection);
      }
    });
    held.forEach((connection, user) -> {
      connections.put(connection, user);
      heldPages.get(connection).forEach(page -> pages.put(page, connection));
    });
    Map<String, Long> frozenAt = new HashMap<>(generations);
    parcelled.forEach((user, own) -> {
      if (own.generation() > 0) {
        frozenAt.put(user, own.generation());
      }
    });
    frozenAt.keySet().retainAll(kept);
    return new CommanderItem(new ArrayList<>(frozen), connections, pages, frozenAt, now,
        "journal");
  }
}
