package dev.cryo.wire.protocol;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What a worker process is started with, in the environment variable {@link #ENVIRONMENT}, as
 * JSON; echoed in its {@link Presentation}.
 *
 * @param name the worker's name (it answers for the parcels it writes)
 * @param group the worker's group
 * @param wire the Unix socket path the commander listens on for this worker
 * @param freezer the freezer root shared by the run's workers
 * @param application the application's class name
 * @param appPath a jar the application is loaded from, or null for the classpath
 * @param heapBytes the worker JVM's heap ceiling
 * @param writers the file the worker holds shared for its life, as one of the run's freezer
 *     writers ({@code dev.cryo.freezer.FreezerWriters}), or null for none
 * @param idleFreezeMillis how long a user may stay idle before the worker freezes him
 *     ({@code cryo serve --idle-freeze}), in milliseconds; null when off (and from a commander that
 *     does not send it)
 * @param emptyGuestIdleFreezeMillis the same for a guest who holds nothing
 *     ({@code --idle-guest-freeze}); null when off
 * @param checkpointMillis how often the worker writes behind the state of the users who changed
 *     ({@code cryo serve --checkpoint}), in milliseconds; null when off (and from a commander that
 *     does not send it)
 * @param appConfig the application's configuration, read by the commander from the file of
 *     {@code cryo serve --app-config} (or {@code cryo reload --app-config}) when the run started or
 *     last reloaded; empty without one
 * @param jvmOptions the options the worker JVM was started with beyond cryo's own
 *     ({@code --worker-jvm-option}); empty for none
 */
public record SpawnPayload(String name, String group, String wire, String freezer,
    String application, String appPath, long heapBytes, String writers, Long idleFreezeMillis,
    Long emptyGuestIdleFreezeMillis, Long checkpointMillis, Map<String, String> appConfig,
    List<String> jvmOptions) {

  /** The environment variable that carries the payload to the worker JVM. */
  public static final String ENVIRONMENT = "CRYO_WORKER_SPAWN";

  /** Checks the required parts. */
  public SpawnPayload {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(wire, "wire");
    Objects.requireNonNull(freezer, "freezer");
    Objects.requireNonNull(application, "application");
    group = group == null ? "" : group;
    appConfig = appConfig == null ? Map.of() : Map.copyOf(appConfig);
    jvmOptions = jvmOptions == null ? List.of() : List.copyOf(jvmOptions);
    if (idleFreezeMillis != null && idleFreezeMillis < 0
        || emptyGuestIdleFreezeMillis != null && emptyGuestIdleFreezeMillis < 0) {
      throw new IllegalArgumentException("an idle limit is zero or more milliseconds, got "
          + idleFreezeMillis + " and " + emptyGuestIdleFreezeMillis);
    }
    if (checkpointMillis != null && checkpointMillis <= 0) {
      throw new IllegalArgumentException("a checkpoint period is longer than zero (or off), got "
          + checkpointMillis + " ms");
    }
  }

  /** A payload without configuration and JVM options of the application's. */
  public SpawnPayload(String name, String group, String wire, String freezer, String application,
      String appPath, long heapBytes, String writers, Long idleFreezeMillis,
      Long emptyGuestIdleFreezeMillis, Long checkpointMillis) {
    this(name, group, wire, freezer, application, appPath, heapBytes, writers, idleFreezeMillis,
        emptyGuestIdleFreezeMillis, checkpointMillis, null, null);
  }

  /** A payload with checkpoints off. */
  public SpawnPayload(String name, String group, String wire, String freezer, String application,
      String appPath, long heapBytes, String writers, Long idleFreezeMillis,
      Long emptyGuestIdleFreezeMillis) {
    this(name, group, wire, freezer, application, appPath, heapBytes, writers, idleFreezeMillis,
        emptyGuestIdleFreezeMillis, null);
  }

  /** A payload with the idle valve off. */
  public SpawnPayload(String name, String group, String wire, String freezer, String application,
      String appPath, long heapBytes, String writers) {
    this(name, group, wire, freezer, application, appPath, heapBytes, writers, null, null, null);
  }
}
