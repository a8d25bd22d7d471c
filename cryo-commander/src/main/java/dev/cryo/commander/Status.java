package dev.cryo.commander;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.cryo.freezer.FreezerUsage;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What {@code cryo status} prints: the run, each worker, the users placed, frozen and lost, and the
 * freezer. Immutable. {@link #toJson()} is the content of {@code status.json}, schema
 * {@value #SCHEMA}; {@link #toJson(boolean)} the same with {@value #ALIVE} added, what
 * {@code cryo status --json} prints and the admin listener's {@code /_cryo/status.json} serves:
 *
 * <pre>{@code
 * {
 *   "schema": "cryo.status/1",
 *   "state": "running" | "draining" | "closed",
 *   "taken_at": ISO-8601 instant,
 *   "run": {"invocation_id": 32 hex digits, "pid": N, "since": ISO-8601 instant, "home": PATH},
 *   "workers": [
 *     {"name": "main_0001", "pid": N, "state": "starting"|"running"|"quitting"|"dead",
 *      "users": N, "heap_used_bytes": N, "heap_max_bytes": N (0 before its first photo),
 *      "age_seconds": N (since it was spawned), "reception": true|false}, ...
 *   ],
 *   "users": {"placed": N, "frozen": N, "lost": N (since the run started), "held": N},
 *   "connections": N, "pages": N, "anomalies": N,
 *   "freezer": {"bytes": N, "files": N, "folders": N, "free_bytes": N, "total_bytes": N}
 * }
 * }</pre>
 *
 * @param state {@code running}, {@code draining} (admitting nothing, its workers quitting) or
 *     {@code closed}
 * @param takenAt when this status was taken
 * @param invocationId the run's invocation id (run.json's)
 * @param pid the commander's pid
 * @param since when the run started
 * @param home the run directory
 * @param workers each worker not dead, in birth order
 * @param usersPlaced users living on a worker
 * @param usersFrozen users in the freezer the maps know
 * @param usersLost users lost with a dead worker since the run started
 * @param usersHeld users held right now
 * @param connections connections the maps know
 * @param pages pages the maps know
 * @param anomalies announcements the maps could not apply since the run started
 * @param freezer the working freezer's size and its file system's free space, as of the last tick
 *     (all zeros before the first measure; a status of an older version has no such field)
 */
public record Status(String state, Instant takenAt, String invocationId, long pid, Instant since,
    String home, List<WorkerStatus> workers, int usersPlaced, int usersFrozen, long usersLost,
    int usersHeld, int connections, int pages, long anomalies, FreezerUsage freezer) {

  /** The schema of {@code status.json}. */
  public static final String SCHEMA = "cryo.status/1";
  /** Its file name in the run directory. */
  public static final String FILE_NAME = "status.json";
  /**
   * The field a reader adds that the file cannot carry: whether the commander that wrote the status
   * is alive ({@code cryo status} judges it from the run lock; the admin listener is that commander).
   */
  public static final String ALIVE = "alive";

  private static final ObjectMapper JSON = new ObjectMapper()
      .enable(SerializationFeature.INDENT_OUTPUT);

  /** Copies the workers; a null freezer reads as {@link FreezerUsage#UNKNOWN}. */
  public Status {
    workers = List.copyOf(workers);
    freezer = freezer == null ? FreezerUsage.UNKNOWN : freezer;
  }

  /**
   * One worker in a status.
   *
   * @param name its name
   * @param pid its pid (0 before its process started)
   * @param state its state
   * @param users the users living on it
   * @param heapUsedBytes its used heap from its last photo
   * @param heapMaxBytes its heap ceiling from its last photo, 0 before one
   * @param age how long since it was spawned
   * @param reception whether it is the reception (the oldest running worker)
   * @param ignoredStateFields distinct stored fields its application's state classes no longer
   *     have, ignored on read since it started, from its last photo (0 before one)
   * @param appMeters the application's own meters from its last photo (empty before one); not
   *     part of {@code status.json}: the admin listener's metrics export them
   */
  public record WorkerStatus(String name, long pid, WorkerState state, int users,
      long heapUsedBytes, long heapMaxBytes, Duration age, boolean reception,
      long ignoredStateFields, List<dev.cryo.wire.protocol.AppMeter> appMeters) {

    /** Copies the meters. */
    public WorkerStatus {
      appMeters = appMeters == null ? List.of() : List.copyOf(appMeters);
    }

    /** A worker whose photo carried no meter of the application's. */
    public WorkerStatus(String name, long pid, WorkerState state, int users, long heapUsedBytes,
        long heapMaxBytes, Duration age, boolean reception, long ignoredStateFields) {
      this(name, pid, state, users, heapUsedBytes, heapMaxBytes, age, reception,
          ignoredStateFields, null);
    }

    /** A worker that has not counted ignored state fields (0). */
    public WorkerStatus(String name, long pid, WorkerState state, int users, long heapUsedBytes,
        long heapMaxBytes, Duration age, boolean reception) {
      this(name, pid, state, users, heapUsedBytes, heapMaxBytes, age, reception, 0);
    }
  }

  /** The content of {@code status.json} (UTF-8 JSON, the shape above). */
  public byte[] toJson() {
    return write(shape());
  }

  /**
   * What {@code cryo status --json} prints: the shape above with {@value #ALIVE} last.
   *
   * @param alive whether the commander that took this status is alive
   */
  public byte[] toJson(boolean alive) {
    Map<String, Object> root = shape();
    root.put(ALIVE, alive);
    return write(root);
  }

  private Map<String, Object> shape() {
    Map<String, Object> root = new LinkedHashMap<>();
    root.put("schema", SCHEMA);
    root.put("state", state);
    root.put("taken_at", takenAt.toString());
    Map<String, Object> run = new LinkedHashMap<>();
    run.put("invocation_id", invocationId);
    run.put("pid", pid);
    run.put("since", since.toString());
    run.put("home", home);
    root.put("run", run);
    root.put("workers", workers.stream().map(worker -> {
      Map<String, Object> fields = new LinkedHashMap<>();
      fields.put("name", worker.name());
      fields.put("pid", worker.pid());
      fields.put("state", worker.state().code());
      fields.put("users", worker.users());
      fields.put("heap_used_bytes", worker.heapUsedBytes());
      fields.put("heap_max_bytes", worker.heapMaxBytes());
      fields.put("age_seconds", worker.age().toSeconds());
      fields.put("reception", worker.reception());
      return fields;
    }).toList());
    Map<String, Object> users = new LinkedHashMap<>();
    users.put("placed", usersPlaced);
    users.put("frozen", usersFrozen);
    users.put("lost", usersLost);
    users.put("held", usersHeld);
    root.put("users", users);
    root.put("connections", connections);
    root.put("pages", pages);
    root.put("anomalies", anomalies);
    Map<String, Object> freezerFields = new LinkedHashMap<>();
    freezerFields.put("bytes", freezer.bytes());
    freezerFields.put("files", freezer.files());
    freezerFields.put("folders", freezer.folders());
    freezerFields.put("free_bytes", freezer.usableBytes());
    freezerFields.put("total_bytes", freezer.totalBytes());
    root.put("freezer", freezerFields);
    return root;
  }

  private static byte[] write(Map<String, Object> root) {
    try {
      return JSON.writeValueAsBytes(root);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalStateException("the status did not write as JSON", e);
    }
  }
}
