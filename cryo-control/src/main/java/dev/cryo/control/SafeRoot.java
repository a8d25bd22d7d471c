package dev.cryo.control;

import dev.cryo.control.ControlException.Reason;
import dev.cryo.lock.DirectoryTrust;
import dev.cryo.lock.ProcessTable;
import dev.cryo.lock.Publication;
import dev.cryo.lock.Publication.Durability;
import dev.cryo.lock.Uninterruptible;
import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * An open directory, and the entries under it reached without ever following a symbolic link.
 *
 * <p>The root itself is opened by its path, symbolic links in that path followed on purpose: whoever
 * names the root trusts it. Below it every path is relative and walked one component at a time, each
 * directory opened relative to the one before with {@code O_NOFOLLOW|O_DIRECTORY} (a
 * {@link SecureDirectoryStream}). Empty paths, NUL, absolute paths, {@code .} and {@code ..} are
 * refused; a symbolic link or a non-directory where a directory is expected is refused with an error
 * naming what is there ({@link ControlException.Reason#UNSAFE_PATH}). A missing entry or parent is
 * "absent" ({@link Optional#empty()} or {@code false}), never an exception.
 *
 * <p>Reading ({@link #read}) is bounded: it reads at most {@code limit + 1} bytes and refuses past
 * the limit, never trusting the size the file claims. It opens the entry read-write without creating
 * it: a FIFO opened so never blocks (it has a writer, the reader itself), and the channel's refusal
 * to seek then tells it from a regular file; a socket or directory cannot be opened so at all. The
 * price: a control file the reader may read but not write is refused as unreadable (cryo writes them
 * 0600 for their owner), except on a read-only mount whose directory nobody but this user or root
 * may change ({@link DirectoryTrust}), where the file is opened read-only: a read-only bind mount
 * does not keep the directory's owner from swapping a FIFO in through another mount.
 *
 * <p>What {@link SecureDirectoryStream} lacks ({@code linkat}, {@code mkdirat}, a listing) is
 * reached through {@code /proc/self/fd/N/<name>}, where N is this root's own descriptor of its
 * directory, opened relative to the held stream and kept until the root is closed (see
 * {@link #descriptorPath}): no operation ever goes through a descriptor another root or anybody
 * else may close, whose number could then be reused for another file. The walk through
 * {@code /proc/self/fd/N} jumps to the directory itself, so a later rename or a link planted at its
 * path changes nothing. Link publication is {@link Publication}'s, reused whole.
 *
 * <p>A sub-root ({@link #subroot}) stays bound to its directory even if the name is later moved;
 * {@link #isStillAtPath()} tells whether the path now names something else. Instances are
 * thread-safe; close one only when no other thread uses it. Linux only.
 */
public final class SafeRoot implements Closeable {

  /** What a lookup found: the kind of the entry, its identity, size and modification time. */
  public record Entry(EntryKind kind, Object fileKey, long size, FileTime lastModified) {}

  private static final Path PROC_FD = Path.of("/proc/self/fd");
  private static final LinkOption NOFOLLOW = LinkOption.NOFOLLOW_LINKS;
  private static final Set<OpenOption> READ_WRITE =
      Set.of(StandardOpenOption.READ, StandardOpenOption.WRITE, NOFOLLOW);
  private static final Set<OpenOption> READ_ONLY = Set.of(StandardOpenOption.READ, NOFOLLOW);
  private static final int CHUNK = 8192;

  /** A test seam: called when a read-write open was refused, before anything else is tried. */
  interface ReadOnlyProbe {
    void refusedReadWrite(Path shown) throws IOException;
  }

  static volatile ReadOnlyProbe readOnlyProbe = shown -> { };

  /** A test seam: called between choosing the descriptor of a publication and using it. */
  interface DescriptorProbe {
    void chosen(Path descriptor) throws IOException;
  }

  static volatile DescriptorProbe descriptorProbe = descriptor -> { };

  private final Path path;
  private final SecureDirectoryStream<Path> directory;
  private final Object fileKey;
  /**
   * Guards {@link #OWN}: a root's own descriptor is opened, found and registered, and closed and
   * deregistered, under it, so that a registered number is always a live descriptor of its root.
   */
  private static final Object DESCRIPTORS = new Object();
  /** The numbers of the own descriptors of the open roots of this JVM. */
  private static final Set<Integer> OWN = new HashSet<>();
  /** {@code O_DSYNC} as {@code /proc/self/fdinfo} shows it (octal; the generic Linux value). */
  private static final int MARK = 010000;
  private static final Set<OpenOption> MARKED =
      Set.of(StandardOpenOption.READ, StandardOpenOption.DSYNC);

  private SeekableByteChannel own; // guarded by DESCRIPTORS
  private int descriptor = -1; // guarded by DESCRIPTORS
  private boolean closed; // guarded by DESCRIPTORS

  private SafeRoot(Path path, SecureDirectoryStream<Path> directory) throws IOException {
    this.path = path;
    this.directory = directory;
    this.fileKey = directory.getFileAttributeView(BasicFileAttributeView.class)
        .readAttributes().fileKey();
  }

  /**
   * Opens the directory at {@code path}, following symbolic links in it (the caller trusts it).
   *
   * @throws NoSuchFileException when nothing is there
   * @throws ControlException {@code UNSAFE_PATH} when it is not a directory; {@code IO_FAILURE} when
   *     the platform offers no secure directory stream (not Linux)
   */
  public static SafeRoot open(Path path) throws IOException {
    Objects.requireNonNull(path, "path");
    return openDirectory(path.resolve("."), path);
  }

  /**
   * Opens {@code dotPath} ({@code <directory>/.}): the trailing {@code .} makes the kernel refuse
   * anything but a directory before it opens anything, so a FIFO there never blocks the open.
   */
  private static SafeRoot openDirectory(Path dotPath, Path shown) throws IOException {
    DirectoryStream<Path> stream;
    try {
      stream = Files.newDirectoryStream(dotPath);
    } catch (NotDirectoryException e) {
      throw new ControlException(Reason.UNSAFE_PATH, shown + " is not a directory; nothing was"
          + " read or changed there: name a directory", e);
    }
    if (!(stream instanceof SecureDirectoryStream<Path> secure)) {
      stream.close();
      throw new ControlException(Reason.IO_FAILURE, "this platform cannot walk " + shown
          + " without following links (no secure directory stream); nothing was read: run on"
          + " Linux");
    }
    return adopt(shown, secure);
  }

  private static SafeRoot adopt(Path path, SecureDirectoryStream<Path> stream) throws IOException {
    try {
      return new SafeRoot(path, stream);
    } catch (IOException | RuntimeException e) {
      stream.close();
      throw e;
    }
  }

  /**
   * The components of a relative path, each checked.
   *
   * @throws ControlException {@code UNSAFE_PATH} for an empty path, NUL, an absolute path, an empty
   *     component, {@code .} or {@code ..}
   */
  public static List<String> components(String relative) throws ControlException {
    if (relative == null || relative.isEmpty()) {
      throw unsafe("an empty path");
    }
    if (relative.indexOf('\0') >= 0) {
      throw unsafe("a path holding a NUL character");
    }
    if (relative.startsWith("/")) {
      throw unsafe("the absolute path " + relative);
    }
    List<String> parts = List.of(relative.split("/", -1));
    for (String part : parts) {
      if (part.isEmpty() || part.equals(".") || part.equals("..")) {
        throw unsafe("the path " + relative + " (it holds '" + part + "' as a component)");
      }
    }
    return parts;
  }

  private static ControlException unsafe(String what) {
    return new ControlException(Reason.UNSAFE_PATH, "refused " + what + ": only plain relative"
        + " paths (no '.', '..', empty components, NUL or leading '/') are walked; nothing was read"
        + " or changed");
  }

  /** The path this root was reached by, for messages; it may name something else by now. */
  public Path path() {
    return path;
  }

  /**
   * The directory at {@code relative}, reached without following links; {@link Optional#empty()}
   * when it or a parent is missing. The sub-root stays bound to that directory if it is moved.
   *
   * @throws ControlException {@code UNSAFE_PATH} when a link or non-directory is in the way
   */
  public Optional<SafeRoot> subroot(String relative) throws IOException {
    List<String> parts = components(relative);
    SafeRoot current = this;
    try {
      for (String part : parts) {
        Optional<SafeRoot> child = current.child(part);
        if (child.isEmpty()) {
          return Optional.empty();
        }
        if (current != this) {
          current.close();
        }
        current = child.get();
      }
      SafeRoot result = current;
      current = this;
      return Optional.of(result);
    } finally {
      if (current != this) {
        current.close();
      }
    }
  }

  /**
   * The directory {@code name} in this one. It is looked at without following a link, must be a
   * directory, and is then opened as {@code /proc/self/fd/N/name/.} (which can open nothing but a
   * directory, so never blocks on a FIFO); the opened directory must be the one looked at, or a link
   * was swapped in meanwhile and the walk is refused.
   */
  private Optional<SafeRoot> child(String name) throws IOException {
    Optional<Entry> entry = lookupHere(name);
    if (entry.isEmpty()) {
      return Optional.empty();
    }
    if (entry.get().kind() != EntryKind.DIRECTORY) {
      throw inTheWay(name, entry.get().kind().description(), null);
    }
    SafeRoot child;
    try {
      child = openDirectory(descriptorPath().resolve(name).resolve("."), path.resolve(name));
    } catch (NoSuchFileException e) {
      return Optional.empty();
    } catch (ControlException e) {
      if (e.reason() != Reason.UNSAFE_PATH) {
        throw e;
      }
      throw inTheWay(name, lookupHere(name).map(found -> found.kind().description())
          .orElse("gone"), e);
    }
    if (!child.fileKey.equals(entry.get().fileKey())) {
      child.close();
      throw inTheWay(name, "a directory that was replaced while it was walked (a link swapped in?)",
          null);
    }
    return Optional.of(child);
  }

  private ControlException inTheWay(String name, String what, IOException cause) {
    return new ControlException(Reason.UNSAFE_PATH, path.resolve(name) + " is " + what
        + ", where a directory was expected; it was not followed and nothing was read or changed"
        + " there: remove it, or name another directory", cause);
  }

  /**
   * What is at {@code relative}, without following a link; {@link Optional#empty()} when the entry
   * or a parent is missing.
   *
   * @throws ControlException {@code UNSAFE_PATH} when a link or non-directory is in the way above
   */
  public Optional<Entry> lookup(String relative) throws IOException {
    try (Target target = target(relative)) {
      return target == null ? Optional.empty() : target.root.lookupHere(target.name);
    }
  }

  private Optional<Entry> lookupHere(String name) throws IOException {
    BasicFileAttributes attributes;
    try {
      attributes = directory.getFileAttributeView(Path.of(name), BasicFileAttributeView.class,
          NOFOLLOW).readAttributes();
    } catch (NoSuchFileException e) {
      return Optional.empty();
    }
    EntryKind kind;
    if (attributes.isRegularFile()) {
      kind = EntryKind.REGULAR_FILE;
    } else if (attributes.isDirectory()) {
      kind = EntryKind.DIRECTORY;
    } else if (attributes.isSymbolicLink()) {
      kind = EntryKind.SYMBOLIC_LINK;
    } else {
      kind = otherKind(name);
    }
    return Optional.of(new Entry(kind, attributes.fileKey(), attributes.size(),
        attributes.lastModifiedTime()));
  }

  private EntryKind otherKind(String name) {
    try {
      Object mode = Files.getAttribute(descriptorPath().resolve(name), "unix:mode", NOFOLLOW);
      return mode instanceof Integer bits ? EntryKind.ofMode(bits) : EntryKind.SPECIAL_FILE;
    } catch (IOException | RuntimeException e) {
      return EntryKind.SPECIAL_FILE;
    }
  }

  /**
   * The bytes of the regular file at {@code relative}, at most {@code limit} of them;
   * {@link Optional#empty()} when it or a parent is missing. Never blocks on a FIFO, never creates.
   *
   * @throws ControlException {@code NOT_A_REGULAR_FILE} naming what is there (nothing was read);
   *     {@code READ_LIMIT_EXCEEDED} when more than {@code limit} bytes are there; {@code UNREADABLE}
   *     when the file system refuses to open it; {@code UNSAFE_PATH} for the path or a parent
   */
  public Optional<byte[]> read(String relative, int limit) throws IOException {
    if (limit < 0 || limit == Integer.MAX_VALUE) {
      throw new IllegalArgumentException("limit must be in [0, " + (Integer.MAX_VALUE - 1)
          + "], got " + limit);
    }
    try (Target target = target(relative)) {
      return target == null ? Optional.empty() : target.root.readHere(target.name, limit);
    }
  }

  private Optional<byte[]> readHere(String name, int limit) throws IOException {
    Path shown = path.resolve(name);
    Optional<Entry> entry = lookupHere(name);
    if (entry.isEmpty()) {
      return Optional.empty();
    }
    if (entry.get().kind() != EntryKind.REGULAR_FILE) {
      throw notRegular(shown, entry.get().kind());
    }
    return readOpened(name, limit);
  }

  /**
   * Opens and reads {@code name} without looking at it first: what {@link #read} does once the
   * lookup said "regular file", and all that stands between a FIFO swapped in at that moment and a
   * blocked reader. Package-private so that tests can take that path directly.
   */
  Optional<byte[]> readOpened(String name, int limit) throws IOException {
    // Channels are interruptible: without this an interrupted server thread would read its stop
    // request as a FIFO (the probe below fails on a channel closed by the interrupt).
    return Uninterruptible.call(() -> readOpenedOnce(name, limit));
  }

  private Optional<byte[]> readOpenedOnce(String name, int limit) throws IOException {
    Path shown = path.resolve(name);
    try (SeekableByteChannel channel = openForReading(name, shown)) {
      try {
        channel.position();
      } catch (ClosedByInterruptException e) {
        throw e; // an interrupt arrived meanwhile: the whole read is repeated
      } catch (IOException e) {
        // A FIFO (or another stream-like file) swapped in between the lookup and the open.
        throw notRegular(shown, EntryKind.FIFO);
      }
      ByteArrayOutputStream bytes = new ByteArrayOutputStream(Math.min(limit + 1, CHUNK));
      ByteBuffer buffer = ByteBuffer.allocate(Math.min(limit + 1, CHUNK));
      long wanted = (long) limit + 1;
      while (bytes.size() < wanted) {
        buffer.clear().limit((int) Math.min(buffer.capacity(), wanted - bytes.size()));
        int count = channel.read(buffer);
        if (count < 0) {
          break;
        }
        bytes.write(buffer.array(), 0, count);
      }
      if (bytes.size() > limit) {
        throw new ControlException(Reason.READ_LIMIT_EXCEEDED, shown + " holds more than " + limit
            + " bytes; only " + (limit + 1) + " were read and nothing was changed: it is not what"
            + " cryo writes there, remove it");
      }
      return Optional.of(bytes.toByteArray());
    } catch (NoSuchFileException e) {
      return Optional.empty();
    }
  }

  /**
   * Opens {@code name} for {@link #readOpened}: read-write (a FIFO then never blocks); when that is
   * refused and the entry is still a regular file, read-only, but only in a directory nobody but
   * this user or root may change ({@link DirectoryTrust}), whatever the cause (another user's file,
   * a read-only mount, an immutable file).
   *
   * <p>Why the open failed is never read from the exception's message: the C library words it in
   * the reader's language, the JDK in its own. The exception's type tells what the JDK types
   * ({@link NoSuchFileException}), and a look at what is there now ({@code lstat}, through the held
   * directory) tells the rest: a symbolic link ({@code ELOOP} under {@code O_NOFOLLOW}, a plain
   * {@link IOException} from the JDK) or another non-regular file is named as what it is.
   */
  private SeekableByteChannel openForReading(String name, Path shown) throws IOException {
    try {
      return directory.newByteChannel(Path.of(name), READ_WRITE);
    } catch (NoSuchFileException e) {
      throw e;
    } catch (IOException e) {
      Optional<Entry> now = lookupHere(name);
      if (now.isEmpty()) {
        throw new NoSuchFileException(shown.toString());
      }
      if (now.get().kind() != EntryKind.REGULAR_FILE) {
        throw notRegular(shown, now.get().kind());
      }
      readOnlyProbe.refusedReadWrite(shown);
      // Only a directory nobody but this user or root may change is safe to read read-only: a
      // FIFO swapped in would block a read-only open (a read-only bind mount does not prevent
      // that: the directory may be writable through another mount).
      if (!DirectoryTrust.onlyThisUserOrRootMayChange(directory, path)) {
        throw new ControlException(Reason.UNREADABLE, "cannot open " + shown + " read-write ("
            + Objects.requireNonNullElse(e.getMessage(), e.getClass().getSimpleName())
            + "), and it is not opened read-only because users other than this one and root may"
            + " change " + path + " (a FIFO swapped in would block the reader); nothing was read:"
            + " let this user write it, or keep the directory to this user or root", e);
      }
      return directory.newByteChannel(Path.of(name), READ_ONLY);
    }
  }

  private static ControlException notRegular(Path shown, EntryKind kind) {
    return new ControlException(Reason.NOT_A_REGULAR_FILE, shown + " is " + kind.description()
        + ", not a regular file; it was not followed or read and was left as it is: remove it");
  }

  /**
   * Removes the entry at {@code relative} (a file, a symbolic link itself, a FIFO, a socket).
   * Idempotent.
   *
   * @return whether an entry was removed; {@code false} when it or a parent was already missing
   * @throws ControlException {@code NOT_A_REGULAR_FILE} for a directory, which is kept
   */
  public boolean remove(String relative) throws IOException {
    try (Target target = target(relative)) {
      if (target == null) {
        return false;
      }
      try {
        target.root.directory.deleteFile(Path.of(target.name));
        return true;
      } catch (NoSuchFileException e) {
        return false;
      } catch (FileSystemException e) {
        Optional<Entry> entry = target.root.lookupHere(target.name);
        if (entry.isPresent() && entry.get().kind() == EntryKind.DIRECTORY) {
          throw new ControlException(Reason.NOT_A_REGULAR_FILE, target.root.path.resolve(
              target.name) + " is a directory; it was kept: remove it by hand", e);
        }
        throw e;
      }
    }
  }

  /**
   * Publishes {@code content} at {@code relative} with {@link Publication#tryPublish} (durable): a
   * reader sees it whole or not at all, and an existing entry (a symbolic link included) is
   * reported and never replaced. What is linked is published: a temporary that could not be
   * removed, or a directory that could not be forced, is said in the outcome (with the paths this
   * root was reached by), never thrown.
   *
   * @return the outcome: {@link Publication.Outcome#published} is {@code false} when an entry was
   *     already there
   * @throws NoSuchFileException when the parent directory is missing (nothing is created)
   * @throws ControlException {@code IO_FAILURE} when nothing was published
   */
  public Publication.Outcome publish(String relative, byte[] content) throws IOException {
    try (Target target = requiredTarget(relative)) {
      Path fd = target.root.descriptorPath();
      descriptorProbe.chosen(fd);
      Publication.Outcome outcome;
      try {
        outcome = Publication.tryPublish(fd.resolve(target.name), content, Durability.DURABLE);
      } catch (IOException e) {
        throw target.root.publicationFailure(fd, target.name, e);
      }
      return target.root.shown(fd, outcome);
    }
  }

  /**
   * Publishes {@code content} at {@code relative}: {@link #publish}, answering only whether it was
   * written.
   *
   * @return {@code true} when written, {@code false} when an entry was already there
   * @throws NoSuchFileException when the parent directory is missing (nothing is created)
   */
  public boolean publishExclusive(String relative, byte[] content) throws IOException {
    return publish(relative, content).published();
  }

  /**
   * Replaces whatever is at {@code relative} (never what a link there points to) with
   * {@code content} in one atomic rename ({@link Publication#replace}, durable). Once renamed it is
   * replaced: a directory that could not be forced is said in the outcome, never thrown.
   *
   * @throws NoSuchFileException when the parent directory is missing (nothing is created)
   * @throws ControlException {@code IO_FAILURE} when nothing was replaced
   */
  public Publication.Outcome replace(String relative, byte[] content) throws IOException {
    try (Target target = requiredTarget(relative)) {
      Path fd = target.root.descriptorPath();
      try {
        return target.root.shown(fd,
            Publication.replace(fd.resolve(target.name), content, Durability.DURABLE));
      } catch (IOException e) {
        throw target.root.publicationFailure(fd, target.name, e);
      }
    }
  }

  /** {@code outcome} with the paths through {@code fd} spelled as this root was reached. */
  private Publication.Outcome shown(Path fd, Publication.Outcome outcome) {
    return new Publication.Outcome(outcome.published(),
        outcome.temporaryLeft().map(left -> left.startsWith(fd)
            ? path.resolve(fd.relativize(left)) : left),
        outcome.notForced());
  }

  private ControlException publicationFailure(Path fd, String name, IOException e) {
    String message = Objects.requireNonNullElse(e.getMessage(), e.getClass().getSimpleName())
        .replace(fd.toString(), path.toString());
    return new ControlException(Reason.IO_FAILURE, "cannot write " + path.resolve(name) + ": "
        + message, e);
  }

  /** The names of the entries of this directory, in no particular order. */
  public List<String> names() throws IOException {
    List<String> names = new ArrayList<>();
    try (DirectoryStream<Path> entries = Files.newDirectoryStream(descriptorPath())) {
      for (Path entry : entries) {
        names.add(entry.getFileName().toString());
      }
    }
    return names;
  }

  /**
   * Removes the temporaries {@link Publication} left here for {@code targetName} by writers that are
   * provably gone (a crash between the link and the removal of the temporary leaves one); those of
   * live writers are kept.
   *
   * @return how many were removed
   */
  public int removeAbandonedTemporaries(String targetName, ProcessTable table) throws IOException {
    if (components(targetName).size() != 1) {
      throw unsafe("the name " + targetName + " (a name in this directory was expected)");
    }
    return Publication.removeAbandoned(descriptorPath(), targetName, table);
  }

  /**
   * Whether {@link #path()} still names this very directory (following links, as {@link #open}
   * did): {@code false} once it was moved, removed or replaced by something else.
   */
  public boolean isStillAtPath() {
    try {
      return fileKey.equals(Files.readAttributes(path, BasicFileAttributes.class).fileKey());
    } catch (IOException e) {
      return false;
    }
  }

  /**
   * Refuses when {@link #path()} no longer names this directory.
   *
   * @throws ControlException {@code ROOT_MOVED}
   */
  public void verifyIdentity() throws ControlException {
    if (!isStillAtPath()) {
      throw new ControlException(Reason.ROOT_MOVED, path + " no longer names the directory that"
          + " was opened (it was moved, removed or replaced); nothing was changed: open it again");
    }
  }

  /** Closes the directory. Idempotent. */
  @Override
  public void close() throws IOException {
    synchronized (DESCRIPTORS) {
      if (!closed) {
        closed = true;
        if (own != null) {
          OWN.remove(descriptor);
          own.close();
        }
      }
    }
    directory.close();
  }

  /**
   * {@code /proc/self/fd/N}, N this root's own descriptor of its directory: opened (relative to the
   * held directory, so it is the same one) at the first call, and closed only with the root. Any
   * other descriptor of the same directory (another root's, anybody's) may be closed meanwhile
   * and its number reused for another file, so none is ever borrowed.
   *
   * <p>The JDK does not tell a descriptor's number. The own descriptor is opened with a mark no
   * other opener of a directory uses ({@code O_DSYNC}, which changes nothing for a directory),
   * and found as the one descriptor of this directory with that mark that no other open root has
   * registered; the opening, finding and registering happen under one JVM-wide lock, as does the
   * closing and deregistering. Should anything else in the JVM hold a marked descriptor of the
   * same directory, the root refuses to guess ({@code IO_FAILURE}) rather than pick one.
   */
  Path descriptorPath() throws IOException {
    synchronized (DESCRIPTORS) {
      if (closed) {
        throw new ControlException(Reason.IO_FAILURE, "the root " + path + " is closed; nothing"
            + " was done: open it again");
      }
      if (own == null) {
        SeekableByteChannel opened = directory.newByteChannel(Path.of("."), MARKED);
        try {
          descriptor = findOwn();
        } catch (IOException | RuntimeException e) {
          opened.close();
          throw e;
        }
        own = opened;
        OWN.add(descriptor);
      }
      return PROC_FD.resolve(Integer.toString(descriptor));
    }
  }

  /** The number of the marked descriptor of this directory that no open root has registered. */
  private int findOwn() throws IOException {
    List<Integer> found = new ArrayList<>();
    try (DirectoryStream<Path> descriptors = Files.newDirectoryStream(PROC_FD)) {
      for (Path candidate : descriptors) {
        int number;
        try {
          number = Integer.parseInt(candidate.getFileName().toString());
        } catch (NumberFormatException e) {
          continue;
        }
        if (!OWN.contains(number) && sameDirectory(candidate) && marked(number)) {
          found.add(number);
        }
      }
    } catch (NoSuchFileException e) {
      throw new ControlException(Reason.IO_FAILURE, "no /proc/self/fd on this system; " + path
          + " cannot be written without following links and nothing was written: run on Linux", e);
    }
    if (found.size() != 1) {
      throw new ControlException(Reason.IO_FAILURE, (found.isEmpty() ? "no" : found.size())
          + " unregistered marked descriptors of " + path + " were found in /proc/self/fd, where"
          + " exactly one (this root's own) was expected; nothing was written: report this as a"
          + " bug");
    }
    return found.get(0);
  }

  /** Whether descriptor {@code number} was opened with the mark ({@code flags:} in fdinfo). */
  private static boolean marked(int number) {
    try {
      for (String line : Uninterruptible.call(() -> Files.readAllLines(
          Path.of("/proc/self/fdinfo", Integer.toString(number)), StandardCharsets.ISO_8859_1))) {
        if (line.startsWith("flags:")) {
          return (Integer.parseInt(line.substring("flags:".length()).strip(), 8) & MARK) != 0;
        }
      }
    } catch (IOException | RuntimeException e) {
      // gone meanwhile: not ours
    }
    return false;
  }

  private boolean sameDirectory(Path candidate) {
    try {
      BasicFileAttributes attributes = Files.readAttributes(candidate, BasicFileAttributes.class);
      return attributes.isDirectory() && fileKey.equals(attributes.fileKey());
    } catch (IOException | RuntimeException e) {
      return false;
    }
  }

  private Target target(String relative) throws IOException {
    List<String> parts = components(relative);
    if (parts.size() == 1) {
      return new Target(this, parts.get(0), false);
    }
    Optional<SafeRoot> parent = subroot(String.join("/", parts.subList(0, parts.size() - 1)));
    return parent.map(root -> new Target(root, parts.get(parts.size() - 1), true)).orElse(null);
  }

  private Target requiredTarget(String relative) throws IOException {
    Target target = target(relative);
    if (target == null) {
      throw new NoSuchFileException(path.resolve(relative).getParent().toString(), null,
          "the directory is missing; nothing was created");
    }
    return target;
  }

  /** The directory an operation acts in, and the single name it acts on. */
  private record Target(SafeRoot root, String name, boolean owned) implements AutoCloseable {
    @Override
    public void close() throws IOException {
      if (owned) {
        root.close();
      }
    }
  }
}
