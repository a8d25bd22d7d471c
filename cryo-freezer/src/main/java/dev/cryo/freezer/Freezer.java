package dev.cryo.freezer;

import dev.cryo.lock.DirectoryListing;
import dev.cryo.lock.FolderSemaphore;
import dev.cryo.lock.HolderRecords;
import dev.cryo.lock.LockException;
import dev.cryo.lock.LockRecord;
import dev.cryo.lock.NoFollowDirectory;
import dev.cryo.lock.SemaphoreHold;
import dev.cryo.lock.SpareFolders;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.ClosedDirectoryStreamException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileStore;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The freezer on disk: one root, one folder per user, and the only code that computes a path under
 * the root.
 *
 * <p>A user's folder is named by {@link FolderKeys#key} of the identity, forward only. It holds
 * {@value #USER_PARCEL} (the user's own store), one {@code connection-KEY.parcel} per connection
 * (the connection with its pages, {@code KEY} being the connection id's key), while he is awake
 * the user parcel his wake read, set aside as {@value #WOKEN_PARCEL}, and the semaphore
 * {@value FolderSemaphore#FILE_NAME} of {@link FolderSemaphore}. The commander's own parcel,
 * {@value #COMMANDER_PARCEL}, is a file at the root, which the sweep never sees because it only
 * looks at folders. Folders are created 0700 and parcels 0600.
 *
 * <p><b>The semaphore is the only coherence mechanism.</b> {@link #tryTakeSemaphore} tries once and
 * creates the folder; whoever holds it writes over the destination and a reader takes it before
 * looking, so nobody reads half a parcel. Through this freezer's own hold, a write goes into an
 * emptied spare file and renames it over the parcel's name, so the parcel appears whole (a crash
 * mid-write leaves a spare, never a torn parcel), and a drop renames the parcel to a spare and
 * empties it instead of removing it ({@link SpareParcels}: the spares are files of the user's folder
 * that travel with it when it is recycled; creating and removing a file per parcel was the dearest
 * part of a freeze and an adoption); without a spare at hand, or without a hold,
 * a write goes directly over the destination and a drop removes it. What a crash or a full
 * disk leaves half-written is caught by the envelope: it reads as a
 * {@link FreezerException.Reason#CORRUPT_PARCEL}, never as another payload. Writing needs the folder,
 * which only the semaphore creates; the freezer does not check who holds it. {@link #releaseSemaphore}
 * removes the folder when the lock was all it had left: the root holds the frozen and nothing else.
 *
 * <p><b>Folders are worked in by descriptor.</b> A take keeps the folder it took open
 * ({@link SemaphoreHold}): while this freezer holds a user's semaphore, every read, write and drop
 * of that user's parcels goes relative to that descriptor, so a folder swapped for a symbolic link
 * meanwhile carries nothing elsewhere; without a hold, each call opens the folder for itself and
 * refuses a link ({@link NoFollowDirectory}). Parcels are opened without following a link and
 * read-write (a FIFO swapped in never blocks), and read and written at explicit positions, which
 * anything but a regular file refuses. The release goes through the kept lockfile descriptor, and
 * does not look at the folder when the hold's last act in it was a write.
 *
 * <p><b>Folders are recycled.</b> A release whose folder holds nothing but its lock does not remove
 * the folder: it renames it, the lock still held, to a spare name at the root ({@link SpareFolders},
 * a dot name no key has, skipped by {@link #folderKeys}), then removes the lock inside it; the next
 * take of a missing folder writes its record into a spare and renames the spare to the folder's
 * name. The root then holds, beside the frozen, at most {@value SpareFolders#DEFAULT_CAPACITY} spare
 * folders per process, each carrying at most {@value SpareParcels#CAPACITY} emptied spare parcels
 * (those of a process that is gone are removed by the sweep, {@link #cleanupFrozen}, and by a
 * wipe); a frozen folder may hold, beside its parcels, the emptied spares its freeze did not need.
 * A {@code mkdir} and an {@code rmdir} per freeze and adoption cost many times two renames.
 *
 * <p><b>No lock file is made per hold.</b> This process's record for a holder name is written once
 * into {@value HolderRecords#DIRECTORY_NAME} at the root ({@link HolderRecords}: a dot name, which
 * no key has, skipped by {@link #folderKeys} and never forced) and each take links it as the
 * folder's {@value FolderSemaphore#FILE_NAME}; a release unlinks the link. The records of dead
 * processes are removed by the sweep ({@link #cleanupFrozen}), this process's own before a rename of
 * the root (nothing of it goes along), and all of them by a wipe.
 *
 * <p><b>Nothing is forced to disk on the way</b> (the package description says what survives what):
 * a freeze or a wake writes to the page cache and publishes its semaphore without a force. What
 * must survive a power loss is forced by {@link #forceUsers}, {@link #forceAll} and
 * {@link #renameRootDurably}, called by whoever records the freeze durably.
 *
 * <p>Reads answer an empty {@code Optional} when there is no such parcel. Drops ask for absence: what
 * is already gone is the same outcome, not an error.
 *
 * <p>Concurrency: every method is thread-safe and may run in several processes at once; the files
 * are the only shared state. An instance keeps the root's path, which {@link #renameRoot} changes
 * and which must not run while other calls on this instance are in flight, and the holds of the
 * semaphores it took (until they are released through it; a semaphore taken through one instance
 * and released through another is released by its path).
 */
public final class Freezer {

  /** The user's own store inside the user's folder. */
  public static final String USER_PARCEL = "user.parcel";

  /**
   * The user parcel a wake read, set aside in his folder ({@link #setAsideUserParcel}): kept until
   * the stay it began writes his own, never read by a wake, which reads {@value #USER_PARCEL}
   * alone. Whoever knows that stay was lost with its worker puts it back ({@link
   * #restoreWokenParcel}).
   */
  public static final String WOKEN_PARCEL = "woken.parcel";

  /** The start of a connection parcel's name; the connection id's key and {@value #PARCEL_SUFFIX} follow. */
  public static final String CONNECTION_PARCEL_PREFIX = "connection-";

  /** The end of every parcel's name. */
  public static final String PARCEL_SUFFIX = ".parcel";

  /** The commander's own parcel, a file at the root. */
  public static final String COMMANDER_PARCEL = "commander.parcel";

  /**
   * A note in a user's folder saying that the running application could not read his parcels (a
   * newer state version, a failed upgrade): written, with the parcels left as they are, by the
   * worker that tried; its header's cause says why; dropped by the wake that reads them.
   */
  public static final String UNREADABLE_NOTE = "unreadable.note";

  /**
   * The default cap on a parcel's length, envelope included (64 MiB): far above any user's state,
   * far below a heap. A file found bigger is refused without being read (a planted sparse file
   * cannot exhaust the heap); a payload that would make a bigger parcel is refused before anything
   * is written.
   */
  public static final int DEFAULT_MAX_PARCEL_LENGTH = 64 << 20;

  /** The highest cap {@link #Freezer(Path, ParcelCodec, int)} accepts: a Java array's bound. */
  public static final int MAX_PARCEL_LENGTH = Integer.MAX_VALUE - 64;

  private static final FileAttribute<Set<PosixFilePermission>> FOLDER_MODE =
      PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------"));
  private static final FileAttribute<Set<PosixFilePermission>> FILE_MODE =
      PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"));

  private static final Set<OpenOption> WRITE_OVER = Set.of(StandardOpenOption.READ,
      StandardOpenOption.WRITE, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
      LinkOption.NOFOLLOW_LINKS);
  private static final Set<OpenOption> READ_ONLY_SAFELY = Set.of(StandardOpenOption.READ,
      StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS);

  private final ParcelCodec codec;
  private final int maxParcelLength;
  /** This freezer's holds of semaphores, by folder key: the folders it works in by descriptor. */
  private final ConcurrentHashMap<String, Trip> trips = new ConcurrentHashMap<>();
  private volatile Path root;
  /** Empty folders at the root, kept by descriptor for the next take of a missing folder. */
  private volatile SpareFolders spares;
  /** This process's semaphore records at the root, one per holder name, linked as each lock. */
  private volatile HolderRecords records;

  /**
   * A freezer at {@code root} with the default {@link SmileCodec}; see {@link #Freezer(Path, ParcelCodec)}.
   *
   * @throws FreezerException when the root cannot be created or is not a directory
   */
  public Freezer(Path root) throws FreezerException {
    this(root, new SmileCodec());
  }

  /**
   * A freezer at {@code root}, created (0700, with its missing parents) when missing; an existing root
   * is used as it is. The root is resolved once, here, to its real path (symbolic links among its
   * components, the root itself included, are followed this once): from then on the freezer keeps
   * to that directory, and a wipe empties it rather than replacing a link with a directory.
   *
   * @param codec encodes every payload written and decodes every payload read
   * @throws FreezerException when the root cannot be created or is not a directory
   */
  public Freezer(Path root, ParcelCodec codec) throws FreezerException {
    this(root, codec, DEFAULT_MAX_PARCEL_LENGTH);
  }

  /**
   * A freezer at {@code root} (see {@link #Freezer(Path, ParcelCodec)}) whose parcels are at most
   * {@code maxParcelLength} bytes long, envelope included.
   *
   * @param maxParcelLength the cap, from 1 to {@link #MAX_PARCEL_LENGTH}
   * @throws IllegalArgumentException when the cap is out of range
   * @throws FreezerException when the root cannot be created or is not a directory
   */
  public Freezer(Path root, ParcelCodec codec, int maxParcelLength) throws FreezerException {
    if (maxParcelLength < 1 || maxParcelLength > MAX_PARCEL_LENGTH) {
      throw new IllegalArgumentException("a parcel cap must be between 1 and " + MAX_PARCEL_LENGTH
          + " bytes, not " + maxParcelLength);
    }
    this.maxParcelLength = maxParcelLength;
    this.codec = Objects.requireNonNull(codec, "codec");
    this.root = root.toAbsolutePath().normalize();
    createRoot();
    this.root = realPath(this.root);
    this.spares = new SpareFolders(this.root);
    this.records = new HolderRecords(this.root);
  }

  /** {@code path} resolved to its real path once, so that no later call follows a link again. */
  private static Path realPath(Path path) throws FreezerException {
    try {
      return path.toRealPath();
    } catch (IOException e) {
      throw ioFailure(path, "could not resolve the freezer root " + path + " to its real path", e);
    }
  }

  /** The root's current real path (it changes with {@link #renameRoot}). */
  public Path root() {
    return root;
  }

  /** The cap on a parcel's length, envelope included, in bytes. */
  public int maxParcelLength() {
    return maxParcelLength;
  }

  /** The codec this freezer writes and reads with. */
  public ParcelCodec codec() {
    return codec;
  }

  /** The folder key of {@code user}; the same as {@link FolderKeys#key}. */
  public static String key(String user) {
    return FolderKeys.key(user);
  }

  /** The folder of {@code user}, which may or may not exist. */
  public Path folder(String user) {
    return root.resolve(FolderKeys.key(user));
  }

  /** The file of one connection parcel of {@code user}, which may or may not exist. */
  public Path connectionParcel(String user, String connectionId) {
    return folder(user).resolve(connectionParcelName(connectionId));
  }

  private static String connectionParcelName(String connectionId) {
    return CONNECTION_PARCEL_PREFIX + FolderKeys.key(connectionId) + PARCEL_SUFFIX;
  }

  // ---------------------------------------------------------------- the semaphore

  /**
   * Tries once to take the semaphore of {@code user} for {@code holder}, creating the folder (0700)
   * when needed. Never waits: whoever finds it taken retries on its own schedule.
   *
   * @return {@code true} when it is now {@code holder}'s, {@code false} when somebody alive has it
   * @throws LockException when the semaphore or the folder cannot be used (see {@link FolderSemaphore#tryTake})
   */
  public boolean tryTakeSemaphore(String user, String holder) throws LockException {
    String key = FolderKeys.key(user);
    SemaphoreHold hold = FolderSemaphore.take(root.resolve(key), holder, spares, records);
    if (hold == null) {
      return false;
    }
    Trip stale = trips.put(key, new Trip(hold));
    if (stale != null) {
      stale.hold.abandon(); // its record was broken and taken again: nothing of it is ours now
    }
    return true;
  }

  /**
   * Gives the semaphore of {@code user} back; the folder goes with it when nothing else is left.
   * When this freezer took it, the release goes through the descriptors the take kept
   * ({@link SemaphoreHold}), and the folder is not looked at when this hold's last act in it was
   * a write (a freeze leaves its parcels there).
   *
   * @throws LockException when {@code holder} in this process does not hold it (nothing is changed)
   *     or the file system refuses (see {@link FolderSemaphore#release})
   */
  public void releaseSemaphore(String user, String holder) throws LockException {
    String key = FolderKeys.key(user);
    Trip trip = trips.get(key);
    if (trip == null || !trip.hold.isHeldBy(holder)) {
      FolderSemaphore.release(root.resolve(key), holder);
      return;
    }
    try {
      trip.hold.release(trip.wrote, spares, trip.parcels.vouched());
      trips.remove(key, trip);
    } catch (LockException e) {
      if (e.reason() != LockException.Reason.RELEASE_REFUSED) {
        trips.remove(key, trip); // not ours any more: the hold has dropped its descriptors
      }
      throw e;
    }
  }

  /**
   * Who holds the semaphore of {@code user} right now.
   *
   * @return the holder's record, or empty when it is free
   * @throws LockException when the lockfile cannot be read as a record
   */
  public Optional<LockRecord> semaphoreHolder(String user) throws LockException {
    return FolderSemaphore.holder(folder(user));
  }

  // ---------------------------------------------------------------- parcels

  /**
   * Writes the user's own store directly over whatever was there. The caller holds the semaphore.
   *
   * @param writer the name answering for the write; {@code cause} why; {@code group} the writer's group
   * @throws IllegalArgumentException when the codec does not map the payload (nothing was written)
   * @throws FreezerException {@link FreezerException.Reason#FOLDER_MISSING} when the semaphore was
   *     not taken; {@link FreezerException.Reason#PARCEL_TOO_LARGE} when the parcel would exceed
   *     {@link #maxParcelLength()} (nothing was written); {@link FreezerException.Reason#IO_FAILURE} when the write failed, full disk included
   *     (the parcel may then be torn and reads as corrupt; the other parcels and the semaphore are
   *     untouched)
   */
  public void writeUserParcel(String user, Object payload, String writer, String cause, String group)
      throws FreezerException {
    write(FolderKeys.key(user), USER_PARCEL, payload, writer, cause, group);
  }

  /**
   * Writes one connection of {@code user}, with its pages, directly over whatever was there; the same
   * contract as {@link #writeUserParcel}.
   */
  public void writeConnectionParcel(String user, String connectionId, Object payload, String writer,
      String cause, String group) throws FreezerException {
    write(FolderKeys.key(user), connectionParcelName(connectionId), payload, writer, cause, group);
  }

  /**
   * Writes the commander's own parcel at the root (its group is empty); the same contract as
   * {@link #writeUserParcel}, without a semaphore.
   */
  public void writeCommanderParcel(Object payload, String writer, String cause) throws FreezerException {
    write(null, COMMANDER_PARCEL, payload, writer, cause, "");
  }

  /**
   * Reads the user's own store. The caller holds the semaphore.
   *
   * @return the payload as written, or empty when there is no such parcel
   * @throws FreezerException {@link FreezerException.Reason#CORRUPT_PARCEL} for a torn or altered
   *     parcel, {@link FreezerException.Reason#PARCEL_TOO_LARGE} for a file longer than
   *     {@link #maxParcelLength()} (refused by its size, unread),
   *     {@link FreezerException.Reason#INVALID_PAYLOAD} when the codec refuses it,
   *     {@link FreezerException.Reason#NOT_A_REGULAR_FILE} when something else sits there; each names
   *     the file, and nothing is changed
   */
  public Optional<Object> readUserParcel(String user) throws FreezerException {
    return readPayload(FolderKeys.key(user), USER_PARCEL);
  }

  /** Reads one connection of {@code user}; the same contract as {@link #readUserParcel}. */
  public Optional<Object> readConnectionParcel(String user, String connectionId) throws FreezerException {
    return readPayload(FolderKeys.key(user), connectionParcelName(connectionId));
  }

  /** Reads the commander's own parcel; the same contract as {@link #readUserParcel}. */
  public Optional<Object> readCommanderParcel() throws FreezerException {
    return readPayload(null, COMMANDER_PARCEL);
  }

  /**
   * The header of the user's own store, read without decoding the payload: for counting and for the
   * operator, never a ground for a decision.
   *
   * @return the header, or empty when there is no such parcel
   * @throws FreezerException as {@link #readUserParcel}, for the header alone
   */
  public Optional<ParcelHeader> userParcelHeader(String user) throws FreezerException {
    return readHeader(FolderKeys.key(user), USER_PARCEL);
  }

  /**
   * The user parcel in the folder {@code key} and whose it says it is, for a start that looks at
   * folders its maps do not name: the identity is read from the payload ({@link ParcelTree#id}),
   * and a parcel whose identity does not give {@code key} back ({@link #key}) is refused, never
   * taken at its word.
   *
   * @param key a folder key, as {@link #folderKeys} lists them
   * @return the identity, header and payload; empty when the folder holds no user parcel
   * @throws FreezerException as {@link #readUserParcel}; {@link FreezerException.Reason#INVALID_PAYLOAD}
   *     when the payload names no identity, or one of another folder
   */
  public Optional<Owned> readUserParcelInFolder(String key) throws FreezerException {
    if (key.isEmpty() || key.startsWith(".") || key.indexOf('/') >= 0 || key.indexOf('\0') >= 0) {
      throw new IllegalArgumentException("'" + key + "' is not a folder key");
    }
    Optional<ParcelHeader> header = readHeader(key, USER_PARCEL);
    Optional<Object> payload = readPayload(key, USER_PARCEL);
    if (header.isEmpty() || payload.isEmpty()) {
      return Optional.empty();
    }
    Path file = fileOf(key, USER_PARCEL);
    String user = payload.get() instanceof Map<?, ?> map ? ParcelTree.id(map).orElse(null) : null;
    if (user == null || !FolderKeys.key(user).equals(key)) {
      throw new FreezerException(FreezerException.Reason.INVALID_PAYLOAD, file, "parcel " + file
          + " names " + (user == null ? "no user" : "the user '" + user + "', whose folder is "
          + FolderKeys.key(user)) + "; it was left as it is and taken for nobody's");
    }
    return Optional.of(new Owned(user, header.get(), payload.get()));
  }

  /**
   * The connection parcels in {@code user}'s folder, by the connection id each names
   * ({@link ParcelTree#id}): for the commander, which must find those a login tail handed over to
   * him without knowing their ids. A file whose payload names no id, or an id that does not give
   * the file's name back, is left out (never taken at its word), as is one that does not read.
   *
   * @return the payloads by connection id, sorted; empty when the folder holds none (or is none)
   * @throws FreezerException when the folder cannot be listed
   */
  public Map<String, Object> connectionParcelsOf(String user) throws FreezerException {
    String key = FolderKeys.key(user);
    List<String> names = new ArrayList<>();
    try {
      inFolder(key, directory -> {
        for (Path entry : directory) {
          String name = entry.getFileName().toString();
          if (name.startsWith(CONNECTION_PARCEL_PREFIX) && name.endsWith(PARCEL_SUFFIX)) {
            names.add(name);
          }
        }
        return null;
      }, () -> null);
    } catch (FreezerException e) {
      throw e;
    } catch (IOException e) {
      throw ioFailure(folder(user), "could not list the folder " + folder(user), e);
    }
    Map<String, Object> parcels = new java.util.TreeMap<>();
    for (String name : names) {
      Optional<Object> payload;
      try {
        payload = readPayload(key, name);
      } catch (FreezerException e) {
        continue;
      }
      if (payload.isPresent() && payload.get() instanceof Map<?, ?> map) {
        Optional<String> id = ParcelTree.id(map);
        if (id.isPresent() && connectionParcelName(id.get()).equals(name)) {
          parcels.put(id.get(), payload.get());
        }
      }
    }
    return parcels;
  }

  /**
   * A user parcel read from a folder the maps do not name ({@link #readUserParcelInFolder}).
   *
   * @param user whose it is: the identity its payload names, which gives the folder's key back
   * @param header its header
   * @param payload its payload, plain data
   */
  public record Owned(String user, ParcelHeader header, Object payload) {}

  /** The header of one connection parcel; the same contract as {@link #userParcelHeader}. */
  public Optional<ParcelHeader> connectionParcelHeader(String user, String connectionId)
      throws FreezerException {
    return readHeader(FolderKeys.key(user), connectionParcelName(connectionId));
  }

  /** The header of the commander's parcel; the same contract as {@link #userParcelHeader}. */
  public Optional<ParcelHeader> commanderParcelHeader() throws FreezerException {
    return readHeader(null, COMMANDER_PARCEL);
  }

  /**
   * Makes sure the user's own store is gone; already gone is the same outcome. The folder stays until
   * the semaphore is released.
   *
   * @throws FreezerException {@link FreezerException.Reason#IO_FAILURE} when the file system refuses
   */
  public void dropUserParcel(String user) throws FreezerException {
    drop(FolderKeys.key(user), USER_PARCEL);
  }

  /**
   * Sets the user parcel of {@code user} aside as his {@value #WOKEN_PARCEL} (one rename in his
   * folder, replacing an earlier one): a wake, having read it, keeps it for his worker's death
   * before his stay writes his own, where no later wake takes it for him. The caller holds the
   * semaphore. Nothing to set aside is the same outcome.
   *
   * @throws FreezerException {@link FreezerException.Reason#IO_FAILURE} when the file system refuses
   */
  public void setAsideUserParcel(String user) throws FreezerException {
    rename(FolderKeys.key(user), USER_PARCEL, WOKEN_PARCEL);
  }

  /**
   * Puts the {@value #WOKEN_PARCEL} of {@code user} back as his user parcel (one rename, replacing
   * whatever is there): the stay his wake began was lost with its worker before it wrote his own,
   * and he is frozen at it again. The caller holds the semaphore, or knows that nobody writes his
   * folder (his worker is dead and the maps give him to nobody else). Nothing to put back is the
   * same outcome.
   *
   * @throws FreezerException {@link FreezerException.Reason#IO_FAILURE} when the file system refuses
   */
  public void restoreWokenParcel(String user) throws FreezerException {
    rename(FolderKeys.key(user), WOKEN_PARCEL, USER_PARCEL);
  }

  /** Reads the {@value #WOKEN_PARCEL} of {@code user}; the same contract as {@link #readUserParcel}. */
  public Optional<Object> readWokenParcel(String user) throws FreezerException {
    return readPayload(FolderKeys.key(user), WOKEN_PARCEL);
  }

  /** Makes sure the {@value #WOKEN_PARCEL} of {@code user} is gone; as {@link #dropUserParcel}. */
  public void dropWokenParcel(String user) throws FreezerException {
    drop(FolderKeys.key(user), WOKEN_PARCEL);
  }

  /** Makes sure one connection parcel is gone; the same contract as {@link #dropUserParcel}. */
  public void dropConnectionParcel(String user, String connectionId) throws FreezerException {
    drop(FolderKeys.key(user), connectionParcelName(connectionId));
  }

  /** Makes sure the commander's parcel is gone; the same contract as {@link #dropUserParcel}. */
  public void dropCommanderParcel() throws FreezerException {
    drop(null, COMMANDER_PARCEL);
  }

  /**
   * Writes the {@value #UNREADABLE_NOTE} of {@code user}: his parcels could not be read by the
   * running application, {@code cause} says why (kept to the header's length). The caller holds
   * the semaphore; the same contract as {@link #writeUserParcel}, the parcels untouched.
   */
  public void writeUnreadableNote(String user, Object payload, String writer, String cause,
      String group) throws FreezerException {
    write(FolderKeys.key(user), UNREADABLE_NOTE, payload, writer, cause, group);
  }

  /**
   * The header of the {@value #UNREADABLE_NOTE} of {@code user}, whose cause says why his parcels
   * were not read; the same contract as {@link #userParcelHeader}.
   */
  public Optional<ParcelHeader> unreadableNoteHeader(String user) throws FreezerException {
    return readHeader(FolderKeys.key(user), UNREADABLE_NOTE);
  }

  /** Makes sure the {@value #UNREADABLE_NOTE} of {@code user} is gone; as {@link #dropUserParcel}. */
  public void dropUnreadableNote(String user) throws FreezerException {
    drop(FolderKeys.key(user), UNREADABLE_NOTE);
  }

  // ---------------------------------------------------------------- durability

  /**
   * Forces to disk what the freezer holds of each of {@code users} — his parcels (and an
   * {@value #UNREADABLE_NOTE}), his folder's entries — then the root's entries: once this returns,
   * what those folders held when it began survives a power loss. Nothing else the freezer does
   * forces anything (see the package description); this is the barrier a caller passes before it
   * records durably that these users are frozen. A user with no folder (woken or dropped meanwhile)
   * is skipped; his semaphore's lockfile is never forced. Many users are forced in parallel, or,
   * past a few dozen, by one {@code syncfs} of the root's file system (when the system offers it).
   *
   * <p>Thread-safe; may run beside any other call, in any process, holding no semaphore: it only
   * forces what is there.
   *
   * @return how many of them had a folder
   * @throws FreezerException {@link FreezerException.Reason#IO_FAILURE} when a force failed: what
   *     it names is not known to be on disk (every other folder was still forced)
   */
  public int forceUsers(Collection<String> users) throws FreezerException {
    TreeSet<String> keys = new TreeSet<>();
    for (String user : users) {
      keys.add(FolderKeys.key(user));
    }
    return Forcing.forceFolders(root, keys);
  }

  /**
   * Forces to disk everything the root holds: every folder's parcels and entries, the commander's
   * parcel, the root's entries; as {@link #forceUsers} for every folder at once (one {@code syncfs}
   * of the root's file system when there are more than a few dozen folders and the system offers
   * it).
   *
   * @return how many folders were forced
   * @throws FreezerException as {@link #forceUsers}, or when the root cannot be listed
   */
  public int forceAll() throws FreezerException {
    try (SecureDirectoryStream<Path> top = NoFollowDirectory.open(root)) {
      Forcing.forceEntry(top, Path.of(COMMANDER_PARCEL), root.resolve(COMMANDER_PARCEL));
      return Forcing.forceFolders(root, Forcing.folderKeys(root));
    } catch (FreezerException e) {
      throw e;
    } catch (IOException e) {
      throw ioFailure(root, "could not force the freezer root " + root + " to disk; what it holds"
          + " is not known to be on disk", e);
    }
  }

  /**
   * {@link #renameRoot}, made to survive a power loss on both sides: everything in the root is
   * forced first ({@link #forceAll}), so that the root never appears under its new name with a
   * parcel not on disk, and the directory holding the new name is forced after the rename, so that
   * the rename itself is on disk when this returns. What a drain's commit calls.
   *
   * @throws FreezerException as {@link #forceAll} (nothing was renamed) and {@link #renameRoot};
   *     {@link FreezerException.Reason#IO_FAILURE} when the rename was made but could not be forced
   *     (the root is at its new name; a power loss may undo the rename)
   */
  public void renameRootDurably(Path destination) throws FreezerException {
    forceAll();
    Path before = root.getParent();
    renameRoot(destination);
    Path after = root.getParent();
    try {
      Forcing.forceDirectory(after);
      if (before != null && !before.equals(after)) {
        Forcing.forceDirectory(before);
      }
    } catch (IOException e) {
      throw ioFailure(after, "the freezer root was renamed to " + root + ", but the rename could"
          + " not be forced to disk: a power loss may undo it", e);
    }
  }

  // ---------------------------------------------------------------- folders and the root

  /**
   * Removes everything {@code user} has in the freezer, semaphore included, and verifies it is gone.
   *
   * @return whether there was anything
   * @throws FreezerException {@link FreezerException.Reason#SURVIVED_REMOVAL} when the folder is
   *     still there afterwards (somebody took the semaphore meanwhile, or the file system refused)
   */
  public boolean dropUserFolder(String user) throws FreezerException {
    return dropFolder(FolderKeys.key(user));
  }

  /**
   * The sweep: removes every folder whose key nobody answers for, each verified gone, and the spare
   * folders and semaphore records of processes that are gone ({@link SpareFolders#removeAbandoned},
   * {@link HolderRecords#removeAbandoned}). The commander's
   * parcel and any other file at the root are never touched.
   *
   * @param claimedKeys the keys somebody still answers for, computed forward with {@link #key}
   * @return the keys swept, sorted
   * @throws FreezerException when a folder survives its removal (those before it are gone)
   */
  public List<String> cleanupFrozen(Set<String> claimedKeys) throws FreezerException {
    Objects.requireNonNull(claimedKeys, "claimedKeys");
    TreeSet<String> orphans = new TreeSet<>(folderKeys());
    orphans.removeAll(claimedKeys);
    for (String key : orphans) {
      dropFolder(key);
    }
    SpareFolders.removeAbandoned(root);
    HolderRecords.removeAbandoned(root);
    return List.copyOf(orphans);
  }

  /**
   * The sweep, with the candidates fixed beforehand: removes every folder of {@code seenKeys} (a
   * listing taken before the claims were computed) that {@code claimedKeys} does not name. A
   * folder that appeared after that listing is never a candidate. Each is dropped under its own
   * semaphore, taken once ({@link #dropUnheld}): one whose semaphore somebody alive holds, or
   * takes first, is kept, never dropped under its holder (a provably dead holder's is reclaimed and
   * the folder dropped).
   *
   * @return the keys swept, sorted
   * @throws FreezerException {@link FreezerException.Reason#IO_FAILURE} when a folder's semaphore
   *     or contents cannot be handled (those before it are gone)
   */
  public List<String> cleanupFrozen(Set<String> claimedKeys, Set<String> seenKeys)
      throws FreezerException {
    Objects.requireNonNull(claimedKeys, "claimedKeys");
    TreeSet<String> orphans = new TreeSet<>(seenKeys);
    orphans.retainAll(folderKeys());
    orphans.removeAll(claimedKeys);
    List<String> swept = new ArrayList<>(orphans.size());
    for (String key : orphans) {
      if (dropUnheld(key)) {
        swept.add(key);
      }
    }
    SpareFolders.removeAbandoned(root);
    HolderRecords.removeAbandoned(root);
    return List.copyOf(swept);
  }

  /** The holder the sweep takes an orphan folder's semaphore as. */
  private static final String SWEEPER = "sweep";

  /**
   * Drops the folder of {@code key} while holding its semaphore, so that nobody takes it between a
   * look and the removal: the semaphore is taken once (a folder gone meanwhile is made again by
   * the take, and goes again), every entry but the lock and its temporaries removed relative to
   * the folder held, and the release removes the lock and then the folder when nothing is left (a
   * take that came in after the lock went keeps the folder: it is its taker's now).
   *
   * @return whether it was dropped; false when somebody alive holds its semaphore (a hold of
   *     this freezer's own included)
   */
  private boolean dropUnheld(String key) throws FreezerException {
    Path folder = root.resolve(key);
    try {
      SemaphoreHold hold = FolderSemaphore.take(folder, SWEEPER);
      if (hold == null) {
        return false; // its holder is at work in it
      }
      try (SecureDirectoryStream<Path> entries = hold.directory()
          .newDirectoryStream(Path.of("."), LinkOption.NOFOLLOW_LINKS)) {
        for (Path entry : entries) {
          String name = entry.getFileName().toString();
          if (name.startsWith(FolderSemaphore.FILE_NAME)) {
            continue; // the lock held, and its temporaries: the release sees to them
          }
          try {
            entries.deleteFile(entry.getFileName());
          } catch (NoSuchFileException e) {
            // gone already
          } catch (IOException e) { // a directory, which no freeze makes: removed by its path
            deleteTree(folder.resolve(name));
          }
        }
      }
      hold.release(false);
      return true;
    } catch (FreezerException e) {
      throw e;
    } catch (IOException e) { // the semaphore refused (a lock exception among them) or the listing
      throw ioFailure(folder, "the sweep could not drop the orphan folder " + folder + " under its"
          + " semaphore; what is left in it stays", e);
    }
  }

  /**
   * The keys of every folder at the root: real directories only, unopened; files, symbolic links
   * and the empty spare folders a release keeps for the next take ({@link SpareFolders}, whose
   * names start with a dot, which no key does) are not folders.
   *
   * @throws FreezerException when the root cannot be listed
   */
  public Set<String> folderKeys() throws FreezerException {
    Set<String> keys = new TreeSet<>();
    try (DirectoryStream<Path> entries = DirectoryListing.open(root)) {
      for (Path entry : entries) {
        String name = entry.getFileName().toString();
        if (!SpareFolders.isSpareName(name) && !HolderRecords.isRecordsName(name)
            && Files.isDirectory(entry, LinkOption.NOFOLLOW_LINKS)) {
          keys.add(name);
        }
      }
    } catch (IOException e) {
      throw ioFailure(root, "could not list the freezer root " + root, e);
    }
    return keys;
  }

  /**
   * Empties the root and stands it up again, bare and 0700: what every start does first.
   *
   * @throws FreezerException when something survives
   */
  public void wipeRoot() throws FreezerException {
    abandonTrips(null);
    spares.clear();
    records.clear();
    deleteTree(root);
    createRoot();
    Set<String> left;
    try (var entries = Files.list(root)) {
      left = new TreeSet<>(entries.map(p -> p.getFileName().toString()).toList());
    } catch (IOException e) {
      throw ioFailure(root, "could not list the wiped root " + root, e);
    }
    if (!left.isEmpty()) {
      throw new FreezerException(FreezerException.Reason.SURVIVED_REMOVAL, root, "the freezer root "
          + root + " still holds " + left + " after its wipe (something wrote into it meanwhile);"
          + " stop what writes there and wipe again");
    }
  }

  /**
   * Removes the root itself, whole, and verifies it is gone; a root already gone is the same outcome.
   *
   * @throws FreezerException when it survives
   */
  public void dropRoot() throws FreezerException {
    abandonTrips(null);
    spares.clear();
    records.clear();
    deleteTree(root);
    if (Files.exists(root, LinkOption.NOFOLLOW_LINKS)) {
      throw new FreezerException(FreezerException.Reason.SURVIVED_REMOVAL, root, "the freezer root "
          + root + " survived its removal (something wrote into it meanwhile); stop it and drop again");
    }
  }

  /**
   * Moves the whole root to {@code destination} in one atomic rename, and follows it: this freezer
   * works at the new name afterwards. Never copies: a root that appears under its new name is complete.
   *
   * <p>The operating system's rename silently replaces an empty directory, so the destination is
   * first claimed by creating it (exclusively, 0700) and the root then renamed over that claim: a
   * destination that exists, or appears, is refused, never replaced.
   *
   * @param destination a path that does not exist yet, on the same file system, whose parent exists
   * @throws FreezerException {@link FreezerException.Reason#RENAME_REFUSED} when the destination exists
   *     or is on another file system (the cause is then an {@link AtomicMoveNotSupportedException});
   *     the root stays where it was, whole, and this freezer keeps working there
   */
  public void renameRoot(Path destination) throws FreezerException {
    Path target = destination.toAbsolutePath().normalize();
    try {
      Files.createDirectory(target, FOLDER_MODE);
    } catch (FileAlreadyExistsException e) {
      throw new FreezerException(FreezerException.Reason.RENAME_REFUSED, target, "cannot rename the"
          + " freezer root " + root + " to " + target + ": it already exists; nothing was moved:"
          + " choose a new name or remove it first", e);
    } catch (IOException e) {
      throw ioFailure(target, "could not create the destination " + target + " of the freezer"
          + " root " + root + "; the root stays where it is", e);
    }
    spares.clear(); // the spares stay behind, not in the root that moves
    records.removeOwn(); // and so do this process's semaphore records
    try {
      Files.move(root, target, StandardCopyOption.ATOMIC_MOVE);
    } catch (AtomicMoveNotSupportedException e) {
      removeClaim(target);
      throw new FreezerException(FreezerException.Reason.RENAME_REFUSED, target, "cannot rename the"
          + " freezer root " + root + " to " + target + " in one atomic step (another file system?);"
          + " nothing was moved or copied and the root stays where it is: choose a destination on"
          + " the same file system", e);
    } catch (DirectoryNotEmptyException e) {
      throw new FreezerException(FreezerException.Reason.RENAME_REFUSED, target, "cannot rename the"
          + " freezer root " + root + " to " + target + ": something was written into the"
          + " destination while it was being claimed; nothing was moved and the destination was"
          + " left as it is: find who writes there", e);
    } catch (IOException e) {
      removeClaim(target);
      throw ioFailure(target, "could not rename the freezer root " + root + " to " + target
          + "; the root stays where it is", e);
    }
    try {
      root = target.toRealPath();
    } catch (IOException e) {
      root = target; // moved whole; its parent could not be resolved again, and keeps its spelling
    }
    spares = new SpareFolders(root);
    records = new HolderRecords(root);
  }

  /** Removes the empty destination a refused rename had claimed; one not empty stays. */
  private static void removeClaim(Path target) {
    try {
      Files.deleteIfExists(target);
    } catch (IOException e) {
      // Not empty (somebody wrote there) or not ours to remove: it stays, and the refusal says why.
    }
  }

  /**
   * How much of the file system the freezer lives on is still free for this process, in percent of
   * the whole file system (not of the freezer's own size: what runs out is the storage).
   *
   * @throws FreezerException when the file system cannot be asked
   */
  public double storageFreePercent() throws FreezerException {
    try {
      FileStore store = Files.getFileStore(root);
      long total = store.getTotalSpace();
      return total == 0 ? 0.0 : 100.0 * store.getUsableSpace() / total;
    } catch (IOException e) {
      throw ioFailure(root, "could not ask the file system of " + root + " for its free space", e);
    }
  }

  // ---------------------------------------------------------------- internals

  private void createRoot() throws FreezerException {
    try {
      Path parent = root.getParent();
      if (parent != null) {
        Files.createDirectories(parent);
      }
      Files.createDirectory(root, FOLDER_MODE);
    } catch (FileAlreadyExistsException e) {
      if (!Files.isDirectory(root)) {
        throw new FreezerException(FreezerException.Reason.NOT_A_REGULAR_FILE, root, "the freezer"
            + " root " + root + " exists and is not a directory; nothing was changed: move it away"
            + " or choose another root");
      }
    } catch (IOException e) {
      throw ioFailure(root, "could not create the freezer root " + root, e);
    }
  }

  /** Work done in one folder, relative to its descriptor. */
  @FunctionalInterface
  private interface FolderWork<T> {
    T run(SecureDirectoryStream<Path> directory) throws IOException;
  }

  /** What a call answers when the folder it works in does not exist. */
  @FunctionalInterface
  private interface WhenMissing<T> {
    T answer() throws FreezerException;
  }

  /**
   * Runs {@code work} relative to the folder of {@code key} (the root when null): through the
   * descriptor of this freezer's hold of the folder's semaphore when it has one, else through the
   * folder opened for this call alone, never through a symbolic link ({@link NoFollowDirectory}).
   */
  private <T> T inFolder(String key, FolderWork<T> work, WhenMissing<T> whenMissing)
      throws IOException {
    Trip trip = key == null ? null : trips.get(key);
    if (trip != null) {
      try {
        return work.run(trip.hold.directory());
      } catch (ClosedDirectoryStreamException e) {
        // released meanwhile by another thread: work in the folder as it is now
      }
    }
    Path folder = key == null ? root : root.resolve(key);
    SecureDirectoryStream<Path> directory;
    try {
      directory = NoFollowDirectory.open(folder);
    } catch (NoSuchFileException e) {
      return whenMissing.answer();
    } catch (NotDirectoryException e) {
      throw new FreezerException(FreezerException.Reason.NOT_A_REGULAR_FILE, folder, "the freezer"
          + " folder " + folder + " is not a directory (" + e.getMessage() + "); nothing was"
          + " done in it and it was not followed: remove it by hand");
    }
    try (directory) {
      return work.run(directory);
    }
  }

  private Path fileOf(String key, String name) {
    return (key == null ? root : root.resolve(key)).resolve(name);
  }

  private void write(String key, String name, Object payload, String writer, String cause,
      String group) throws FreezerException {
    Path file = fileOf(key, name);
    byte[] bytes = ParcelFormat.encode(
        new ParcelHeader(writer, Instant.now(), cause, group, codec.name()), codec.encode(payload));
    if (bytes.length > maxParcelLength) {
      throw new FreezerException(FreezerException.Reason.PARCEL_TOO_LARGE, file, "cannot write "
          + file + ": the parcel would be " + bytes.length + " bytes long, above this freezer's cap"
          + " of " + maxParcelLength + " bytes; nothing was written and what was there is kept:"
          + " keep less state, or raise the cap");
    }
    try {
      inFolder(key, directory -> {
        Trip trip = key == null ? null : trips.get(key);
        if (trip != null && directory == trip.hold.directory()) {
          Path entry = Path.of(name);
          // Through a spare, else through a new file made for it: never over the parcel already
          // there, which a refused write (a full disk) or a crash mid-write would leave emptied or
          // torn; it is replaced only by a whole one.
          if (!trip.parcels.place(directory, entry, bytes)) {
            try {
              trip.parcels.placeFresh(directory, entry, bytes);
            } catch (IOException e) {
              throw ioFailure(file, "writing " + file + " failed; nothing was written at its name"
                  + " and the parcel there before, if any, is kept whole; the other parcels and"
                  + " the semaphore were not touched: free space or fix the cause, then write it"
                  + " again", e);
            }
          }
          trip.wrote = true; // written whole into a spare, renamed over the name
          return null;
        }
        writeIn(directory, name, file, bytes, trip);
        return null;
      }, () -> {
        throw folderMissing(file, null);
      });
    } catch (FreezerException e) {
      throw e;
    } catch (IOException e) {
      throw ioFailure(file, "writing " + file + " failed; it may be torn and will then read as a"
          + " corrupt parcel; the other parcels and the semaphore were not touched: free space or"
          + " fix the cause, then write it again or drop it", e);
    }
  }

  /**
   * Writes {@code bytes} directly over {@code name}. Opened read-write (a FIFO swapped in then opens
   * without waiting for a reader) and never through a link; written at explicit positions, which
   * anything but a regular file refuses.
   */
  private static void writeIn(SecureDirectoryStream<Path> directory, String name, Path file,
      byte[] bytes, Trip trip) throws IOException {
    Path entry = Path.of(name);
    FileChannel channel;
    try {
      channel = (FileChannel) directory.newByteChannel(entry, WRITE_OVER, FILE_MODE);
    } catch (NoSuchFileException e) {
      throw folderMissing(file, e);
    } catch (IOException e) {
      throw notRegularOr(directory, entry, file, "nothing was written", e);
    }
    if (trip != null) {
      trip.wrote = true; // the file is there now, whatever happens to the write
    }
    try (channel) {
      ByteBuffer buffer = ByteBuffer.wrap(bytes);
      while (buffer.hasRemaining()) {
        channel.write(buffer, buffer.position());
      }
    } catch (IOException e) {
      throw notRegularOr(directory, entry, file, "nothing was written", e);
    }
  }

  private Optional<Object> readPayload(String key, String name) throws FreezerException {
    Path file = fileOf(key, name);
    Optional<Read> bytes = readBytes(key, name, file, true);
    if (bytes.isEmpty()) {
      return Optional.empty();
    }
    Read read = bytes.get();
    ParcelFormat.Span parcel = ParcelFormat.decodeInPlace(file, read.bytes(), read.length());
    String written = parcel.header().codec();
    if (!written.equals(codec.name())) {
      throw new FreezerException(FreezerException.Reason.INVALID_PAYLOAD, file, "parcel " + file
          + " was written with the codec '" + written + "' and this freezer reads '" + codec.name()
          + "'; it was left as it is: read it with that codec, or drop it");
    }
    try {
      return Optional.ofNullable(codec.decode(read.bytes(), parcel.offset(), parcel.length()));
    } catch (IOException | RuntimeException e) {
      throw new FreezerException(FreezerException.Reason.INVALID_PAYLOAD, file, "the payload of "
          + file + " is whole but the codec '" + written + "' refuses it (" + e.getMessage()
          + "); it was left as it is and nothing was instantiated: drop it", e);
    }
  }

  private Optional<ParcelHeader> readHeader(String key, String name) throws FreezerException {
    Path file = fileOf(key, name);
    Optional<Read> prefix = readBytes(key, name, file, false);
    return prefix.isEmpty() ? Optional.empty()
        : Optional.of(ParcelFormat.decodeHeader(file, prefix.get().bytes(), prefix.get().length()));
  }

  /**
   * The bytes of a parcel: the whole file when {@code whole} (a file longer than the cap is
   * refused, by its size before anything is read and by what is read should it grow), else its
   * first {@link ParcelFormat#HEADER_PREFIX_LENGTH} bytes.
   */
  private Optional<Read> readBytes(String key, String name, Path file, boolean whole)
      throws FreezerException {
    try {
      return inFolder(key, directory -> readIn(directory, name, file, whole), Optional::empty);
    } catch (FreezerException e) {
      throw e;
    } catch (IOException e) {
      throw ioFailure(file, "could not read " + file + "; it was left as it is", e);
    }
  }

  private Optional<Read> readIn(SecureDirectoryStream<Path> directory, String name, Path file,
      boolean whole) throws IOException {
    Path entry = Path.of(name);
    FileChannel channel;
    try {
      // Read-write, so that a FIFO swapped in opens without waiting for a writer (and then fails
      // the positional read); never through a link.
      channel = (FileChannel) directory.newByteChannel(entry, READ_ONLY_SAFELY);
    } catch (NoSuchFileException e) {
      return Optional.empty();
    } catch (IOException e) {
      throw notRegularOr(directory, entry, file, "nothing was read", e);
    }
    try (channel) {
      long size = channel.size();
      if (whole && size > maxParcelLength) {
        throw tooLarge(file, size);
      }
      int limit = whole ? maxParcelLength : ParcelFormat.HEADER_PREFIX_LENGTH;
      Read bytes = readAtMost(channel, limit, size);
      if (whole && bytes.length() > maxParcelLength) {
        throw tooLarge(file, bytes.length());
      }
      return Optional.of(bytes);
    } catch (FreezerException e) {
      throw e;
    } catch (IOException e) {
      throw notRegularOr(directory, entry, file, "nothing was read", e);
    }
  }

  /** The first {@code length} bytes of {@code bytes}: what a read found, not copied out. */
  private record Read(byte[] bytes, int length) {}

  /**
   * Reads from the start, up to {@code limit} bytes, plus one to see a file longer than that: one
   * positional read of the size the file had when looked at (plus one byte, to see it grow) ends
   * the usual read, since a short read of a regular file is its end; the array grows only when the
   * file grew meanwhile. What was read is the first bytes of the array, never copied to fit.
   */
  private static Read readAtMost(FileChannel channel, int limit, long expected)
      throws IOException {
    int room = (int) Math.min((long) limit + 1, Math.max(0, expected) + 1);
    ByteBuffer buffer = ByteBuffer.allocate(room);
    while (true) {
      int read = channel.read(buffer, buffer.position());
      if (read < 0 || (buffer.hasRemaining() && buffer.position() >= expected)) {
        return new Read(buffer.array(), buffer.position());
      }
      if (!buffer.hasRemaining()) {
        if (buffer.capacity() > limit) {
          return new Read(buffer.array(), buffer.capacity());
        }
        int grown = (int) Math.min((long) limit + 1, buffer.capacity() * 2L);
        buffer = ByteBuffer.wrap(Arrays.copyOf(buffer.array(), grown)).position(buffer.position());
      }
    }
  }

  private void rename(String key, String from, String to) throws FreezerException {
    Path file = fileOf(key, from);
    try {
      inFolder(key, directory -> {
        try {
          directory.move(Path.of(from), directory, Path.of(to));
        } catch (NoSuchFileException e) {
          // nothing there: the same outcome
        }
        return null;
      }, () -> null);
    } catch (FreezerException e) {
      throw e;
    } catch (IOException e) {
      throw ioFailure(file, "could not rename " + file + " to " + to + "; it is as it was", e);
    }
  }

  private void drop(String key, String name) throws FreezerException {
    Path file = fileOf(key, name);
    try {
      inFolder(key, directory -> {
        Trip held = key == null ? null : trips.get(key);
        if (held == null || directory != held.hold.directory()
            || !held.parcels.keep(directory, Path.of(name))) {
          try {
            directory.deleteFile(Path.of(name));
          } catch (NoSuchFileException e) {
            // already gone: the same outcome
          }
        }
        Trip trip = key == null ? null : trips.get(key);
        if (trip != null) {
          trip.wrote = false; // the folder may be empty now: the release looks
        }
        return null;
      }, () -> null);
    } catch (FreezerException e) {
      throw e;
    } catch (IOException e) {
      throw ioFailure(file, "could not remove " + file + "; it is still there", e);
    }
  }

  /**
   * The failure {@code e} of an open, read or write of {@code entry}: {@link
   * FreezerException.Reason#NOT_A_REGULAR_FILE} when what is there is not a regular file (one look,
   * relative to the folder, without following a link), else {@code e} itself.
   */
  private static IOException notRegularOr(SecureDirectoryStream<Path> directory, Path entry,
      Path file, String kept, IOException e) {
    try {
      BasicFileAttributes found = directory.getFileAttributeView(entry,
          BasicFileAttributeView.class, LinkOption.NOFOLLOW_LINKS).readAttributes();
      if (!found.isRegularFile()) {
        return notRegular(file, kept);
      }
    } catch (IOException look) {
      e.addSuppressed(look);
    }
    return e;
  }

  private static FreezerException folderMissing(Path file, IOException e) {
    return new FreezerException(FreezerException.Reason.FOLDER_MISSING, file, "cannot write " + file
        + ": its folder does not exist; nothing was written: take the user's semaphore first"
        + " (it creates the folder)", e);
  }

  private FreezerException tooLarge(Path file, long size) {
    return new FreezerException(FreezerException.Reason.PARCEL_TOO_LARGE, file, "parcel " + file
        + " is " + (size > maxParcelLength ? "at least " + size : "more than " + maxParcelLength)
        + " bytes long, above this freezer's cap of " + maxParcelLength + " bytes; it was left as"
        + " it is and not read: drop it, or read it with a freezer whose cap is higher");
  }

  /** Drops the descriptors of every hold of this freezer for {@code key} (null: all of them). */
  private void abandonTrips(String key) {
    for (var entry : trips.entrySet()) {
      if (key == null || entry.getKey().equals(key)) {
        if (trips.remove(entry.getKey(), entry.getValue())) {
          entry.getValue().hold.abandon();
        }
      }
    }
  }

  /**
   * A hold of this freezer, whether its last act in the folder was a write, and the emptied parcel
   * files it keeps in the folder ({@link SpareParcels}).
   */
  private static final class Trip {
    final SemaphoreHold hold;
    final SpareParcels parcels;
    volatile boolean wrote;

    Trip(SemaphoreHold hold) {
      this.hold = hold;
      this.parcels = new SpareParcels(hold.carriedFiles());
    }
  }

  private boolean dropFolder(String key) throws FreezerException {
    abandonTrips(key);
    Path folder = root.resolve(key);
    boolean wasThere = Files.exists(folder, LinkOption.NOFOLLOW_LINKS);
    deleteTree(folder);
    if (Files.exists(folder, LinkOption.NOFOLLOW_LINKS)) {
      throw new FreezerException(FreezerException.Reason.SURVIVED_REMOVAL, folder, "the freezer folder "
          + folder + " survived its removal (somebody took its semaphore meanwhile?); what is left in"
          + " it stays: drop it again once nobody works in it");
    }
    return wasThere;
  }

  /** Removes a tree without following symbolic links; what is already gone is skipped. */
  private static void deleteTree(Path top) throws FreezerException {
    try {
      Files.walkFileTree(top, new SimpleFileVisitor<>() {
        @Override
        public FileVisitResult visitFile(Path file, BasicFileAttributes attributes) throws IOException {
          Files.deleteIfExists(file);
          return FileVisitResult.CONTINUE;
        }

        @Override
        public FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
          if (e instanceof NoSuchFileException) {
            return FileVisitResult.CONTINUE;
          }
          throw e;
        }

        @Override
        public FileVisitResult postVisitDirectory(Path directory, IOException e) throws IOException {
          if (e != null && !(e instanceof NoSuchFileException)) {
            throw e;
          }
          Files.deleteIfExists(directory);
          return FileVisitResult.CONTINUE;
        }
      });
    } catch (IOException e) {
      throw ioFailure(top, "could not remove " + top + " whole; what is left stays", e);
    }
  }

  private static FreezerException notRegular(Path file, String kept) {
    return new FreezerException(FreezerException.Reason.NOT_A_REGULAR_FILE, file, file + " is not a"
        + " regular file (a symbolic link, a directory, a FIFO?); " + kept + " and it was left as it"
        + " is: remove it by hand");
  }

  private static FreezerException ioFailure(Path file, String what, IOException e) {
    return new FreezerException(FreezerException.Reason.IO_FAILURE, file,
        what + ": " + e.getClass().getSimpleName() + " " + e.getMessage(), e);
  }
}
