package dev.cryo.control;

import dev.cryo.control.ControlException.Reason;
import dev.cryo.lock.DirectoryTrust;
import dev.cryo.lock.Publication;
import java.io.Closeable;
import java.io.IOException;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * The home of a run (its run directory) as the server that runs there holds it: private to the
 * user the server runs as, and the one place where every entry the run reads, writes or creates
 * under it is judged, by one rule.
 *
 * <p><b>The rule.</b> The home, and every entry of it the run uses, must be
 * <ol>
 *   <li>of the kind the run keeps there (a directory, a regular file; in the directory of the
 *       workers' sockets, a socket), looked at without following a symbolic link: a link, a FIFO, a
 *       device or anything else where the run keeps a file or directory of its own is never
 *       followed, opened or removed;
 *   <li>owned by the user the server runs as (the process's file-system uid,
 *       {@link DirectoryTrust#accessUid()}) — root is no exception: a root server refuses another
 *       user's home or file too;
 *   <li>writable by nobody else: no write bit for its group or for others.
 * </ol>
 * An entry that breaks the rule is refused with a {@link ControlException} whose message is one
 * line: the entry's path and what was found there, that nothing was read, changed or deleted, and
 * what to do ({@code chown}, {@code chmod}, or remove what was planted). Its reason is
 * {@link Reason#NOT_OWNED}, {@link Reason#WRITABLE_BY_OTHERS}, {@link Reason#NOT_A_REGULAR_FILE}
 * (something else where a file is kept) or {@link Reason#UNSAFE_PATH} (something else where a
 * directory or socket is kept). A missing entry is no refusal: the run creates it.
 *
 * <p><b>Private.</b> What the run creates through this class it creates for its user alone:
 * directories 0700 and files 0600, the modes given explicitly at creation. A home that does not
 * exist is created 0700 (its missing parents as before, by the process's umask). An entry the rule
 * accepts but that others may still read or enter — the home 0755 and its logs 0644, as an earlier
 * cryo left them — is made private by {@link #claim}: its group's and others' bits are cleared, its
 * owner's kept, and {@link #tightened()} names each one so that the start can say so. The home
 * itself is made private only when it looks like a run directory — it holds {@code run.json}, or
 * nothing at all — so that a home named by mistake ({@code /usr}, a user's own home directory) is
 * never narrowed for everybody else: such a home is refused ({@link Reason#NOT_PRIVATE}).
 *
 * <p><b>When.</b> {@link #claim} judges the home and every entry the run declares
 * ({@link Expected}; the entries of a declared directory of logs or sockets too) before the run
 * takes its lock or reads anything, and refuses at the first one that breaks the rule. After the
 * claim, every operation here judges again the entry it acts on, then acts through the descriptor
 * of the home held since the claim ({@link SafeRoot}): the home's path is walked once, and a link
 * swapped in at the home's own name later changes nothing. Between a judgement and the act, only
 * this user or root can change a private home, whom the server trusts anyway.
 *
 * <p>The directories above the home are followed as named: whoever names the home trusts the way
 * to it. Thread-safe; {@link #close} only once nothing else uses it. Linux only, as
 * {@link SafeRoot}.
 */
public final class RunHome implements Closeable {

  /** What the run keeps at a name of its home. */
  public enum Kind {
    /** A regular file. */
    FILE,
    /** A directory; what is in it is judged by whoever works in it. */
    DIRECTORY,
    /** A directory of regular files (the workers' logs), each judged as a {@link #FILE}. */
    DIRECTORY_OF_FILES,
    /** A directory of Unix sockets (stale ones of a run that was killed), each one judged. */
    DIRECTORY_OF_SOCKETS
  }

  /**
   * A name of the home the run uses, and what it keeps there.
   *
   * @param name one plain name (no {@code /}, {@code .} or {@code ..})
   * @param kind what the run keeps there
   */
  public record Expected(String name, Kind kind) {

    /** Checks the name. */
    public Expected {
      Objects.requireNonNull(kind, "kind");
      try {
        if (SafeRoot.components(name).size() != 1) {
          throw new IllegalArgumentException("one name of the home is expected, not " + name);
        }
      } catch (ControlException e) {
        throw new IllegalArgumentException(e.getMessage(), e);
      }
    }

    /** A regular file at {@code name}. */
    public static Expected file(String name) {
      return new Expected(name, Kind.FILE);
    }

    /** A directory at {@code name}. */
    public static Expected directory(String name) {
      return new Expected(name, Kind.DIRECTORY);
    }

    /** A directory of regular files at {@code name}. */
    public static Expected directoryOfFiles(String name) {
      return new Expected(name, Kind.DIRECTORY_OF_FILES);
    }

    /** A directory of Unix sockets at {@code name}. */
    public static Expected directoryOfSockets(String name) {
      return new Expected(name, Kind.DIRECTORY_OF_SOCKETS);
    }
  }

  /** Work done with a path that reaches a private file through a held directory. */
  @FunctionalInterface
  public interface PathUse<T> {
    /** Uses {@code reachable}; it is valid while this runs. */
    T apply(Path reachable) throws IOException;
  }

  /** The group's and others' bits of a mode. */
  private static final int GROUP_AND_OTHERS = 0077;
  /** The group's and others' write bits. */
  private static final int GROUP_OR_OTHERS_WRITE = 0022;
  private static final int GROUP_WRITE = 0020;
  private static final int OTHERS_WRITE = 0002;
  private static final LinkOption NOFOLLOW = LinkOption.NOFOLLOW_LINKS;
  private static final FileAttribute<Set<PosixFilePermission>> PRIVATE_DIRECTORY =
      PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------"));
  private static final FileAttribute<Set<PosixFilePermission>> PRIVATE_FILE =
      PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"));
  private static final Set<OpenOption> CREATE_OR_OPEN = Set.of(StandardOpenOption.READ,
      StandardOpenOption.WRITE, StandardOpenOption.CREATE, NOFOLLOW);
  private static final Set<OpenOption> CREATE_NEW = Set.of(StandardOpenOption.WRITE,
      StandardOpenOption.CREATE_NEW, NOFOLLOW);

  /** What a look at an entry found, in one {@code lstat}. */
  private record Found(EntryKind kind, int owner, int mode) {}

  /**
   * An entry the claim accepted that others may read or enter: {@code relative} to the home (null
   * for the home itself), narrowed once every entry was judged.
   */
  private record Readable(String relative, Found found) {}

  private final Path path;
  private final SafeRoot root;
  private final int uid;
  private final List<String> tightened = new ArrayList<>();

  private RunHome(Path path, SafeRoot root, int uid) {
    this.path = path;
    this.root = root;
    this.uid = uid;
  }

  /**
   * Claims the home at {@code path} for a run: creates it (0700) when it is missing, judges it and
   * each entry of {@code layout} by the rule, makes private what the rule accepts but others may
   * read, and holds the home open.
   *
   * @throws ControlException {@code NOT_OWNED}, {@code WRITABLE_BY_OTHERS},
   *     {@code NOT_A_REGULAR_FILE} or {@code UNSAFE_PATH} for the home or the first entry that
   *     breaks the rule (nothing was read, changed or deleted then); {@code NOT_PRIVATE} for a home
   *     others may read or enter that does not look like a run directory; {@code IO_FAILURE} when
   *     the process's user cannot be told
   * @throws IOException when the home or its parents cannot be created
   */
  public static RunHome claim(Path path, List<Expected> layout) throws IOException {
    Path home = path.toAbsolutePath().normalize();
    List<Expected> entries = List.copyOf(layout);
    int uid = DirectoryTrust.accessUid();
    if (uid < 0) {
      throw new ControlException(Reason.IO_FAILURE, "cannot tell which user this process runs as"
          + " (no Uid line in /proc/self/status); nothing was created or read in " + home
          + ": run on Linux");
    }
    RunHome claimed = new RunHome(home, openOrCreate(home), uid);
    try {
      List<Readable> readable = new ArrayList<>();
      claimed.claimHome(readable);
      for (Expected expected : entries) {
        claimed.claimEntry(expected, readable);
      }
      // Everything was judged: only now is anything changed, so that a refusal changes nothing.
      for (Readable entry : readable) {
        claimed.tighten(entry);
      }
      return claimed;
    } catch (IOException | RuntimeException e) {
      claimed.close();
      throw e;
    }
  }

  /** The home, opened without following a link at its own name; created 0700 when missing. */
  private static SafeRoot openOrCreate(Path home) throws IOException {
    Path parent = home.getParent();
    if (parent == null) {
      return SafeRoot.open(home);
    }
    Files.createDirectories(parent);
    String name = home.getFileName().toString();
    try (SafeRoot anchor = SafeRoot.open(parent)) {
      Optional<SafeRoot.Entry> found = anchor.lookup(name);
      if (found.isEmpty()) {
        try {
          // mkdirat through the parent's descriptor, the mode given (the umask only narrows it).
          Files.createDirectory(anchor.descriptorPath().resolve(name), PRIVATE_DIRECTORY);
        } catch (FileAlreadyExistsException e) {
          // made meanwhile: judged below like any home that was there
        }
        found = anchor.lookup(name);
      }
      if (found.isEmpty()) {
        throw new ControlException(Reason.IO_FAILURE, home + " vanished as it was created;"
            + " nothing was read or changed there: start again");
      }
      if (found.get().kind() != EntryKind.DIRECTORY) {
        throw wrongKind(home, found.get().kind(), EntryKind.DIRECTORY);
      }
      return anchor.subroot(name).orElseThrow(() -> new ControlException(Reason.IO_FAILURE,
          home + " vanished as it was opened; nothing was read or changed there: start again"));
    }
  }

  private void claimHome(List<Readable> readable) throws IOException {
    Path held = root.descriptorPath(); // the held directory itself, whatever its name names now
    Map<String, Object> attributes = Files.readAttributes(held, "unix:uid,mode");
    Found found = new Found(EntryKind.DIRECTORY, (Integer) attributes.get("uid"),
        (Integer) attributes.get("mode"));
    judge(path, found, EntryKind.DIRECTORY);
    if ((found.mode() & GROUP_AND_OTHERS) != 0 && root.lookup(RunState.FILE_NAME).isEmpty()
        && !root.names().isEmpty()) {
      throw new ControlException(Reason.NOT_PRIVATE, path + " may be read or entered by others"
          + " (mode " + octal(found.mode()) + ") and holds entries but no " + RunState.FILE_NAME
          + ": it does not look like a run directory, so it was not made private, and nothing in"
          + " it was read, changed or deleted: chmod 700 " + path + " if it is meant to be one,"
          + " else name a directory of its own (a missing one is created 0700)");
    }
    readable.add(new Readable(null, found));
  }

  private void claimEntry(Expected expected, List<Readable> readable) throws IOException {
    Optional<Found> found = look(root, expected.name());
    if (found.isEmpty()) {
      return;
    }
    Path shown = path.resolve(expected.name());
    EntryKind wanted = expected.kind() == Kind.FILE ? EntryKind.REGULAR_FILE
        : EntryKind.DIRECTORY;
    judge(shown, found.get(), wanted);
    readable.add(new Readable(expected.name(), found.get()));
    if (expected.kind() == Kind.DIRECTORY_OF_FILES
        || expected.kind() == Kind.DIRECTORY_OF_SOCKETS) {
      boolean sockets = expected.kind() == Kind.DIRECTORY_OF_SOCKETS;
      try (SafeRoot directory = root.subroot(expected.name()).orElse(null)) {
        if (directory == null) {
          return;
        }
        for (String name : directory.names().stream().sorted().toList()) {
          Optional<Found> inside = look(directory, name);
          if (inside.isPresent()) {
            Path entry = shown.resolve(name);
            judge(entry, inside.get(), sockets ? EntryKind.SOCKET : EntryKind.REGULAR_FILE);
            if (!sockets) {
              readable.add(new Readable(expected.name() + "/" + name, inside.get()));
            }
          }
        }
      }
    }
  }

  /**
   * Clears the group's and others' bits of an entry the rule accepted, through the held home, and
   * remembers it.
   */
  private void tighten(Readable entry) throws IOException {
    Found found = entry.found();
    if ((found.mode() & GROUP_AND_OTHERS) == 0) {
      return;
    }
    int mode = found.mode() & 0700;
    Path reachable = entry.relative() == null ? root.descriptorPath()
        : root.descriptorPath().resolve(entry.relative());
    Files.setPosixFilePermissions(reachable, permissions(mode));
    tightened.add((entry.relative() == null ? path.toString() : entry.relative()) + " "
        + octal(found.mode()) + " -> " + octal(mode));
  }

  /**
   * Refuses to leave a request (a stop, a reload) in the run directory {@code home} for a server
   * that would not act on it: the directory belongs to another user than this process's, and the
   * server that runs there acts on no file of its home that another user owns (the rule above).
   * Called by those who write requests, before they write anything.
   *
   * @throws ControlException {@code NOT_OWNED}; nothing was written
   */
  public static void requireRequester(SafeRoot home) throws IOException {
    int uid = DirectoryTrust.accessUid();
    int owner = (Integer) Files.getAttribute(home.descriptorPath(), "unix:uid");
    if (uid >= 0 && owner != uid) {
      throw new ControlException(Reason.NOT_OWNED, home.path() + " belongs to uid " + owner
          + ", not to uid " + uid + " that runs this command, and its server acts on no request"
          + " another user writes; nothing was written: run this command as uid " + owner);
    }
  }

  /** The home's path (for messages: operations go through the held directory). */
  public Path path() {
    return path;
  }

  /** {@code relative}'s path under the home, for messages and for other processes. */
  public Path shown(String relative) {
    return path.resolve(relative);
  }

  /**
   * What {@link #claim} made private (each entry with its mode before and after), in the order it
   * met them; empty when nothing needed it.
   */
  public List<String> tightened() {
    return List.copyOf(tightened);
  }

  /**
   * The one line a start says about {@link #tightened()}, or empty when nothing was made private.
   */
  public Optional<String> tightenedLine() {
    if (tightened.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of("made private what other users could read or enter in " + path + " (as"
        + " cryo before this version left it); nothing else was changed: "
        + String.join(", ", tightened));
  }

  /**
   * Judges the entry at {@code relative} by the rule: nothing there is no refusal.
   *
   * @param kind {@link Kind#FILE} or {@link Kind#DIRECTORY} (a directory of files or sockets is
   *     judged as a directory here)
   * @throws ControlException as {@link #claim} for that entry; {@code UNSAFE_PATH} for a link or
   *     non-directory above it
   */
  public void require(String relative, Kind kind) throws IOException {
    Objects.requireNonNull(kind, "kind");
    try (Located at = locate(relative)) {
      if (at != null) {
        Optional<Found> found = look(at.directory(), at.name());
        if (found.isPresent()) {
          judge(path.resolve(relative), found.get(), kind == Kind.FILE ? EntryKind.REGULAR_FILE
              : EntryKind.DIRECTORY);
        }
      }
    }
  }

  /**
   * The bytes of the file at {@code relative}, judged by the rule first, then read as
   * {@link SafeRoot#read} reads (bounded, never blocking on a FIFO); empty when it is missing.
   *
   * @throws ControlException as {@link #require}, or as {@link SafeRoot#read}
   */
  public Optional<byte[]> read(String relative, int limit) throws IOException {
    require(relative, Kind.FILE);
    Optional<byte[]> bytes = root.read(relative, limit);
    if (bytes.isPresent()) { // judged again: nothing at the first look passes, a file moved in since
      require(relative, Kind.FILE);
    }
    return bytes;
  }

  /**
   * Replaces the file at {@code relative} with {@code content} in one atomic rename, written 0600
   * ({@link SafeRoot#replace}), once the entry there was judged by the rule.
   *
   * @throws ControlException as {@link #require}, or {@code IO_FAILURE}
   */
  public Publication.Outcome replace(String relative, byte[] content) throws IOException {
    require(relative, Kind.FILE);
    return root.replace(relative, content);
  }

  /**
   * The file {@code name} of the home, created 0600 when missing, else judged by the rule, and
   * emptied: opened read-write without following a link (so that a FIFO swapped in never blocks
   * the open), and refused unless it can seek (a regular file). The caller owns the channel.
   *
   * @throws ControlException as {@link #require}; {@code NOT_A_REGULAR_FILE} for a FIFO or another
   *     stream-like file swapped in
   */
  public FileChannel create(String name) throws IOException {
    Path reachable = inHome(name);
    require(name, Kind.FILE);
    FileChannel channel = FileChannel.open(reachable, CREATE_OR_OPEN, PRIVATE_FILE);
    try {
      try {
        channel.position();
      } catch (ClosedByInterruptException e) {
        throw e;
      } catch (IOException e) {
        throw notRegular(path.resolve(name), EntryKind.FIFO);
      }
      channel.truncate(0);
      return channel;
    } catch (IOException | RuntimeException e) {
      channel.close();
      throw e;
    }
  }

  /**
   * A new file {@code name} of the home, created 0600 and never over anything ({@code O_EXCL},
   * which follows no link). The caller owns the channel, open for writing.
   *
   * @throws FileAlreadyExistsException when anything stands at the name
   */
  public FileChannel createNew(String name) throws IOException {
    Path reachable = inHome(name);
    require(name, Kind.FILE);
    return FileChannel.open(reachable, CREATE_NEW, PRIVATE_FILE);
  }

  /**
   * Renames the file {@code from} of the home to {@code to} in one atomic step, replacing a file
   * at {@code to}; both judged by the rule first. A rename follows no link.
   *
   * @return {@code false} when nothing was at {@code from}
   */
  public boolean rename(String from, String to) throws IOException {
    Path source = inHome(from);
    Path target = inHome(to);
    require(from, Kind.FILE);
    require(to, Kind.FILE);
    try {
      Files.move(source, target, StandardCopyOption.ATOMIC_MOVE);
      return true;
    } catch (NoSuchFileException e) {
      return false;
    }
  }

  /**
   * Removes the entry at {@code relative} (never what a link there points to), as
   * {@link SafeRoot#remove}.
   *
   * @return whether something was removed
   */
  public boolean remove(String relative) throws IOException {
    return root.remove(relative);
  }

  /**
   * The names of the entries of the directory {@code relative} of the home ({@code "."} for the
   * home itself), in no particular order, reached through the held descriptor without following a
   * link; none when the directory is missing. Nothing is judged: judge an entry before acting on it.
   *
   * @throws ControlException {@code UNSAFE_PATH} when a link or non-directory is in the way
   */
  public List<String> names(String relative) throws IOException {
    if (relative.equals(".")) {
      return root.names();
    }
    Optional<SafeRoot> directory = root.subroot(relative);
    if (directory.isEmpty()) {
      return List.of();
    }
    try (SafeRoot held = directory.get()) {
      return held.names();
    }
  }

  /**
   * What is at {@code relative} of the home, looked at without following a link, as
   * {@link SafeRoot#lookup}; empty when it or a parent is missing.
   */
  public Optional<SafeRoot.Entry> lookup(String relative) throws IOException {
    return root.lookup(relative);
  }

  /**
   * The directory {@code name} of the home, created 0700 when missing, else judged by the rule.
   *
   * @return its path, for other processes (a worker's socket) and for messages
   */
  public Path directory(String name) throws IOException {
    Path reachable = inHome(name);
    if (root.lookup(name).isEmpty()) {
      try {
        Files.createDirectory(reachable, PRIVATE_DIRECTORY);
      } catch (FileAlreadyExistsException e) {
        // made meanwhile: judged below
      }
    }
    require(name, Kind.DIRECTORY);
    return path.resolve(name);
  }

  /**
   * Runs {@code use} with a path that reaches the private file {@code directory/name} through the
   * held descriptor of {@code directory}: the directory is created 0700 when missing, the file
   * 0600 ({@code O_EXCL}, following no link) when missing, and both are judged by the rule. For
   * opens that only take a path (the redirection of a child process's output): such an open
   * follows a link at {@code name}, which only this user or root could swap in meanwhile.
   *
   * @throws ControlException as {@link #require} for the directory or the file
   */
  public <T> T withPrivateFile(String directory, String name, PathUse<T> use) throws IOException {
    directory(directory);
    if (SafeRoot.components(name).size() != 1) {
      throw new IllegalArgumentException("one name is expected, not " + name);
    }
    String relative = directory + "/" + name;
    try (Located at = locate(relative)) {
      if (at == null) {
        throw new NoSuchFileException(path.resolve(directory).toString(), null,
            "the directory vanished; nothing was created");
      }
      Path reachable = at.directory().descriptorPath().resolve(name);
      Optional<Found> found = look(at.directory(), name);
      if (found.isEmpty()) {
        try {
          FileChannel.open(reachable, CREATE_NEW, PRIVATE_FILE).close();
        } catch (FileAlreadyExistsException e) {
          // made meanwhile: judged below
        }
        found = look(at.directory(), name);
      }
      if (found.isEmpty()) {
        throw new NoSuchFileException(path.resolve(relative).toString(), null,
            "it vanished as it was created");
      }
      judge(path.resolve(relative), found.get(), EntryKind.REGULAR_FILE);
      return use.apply(reachable);
    }
  }

  /** Releases the home's descriptor. Idempotent. */
  @Override
  public void close() throws IOException {
    root.close();
  }

  // ---------------------------------------------------------------------------- the rule

  /**
   * The rule for one entry: of the kind {@code wanted}, owned by this process's user, writable by
   * nobody else.
   */
  private void judge(Path shown, Found found, EntryKind wanted) throws ControlException {
    if (found.kind() != wanted) {
      throw wrongKind(shown, found.kind(), wanted);
    }
    boolean directory = wanted == EntryKind.DIRECTORY;
    if (found.owner() != uid) {
      throw new ControlException(Reason.NOT_OWNED, shown + " is owned by uid " + found.owner()
          + ", not by uid " + uid + " that this server runs as; nothing was read, changed or"
          + " deleted: " + (shown.equals(path) ? "if this run directory is yours, chown " + uid
          + " " + shown + "; else name a run directory of your own" : "if it is yours, chown "
          + uid + " " + shown + "; else remove it, and find out who put it there"));
    }
    int write = found.mode() & GROUP_OR_OTHERS_WRITE;
    if (write != 0) {
      String who = write == GROUP_WRITE ? "its group" : write == OTHERS_WRITE ? "others"
          : "its group and others";
      throw new ControlException(Reason.WRITABLE_BY_OTHERS, shown + " is writable by " + who
          + " (mode " + octal(found.mode()) + "); nothing was read, changed or deleted: chmod "
          + (directory ? "700 " : "600 ") + shown + (directory
          ? " once you have checked that nobody else put anything in it"
          : " if its content is yours, else remove it"));
    }
  }

  private static ControlException wrongKind(Path shown, EntryKind found, EntryKind wanted) {
    String kept = switch (wanted) {
      case REGULAR_FILE -> "a regular file";
      case SOCKET -> "a worker's socket";
      default -> "a directory";
    };
    return new ControlException(wanted == EntryKind.REGULAR_FILE ? Reason.NOT_A_REGULAR_FILE
        : Reason.UNSAFE_PATH, shown + " is " + found.description() + ", where the run keeps "
        + kept + " of its own; it was not followed or opened, and nothing was read, changed or"
        + " deleted: remove it or move it away (to keep the run's files elsewhere, name a run"
        + " directory there)");
  }

  private static ControlException notRegular(Path shown, EntryKind found) {
    return wrongKind(shown, found, EntryKind.REGULAR_FILE);
  }

  /** What stands at {@code name} in {@code directory}, looked at without following a link. */
  private static Optional<Found> look(SafeRoot directory, String name) throws IOException {
    Map<String, Object> attributes;
    try {
      attributes = Files.readAttributes(directory.descriptorPath().resolve(name),
          "unix:uid,mode", NOFOLLOW);
    } catch (NoSuchFileException e) {
      return Optional.empty();
    }
    int mode = (Integer) attributes.get("mode");
    return Optional.of(new Found(EntryKind.ofMode(mode), (Integer) attributes.get("uid"), mode));
  }

  /** The path of the single name {@code name} through the held home. */
  private Path inHome(String name) throws IOException {
    if (SafeRoot.components(name).size() != 1) {
      throw new IllegalArgumentException("one name of the home is expected, not " + name);
    }
    return root.descriptorPath().resolve(name);
  }

  /** The directory {@code relative} is in, and its last name; null when a parent is missing. */
  private Located locate(String relative) throws IOException {
    List<String> parts = SafeRoot.components(relative);
    if (parts.size() == 1) {
      return new Located(root, parts.get(0), false);
    }
    Optional<SafeRoot> parent = root.subroot(String.join("/", parts.subList(0,
        parts.size() - 1)));
    return parent.map(directory -> new Located(directory, parts.get(parts.size() - 1), true))
        .orElse(null);
  }

  /** A directory an operation acts in and the name it acts on; the directory closed if owned. */
  private record Located(SafeRoot directory, String name, boolean owned)
      implements AutoCloseable {
    @Override
    public void close() throws IOException {
      if (owned) {
        directory.close();
      }
    }
  }

  private static Set<PosixFilePermission> permissions(int mode) {
    StringBuilder text = new StringBuilder(9);
    String letters = "rwxrwxrwx";
    for (int bit = 0; bit < 9; bit++) {
      text.append((mode & (0400 >> bit)) != 0 ? letters.charAt(bit) : '-');
    }
    return PosixFilePermissions.fromString(text.toString());
  }

  private static String octal(int mode) {
    return String.format("%04o", mode & 07777);
  }
}
