package dev.cryo.wire.protocol;

import java.util.List;
import java.util.Objects;

/**
 * A worker's first frame: who it is, what it was started with, its first photo, and the routes
 * of its application the commander must know.
 *
 * @param name the worker's name, as spawned
 * @param group its group
 * @param pid its process id
 * @param processStartMillis when its process started (epoch milliseconds), which with the pid
 *     names the process for good
 * @param spawn the payload it was started with, echoed
 * @param photo its first photo
 * @param moveRoutes the application's move routes, each {@code [METHOD, PATH]}: the commander
 *     moves the user before such a request reaches the application
 * @param stateVersion the state version of the application it serves: it reads state written by
 *     this version or an older one, and writes this one; null from a worker that does not say
 * @param staticPrefixes the URL prefixes of the application's static files: the commander sends a
 *     request under one to the worker as a {@link StaticCall}, for no user
 */
public record Presentation(String name, String group, long pid, long processStartMillis,
    SpawnPayload spawn, PhotoMessage photo, List<List<String>> moveRoutes, Integer stateVersion,
    List<String> staticPrefixes) {

  /** A presentation that does not say its state version, of an application without static files. */
  public Presentation(String name, String group, long pid, long processStartMillis,
      SpawnPayload spawn, PhotoMessage photo, List<List<String>> moveRoutes) {
    this(name, group, pid, processStartMillis, spawn, photo, moveRoutes, null, null);
  }

  /** Checks the required parts and copies the routes. */
  public Presentation {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(spawn, "spawn");
    Objects.requireNonNull(photo, "photo");
    group = group == null ? "" : group;
    moveRoutes = moveRoutes == null ? List.of() : moveRoutes.stream().map(List::copyOf).toList();
    staticPrefixes = staticPrefixes == null ? List.of() : List.copyOf(staticPrefixes);
  }
}
