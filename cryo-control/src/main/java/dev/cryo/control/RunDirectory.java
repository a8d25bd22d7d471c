package dev.cryo.control;

import dev.cryo.control.ControlException.Reason;
import dev.cryo.control.StopDelivery.Outcome;
import dev.cryo.lock.ProcessTable;
import dev.cryo.lock.Publication;
import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The run directory of a server: where {@code run.json} ({@link RunState}) and
 * {@code stop-request} ({@link StopRequest}) lie.
 *
 * <p>The directory's parent is opened by its path (links in it followed: the caller names it); the
 * run directory itself, and everything in it, is reached through a {@link SafeRoot}, so a symbolic
 * link planted at the run directory's name is refused ({@code UNSAFE_PATH}), never followed.
 *
 * <p>Who does what:
 * <ul>
 *   <li>The holder of the run's lock (the server) writes {@code run.json}
 *       ({@link #writeRunState}), cleans stop requests ({@link #removeStaleStopRequests}) and
 *       watches for them ({@link #watch}). Nobody else removes or replaces anything here.
 *   <li>Anybody publishes a stop request ({@link #requestStop}) by {@code link(2)}: the request is
 *       never replaced, so no reader sees half of one, and of racing publishers exactly one writes.
 *   <li>Anybody reads ({@link #loadRunState}, {@link #readStopRequest}), lock-free and strictly;
 *       reading creates nothing.
 * </ul>
 * Nothing here signals a process: the server reads the request and acts. Instances are immutable and
 * thread-safe; every call opens the directory afresh.
 */
public final class RunDirectory {

  /** What {@link RunDirectory#requestStop} answers after it linked a request whose run is gone. */
  public static final String SERVER_CHANGED = "server changed; stop not delivered";

  /** An action on the file system, for the test seam {@link #afterLink}. */
  @FunctionalInterface
  interface FileAction {
    void run() throws IOException;
  }

  private final Path path;
  private final FileAction afterLink;

  private RunDirectory(Path path, FileAction afterLink) {
    this.path = path;
    this.afterLink = afterLink;
  }

  /**
   * The same directory, running {@code action} between the link of a request and the re-read of
   * {@code run.json}: the window in which a new server may replace the run. For tests.
   */
  RunDirectory afterLink(FileAction action) {
    return new RunDirectory(path, Objects.requireNonNull(action));
  }

  /** The run directory at {@code path} (it need not exist). */
  public static RunDirectory at(Path path) {
    return new RunDirectory(Objects.requireNonNull(path, "path").toAbsolutePath().normalize(),
        () -> { });
  }

  /** The run directory's path. */
  public Path path() {
    return path;
  }

  /** The path of {@code stop-request}, for messages. */
  public Path stopRequestPath() {
    return path.resolve(StopRequest.FILE_NAME);
  }

  /** The path of {@code run.json}, for messages. */
  public Path runStatePath() {
    return path.resolve(RunState.FILE_NAME);
  }

  /**
   * The run directory, never created; empty when it or its parent does not exist.
   *
   * @throws ControlException {@code UNSAFE_PATH} when a link or non-directory stands at its name
   */
  Optional<SafeRoot> open() throws IOException {
    Path parent = path.getParent();
    if (parent == null) {
      return Optional.of(SafeRoot.open(path));
    }
    SafeRoot anchor;
    try {
      anchor = SafeRoot.open(parent);
    } catch (NoSuchFileException e) {
      return Optional.empty();
    }
    try (anchor) {
      return anchor.subroot(path.getFileName().toString());
    }
  }

  // ------------------------------------------------------------------------------- run state

  /**
   * The run state, read strictly; empty when there is no {@code run.json} (or no directory).
   *
   * @throws ControlException {@code MALFORMED_RUN_STATE} when it does not load (anything but a
   *     regular file, too large, not the schema); {@code UNSAFE_PATH} for the directory
   */
  public Optional<RunState> loadRunState() throws IOException {
    Optional<SafeRoot> home = open();
    if (home.isEmpty()) {
      return Optional.empty();
    }
    try (SafeRoot root = home.get()) {
      return loadRunState(root);
    }
  }

  private Optional<RunState> loadRunState(SafeRoot root) throws IOException {
    String where = runStatePath().toString();
    Optional<byte[]> bytes;
    try {
      bytes = root.read(RunState.FILE_NAME, RunState.MAX_BYTES);
    } catch (ControlException e) {
      if (e.reason() == Reason.UNSAFE_PATH || e.reason() == Reason.IO_FAILURE) {
        throw e;
      }
      throw new ControlException(Reason.MALFORMED_RUN_STATE, where + " does not load: "
          + e.getMessage(), e);
    }
    if (bytes.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(RunState.parse(bytes.get(), where));
  }

  /**
   * Writes {@code state} to {@code run.json}, replacing it whole (a reader sees the old or the new,
   * never a mix), creating the run directory (0700, not its parent) if needed. Only the holder of
   * the run's lock calls this.
   *
   * @return the outcome: the state is written (a failure after the rename, such as a directory
   *     that could not be forced to disk, is said there, never thrown)
   * @throws NoSuchFileException when the parent of the run directory does not exist
   */
  public Publication.Outcome writeRunState(RunState state) throws IOException {
    Objects.requireNonNull(state, "state");
    Optional<SafeRoot> home = open();
    if (home.isEmpty()) {
      Path parent = Objects.requireNonNull(path.getParent());
      try (SafeRoot anchor = SafeRoot.open(parent)) {
        // mkdirat through the parent's descriptor: a link at the parent's path changes nothing.
        Files.createDirectory(anchor.descriptorPath().resolve(path.getFileName().toString()),
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
      } catch (FileAlreadyExistsException e) {
        // Created meanwhile, or a non-directory: the open below tells which.
      }
      home = open();
    }
    try (SafeRoot root = home.orElseThrow(() -> new NoSuchFileException(path.toString()))) {
      return root.replace(RunState.FILE_NAME, state.toJson());
    }
  }

  // ------------------------------------------------------------------------------- reading

  /**
   * The stop request, read lock-free and strictly. Never throws for what it finds at
   * {@code stop-request}: anything there that is not a request of schema {@code cryo.stop/1}
   * (a link, a FIFO, a directory, a huge file, bad JSON, another schema) is present with a bounded
   * problem and reads as a drain. Creates nothing.
   *
   * @throws ControlException {@code UNSAFE_PATH} when a link or non-directory stands at the run
   *     directory's name, for the caller to fail closed
   */
  public StopReading readStopRequest() throws IOException {
    Optional<SafeRoot> home = open();
    if (home.isEmpty()) {
      return StopReading.absent();
    }
    try (SafeRoot root = home.get()) {
      return readStopRequest(root);
    }
  }

  private StopReading readStopRequest(SafeRoot root) {
    String where = stopRequestPath().toString();
    try {
      Optional<SafeRoot.Entry> entry = root.lookup(StopRequest.FILE_NAME);
      if (entry.isEmpty()) {
        return StopReading.absent();
      }
      if (entry.get().kind() != EntryKind.REGULAR_FILE) {
        return StopReading.unparseable(where + " is " + entry.get().kind().description()
            + ", not a regular file");
      }
      Optional<byte[]> bytes = root.read(StopRequest.FILE_NAME, StopRequest.MAX_BYTES);
      if (bytes.isEmpty()) {
        return StopReading.absent(); // removed between the lookup and the open
      }
      return StopReading.parsed(StopRequest.parse(bytes.get()));
    } catch (StrictJson.Malformed e) {
      return StopReading.unparseable(where + " does not parse: it " + e.getMessage());
    } catch (ControlException e) {
      return StopReading.unparseable(switch (e.reason()) {
        case READ_LIMIT_EXCEEDED -> where + " is larger than " + StopRequest.MAX_BYTES + " bytes";
        default -> e.getMessage();
      });
    } catch (IOException | RuntimeException e) {
      return StopReading.unparseable(where + " cannot be read (" + e + ")");
    }
  }

  // ------------------------------------------------------------------------------- publishing

  /**
   * Publishes a stop request for the run {@code run.json} names, in mode {@code mode}.
   *
   * <p>Refused, creating nothing, when there is no {@code run.json} or it does not load, and when
   * the run directory belongs to another user than this process's (its server would not act on a
   * request of ours: {@link RunHome#requireRequester}). Otherwise
   * the request is bound to that invocation and published by link. When a request is already there
   * nothing is written and the answer says which: this run's own (with its mode), an earlier run's
   * (the server removes it at its next tick: repeat then), or one that does not parse (read as a
   * drain). After the link {@code run.json} is read again through the path: another invocation
   * there (or none) answers {@link Outcome#SERVER_CHANGED}. A run that has already ended is said so.
   *
   * @throws ControlException {@code NO_RUN_STATE}, {@code MALFORMED_RUN_STATE}, {@code NOT_OWNED},
   *     {@code UNSAFE_PATH} or {@code IO_FAILURE}; nothing was written then
   */
  public StopDelivery requestStop(StopMode mode) throws IOException {
    Objects.requireNonNull(mode, "mode");
    String where = stopRequestPath().toString();
    Optional<SafeRoot> home = open();
    if (home.isEmpty()) {
      throw noRunState();
    }
    RunState state;
    Publication.Outcome published;
    try (SafeRoot root = home.get()) {
      state = loadRunState(root).orElseThrow(this::noRunState);
      RunHome.requireRequester(root);
      StopRequest request = new StopRequest(state.invocationId(), mode, RunState.now());
      try {
        published = root.publish(StopRequest.FILE_NAME, request.toJson());
      } catch (NoSuchFileException e) {
        throw new ControlException(Reason.IO_FAILURE, "the run directory " + path + " vanished;"
            + " nothing was written", e);
      }
      if (!published.published()) {
        return alreadyThere(state, readStopRequest(root), where);
      }
    }
    // Linked is published: the server acts on it whatever failed after the link, so the delivery
    // says written, and what was left behind.
    String caveat = published.complete() ? "" : " (" + published.describe() + ")";
    afterLink.run();
    Optional<RunState> after;
    try {
      after = loadRunState();
    } catch (ControlException e) {
      after = Optional.empty();
    }
    String id = state.invocationId();
    if (after.isEmpty() || !after.get().invocationId().equals(id)) {
      return new StopDelivery(Outcome.SERVER_CHANGED, mode, id, SERVER_CHANGED + " (the request"
          + " for invocation " + id + " was written to " + where + ", but " + runStatePath()
          + (after.isEmpty() ? " is gone or does not load" : " now names invocation "
          + after.get().invocationId()) + "; the new server removes it at its next tick)"
          + caveat, Optional.empty(), state.hasEnded());
    }
    String message = mode.code() + " stop requested for invocation " + id;
    if (state.hasEnded()) {
      message += ", which has already ended (" + state.endedAt() + "): workers still running drain"
          + " at their next step boundary" + (mode == StopMode.NOW
          ? "; 'now' can no longer signal anything" : "");
    }
    message += caveat;
    return new StopDelivery(Outcome.WRITTEN, mode, id, message, Optional.empty(),
        state.hasEnded());
  }

  private StopDelivery alreadyThere(RunState state, StopReading existing, String where) {
    String id = state.invocationId();
    StopMode reads = existing.mode().orElse(StopMode.DRAIN);
    if (!existing.present()) {
      // Linking failed on an entry that vanished before it could be read: the server cleaned it.
      return new StopDelivery(Outcome.EARLIER_RUN, reads, id, "a stop request was at " + where
          + " and vanished while it was read (the server cleans it); nothing was written:"
          + " repeat the stop", Optional.of(existing), state.hasEnded());
    }
    if (existing.boundElsewhere(id)) {
      return new StopDelivery(Outcome.EARLIER_RUN, reads, id, "a stop request of an earlier run"
          + " (invocation " + existing.request().orElseThrow().invocationId() + ") is still at "
          + where + "; the server removes it at its next tick: repeat the stop then. Nothing was"
          + " written.", Optional.of(existing), state.hasEnded());
    }
    if (existing.unparseable()) {
      return new StopDelivery(Outcome.UNPARSEABLE, StopMode.DRAIN, id, "a stop request that does"
          + " not parse is at " + where + " (" + existing.problem() + "); every reader takes it as"
          + " a drain. Nothing was written.", Optional.of(existing), state.hasEnded());
    }
    return new StopDelivery(Outcome.ALREADY_THERE, reads, id, "a " + reads.code() + " stop request"
        + " for this run (invocation " + id + ") is already at " + where + "; nothing was written",
        Optional.of(existing), state.hasEnded());
  }

  private ControlException noRunState() {
    return new ControlException(Reason.NO_RUN_STATE, "no server has run in " + path + " (no "
        + RunState.FILE_NAME + "); there is nothing to stop, and nothing was written: name the run"
        + " directory of the server");
  }

  // ------------------------------------------------------------------------------- cleaning

  /**
   * The lock holder's cleaning of {@code stop-request}: a request bound to another invocation than
   * {@code invocationId} is removed always; one that does not parse, and every temporary a crashed
   * publisher left (its process is provably gone), only {@code atStart}. A temporary of a publisher
   * still alive is kept: it removes its own. Only the holder of the run's lock calls this.
   *
   * @return the names removed
   * @throws ControlException {@code UNSAFE_PATH} for the directory; {@code NOT_A_REGULAR_FILE} when
   *     a directory at {@code stop-request} must go and cannot (remove it by hand)
   */
  public List<String> removeStaleStopRequests(String invocationId, boolean atStart)
      throws IOException {
    Objects.requireNonNull(invocationId, "invocationId");
    List<String> removed = new ArrayList<>();
    Optional<SafeRoot> home = open();
    if (home.isEmpty()) {
      return removed;
    }
    try (SafeRoot root = home.get()) {
      StopReading found = readStopRequest(root);
      if (found.boundElsewhere(invocationId) || (atStart && found.unparseable())) {
        if (root.remove(StopRequest.FILE_NAME)) {
          removed.add(StopRequest.FILE_NAME);
        }
      }
      if (atStart) {
        List<String> before = root.names();
        root.removeAbandonedTemporaries(StopRequest.FILE_NAME, ProcessTable.system());
        List<String> now = root.names();
        before.stream().filter(name -> !now.contains(name)
            && !name.equals(StopRequest.FILE_NAME)).sorted().forEach(removed::add);
      }
    }
    return removed;
  }

  /**
   * The lock holder's withdrawal of the stop request it acted upon and could not carry out (a drain
   * that was refused): the request at {@code stop-request} that applies to {@code invocationId}
   * (its own, or one that does not parse, which every server reads as a drain) is removed, so that
   * a new one may be published and the publisher's {@code cryo stop --wait} learns that the run
   * serves on. A request bound to another invocation is left to the usual cleaning. Removing needs
   * no free space. Only the holder of the run's lock calls this.
   *
   * @return whether a request was removed
   * @throws ControlException {@code UNSAFE_PATH} for the directory; {@code NOT_A_REGULAR_FILE}
   *     when a directory stands at {@code stop-request} (kept)
   */
  public boolean withdrawStopRequest(String invocationId) throws IOException {
    Objects.requireNonNull(invocationId, "invocationId");
    Optional<SafeRoot> home = open();
    if (home.isEmpty()) {
      return false;
    }
    try (SafeRoot root = home.get()) {
      StopReading found = readStopRequest(root);
      return found.present() && found.appliesTo(invocationId)
          && root.remove(StopRequest.FILE_NAME);
    }
  }

  /**
   * Starts watching for stop requests on behalf of the run {@code invocationId}, whose server holds
   * {@code home} (this directory, claimed): judges {@code stop-request} by the home's rule
   * ({@link RunHome}), cleans as at start ({@link #removeStaleStopRequests} with {@code atStart})
   * and returns the watcher the server calls on each tick. Only the holder of the run's lock calls
   * this.
   *
   * @throws ControlException as {@link RunHome#require} when what is at {@code stop-request} breaks
   *     the home's rule: nothing was read or removed
   */
  public StopWatcher watch(String invocationId, RunHome home) throws IOException {
    Objects.requireNonNull(home, "home");
    home.require(StopRequest.FILE_NAME, RunHome.Kind.FILE);
    removeStaleStopRequests(invocationId, true);
    return new StopWatcher(this, invocationId, home);
  }
}
