package dev.cryo.lock;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HexFormat;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The semaphore records one process publishes once per holder name in a directory of folders, so
 * that a take of a {@link FolderSemaphore} is one {@code link(2)} of that record to the folder's
 * {@value FolderSemaphore#FILE_NAME} and a release one {@code unlink(2)} of that link: no file is
 * created or freed per hold (on ext4 a freed inode is paid again by every allocation of the next
 * minute).
 *
 * <p><b>Where.</b> The records live in {@value #DIRECTORY_NAME} inside the folders' parent: the same
 * file system (a hard link cannot cross one), and a name with a dot, which no folder key has
 * ({@link #isRecordsName}: every listing of folders skips it). The directory is made 0700 and used only
 * when a look that follows no link finds a real directory there; a record file is named
 * {@code PID.HEX} (a fresh random {@code HEX} per record, never reused), created exclusively, 0600,
 * written whole, given a modification time one second before the last whole second (a time no
 * later write can give it) and forced once, before it is ever linked: a record is never seen
 * half-written.
 *
 * <p><b>Kept open while held.</b> A record's descriptor is open while at least one hold made from it
 * is outstanding (opened by the first, closed by the last; no descriptor outlives the holds): the
 * record's inode cannot be freed meanwhile, so its number cannot come back as another file's while
 * a hold compares a folder's lock with it by file key (device and inode). A release takes the
 * kernel record lock through that descriptor (against a remover of another process), under a JVM
 * lock of the record ({@link Published#releasing}): every hold of one record shares its inode, the
 * JVM forbids two overlapping locks of one file, and closing any descriptor of it drops them all.
 *
 * <p><b>Retired.</b> A record whose file is no longer at its name (removed or replaced by hand, a
 * wipe), that cannot take another link, or that {@link #clear} or {@link #removeOwn} forgot, is
 * retired: the next take publishes a fresh one, the retired one takes no new hold, and the holds
 * made from it still release.
 *
 * <p><b>Cleaned.</b> A record file stays while its process lives (even with no link left: the next
 * take links it again). Those of processes proven dead (by the same proof of death as a lockfile,
 * {@link HolderVerdict}), and files that do not parse and have not changed for the malformed grace,
 * are removed by {@link #removeAbandoned}, which the freezer's sweep runs and the first publication
 * of each instance runs once; a dead holder's {@code .lock} links go as any dead holder's lockfile
 * (reclaimed by the next taker, or by {@code cryo lock break}), the inode with the last of them.
 * Anything else at a record's place (a directory, a link, a FIFO) is left alone.
 *
 * <p>Thread-safe.
 */
public final class HolderRecords {

  /** The records' directory's name inside the folders' parent. */
  public static final String DIRECTORY_NAME = ".records";

  private static final LazyLog LOG = new LazyLog(HolderRecords.class);
  private static final long PID = ProcessHandle.current().pid();
  private static final FileAttribute<?> PRIVATE_FOLDER =
      PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------"));
  private static final FileAttribute<?> PRIVATE_FILE =
      PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"));

  /** A test seam: called after a record is written and before it is forced. */
  interface WriteProbe {
    void written(Path record) throws IOException;
  }

  static volatile WriteProbe writeProbe = record -> { };

  /**
   * The {@link Published#releasing} locks of this process's records, by file key, for whoever
   * opens such a file in this JVM ({@link #releasingOf}). An entry lives from its record's
   * publication until the record is retired ({@link #retire}, {@link #clear}, {@link #removeOwn})
   * and its last hold is given back: a retired record takes no new hold, so it never needs its
   * entry again, and an inode number freed with its file cannot alias a later file. The map
   * therefore holds one entry per holder name of each records instance in use (one dropped
   * without {@link #clear} keeps its entries, as it keeps its record files), plus the retired
   * records that still have holds; not one per record ever published (every wipe, move or
   * retirement publishes fresh ones).
   */
  private static final Map<Object, ReentrantLock> OWN = new ConcurrentHashMap<>();

  private final Path parent;
  private final Path directory;
  private final Map<String, Published> byHolder = new ConcurrentHashMap<>();
  private volatile boolean cleaned;

  /**
   * The records of this process for the folders of {@code parent} (nothing is touched until the
   * first take).
   *
   * @param parent the folders' parent, a real path (the caller resolved it once)
   */
  public HolderRecords(Path parent) {
    this.parent = Objects.requireNonNull(parent, "parent").toAbsolutePath().normalize();
    this.directory = this.parent.resolve(DIRECTORY_NAME);
  }

  /** Whether {@code name}, an entry of the folders' parent, is the records' directory: no folder. */
  public static boolean isRecordsName(String name) {
    return DIRECTORY_NAME.equals(name);
  }

  /**
   * Retires every record and removes this process's record files, and the directory when that
   * leaves it empty (another live process's records keep it): for a parent about to be moved,
   * which takes nothing of this process along. A hold still outstanding keeps its lock, and
   * releases it, all the same.
   */
  public void removeOwn() {
    clear();
    try (DirectoryStream<Path> entries = NoFollowDirectory.open(directory)) {
      for (Path entry : entries) {
        if (entry.getFileName().toString().startsWith(PID + ".")) {
          try {
            Files.delete(directory.resolve(entry.getFileName()));
          } catch (IOException e) {
            // gone already: nothing to do
          }
        }
      }
    } catch (IOException | RuntimeException e) {
      return; // no records here
    }
    try {
      Files.delete(directory);
    } catch (IOException e) {
      // not empty: another process's records stay
    }
  }

  /** The folders' parent. */
  public Path parent() {
    return parent;
  }

  /** The records' directory. */
  public Path directory() {
    return directory;
  }

  /**
   * Retires every record (their descriptors stay open for the holds made from them): for a parent
   * about to be wiped, dropped or moved. The next take publishes fresh records.
   */
  public void clear() {
    for (Published published : byHolder.values()) {
      retire(published);
    }
  }

  /**
   * The record of {@code holder}, published now when there is none (or the last was retired).
   *
   * @throws IOException when the record cannot be published (nothing is left of it): the
   *     directory is not a real directory, or the file system refused
   */
  Published publishedFor(String holder) throws IOException {
    Published published = byHolder.get(holder);
    if (published != null) {
      return published;
    }
    synchronized (this) {
      published = byHolder.get(holder);
      if (published == null) {
        if (!cleaned) {
          cleaned = true;
          removeAbandoned(parent);
        }
        published = publish(holder);
        byHolder.put(holder, published);
      }
      return published;
    }
  }

  /**
   * The lock the releases of this process's record with identity {@code fileKey} take, or
   * {@code null} when no record of this process has it: whoever opens such a file in this JVM
   * closes its descriptor under that lock.
   */
  static ReentrantLock releasingOf(Object fileKey) {
    return fileKey == null || OWN.isEmpty() ? null : OWN.get(fileKey);
  }

  /**
   * Retires {@code published}: the next take of its holder publishes a fresh record, and this one
   * takes no new hold (the holds made from it still release).
   */
  void retire(Published published) {
    byHolder.remove(published.holderKey, published);
    published.retire();
  }

  private Published publish(String holder) throws IOException {
    ensureDirectory();
    LockRecord record = LockRecord.fresh(ProcessTable.system().current(), holder);
    byte[] bytes = record.toBytes();
    return Uninterruptible.call(() -> {
      Path path = directory.resolve(PID + "." + HexFormat.of().toHexDigits(
          ThreadLocalRandom.current().nextLong()));
      FileChannel channel = FileChannel.open(path, java.util.Set.of(StandardOpenOption.CREATE_NEW,
          StandardOpenOption.READ, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS),
          PRIVATE_FILE);
      boolean complete = false;
      try {
        LockFile.writeWhole(channel, bytes);
        writeProbe.written(path);
        // A time no write can give it: any rewrite later (through any link) sets the time to now,
        // which the release's look tells apart even within one tick of the kernel's clock.
        Files.setLastModifiedTime(path, FileTime.from(
            java.time.Instant.now().truncatedTo(java.time.temporal.ChronoUnit.SECONDS)
                .minusSeconds(1)));
        channel.force(false);
        BasicFileAttributes attributes =
            Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        complete = true;
        Published published = new Published(holder, record, bytes, path,
            attributes.fileKey(), attributes.lastModifiedTime());
        OWN.put(published.fileKey, published.releasing);
        return published;
      } finally {
        channel.close();
        if (!complete) {
          try {
            Files.deleteIfExists(path);
          } catch (IOException e) {
            LOG.get().log(Level.WARNING, "could not remove the unfinished record {0}: {1}", path,
                e);
          }
        }
      }
    });
  }

  private void ensureDirectory() throws IOException {
    try {
      Files.createDirectory(directory, PRIVATE_FOLDER);
      return;
    } catch (FileAlreadyExistsException e) {
      // the usual case after the first record of the first process
    }
    if (!Files.readAttributes(directory, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS)
        .isDirectory()) {
      throw new NotDirectoryException(directory + " is not a directory (a file or a link is at"
          + " the semaphore records' place; it was neither followed nor changed)");
    }
  }

  /**
   * Removes from {@code parent}'s records directory the records of processes proven dead, and the
   * files there that do not parse and have not changed for the malformed grace. The records of
   * live (or unprovably dead) holders, and whatever is not a regular file, stay. What cannot be
   * removed stays, silently.
   *
   * @return how many were removed
   */
  public static int removeAbandoned(Path parent) {
    Path directory = parent.resolve(DIRECTORY_NAME);
    int removed = 0;
    ProcessTable table = ProcessTable.system();
    try (DirectoryStream<Path> entries = NoFollowDirectory.open(directory)) {
      for (Path entry : entries) {
        Path path = directory.resolve(entry.getFileName());
        if (path.getFileName().toString().startsWith(PID + ".")) {
          continue; // ours: we live
        }
        LockReading reading = LockFile.readUnguarded(path);
        boolean abandoned = reading instanceof LockReading.Present present
            ? HolderVerdict.judge(present.record(), table).liveness() == Liveness.DEAD
            : reading instanceof LockReading.Malformed malformed
                && ProcessLock.graceOver(malformed.modified());
        if (abandoned && removeIfUnchanged(path, reading)) {
          removed++;
        }
      }
    } catch (NoSuchFileException | NotDirectoryException e) {
      // no records, or something else than a directory at their place: nothing to clean
    } catch (IOException | RuntimeException e) {
      LOG.get().log(Level.DEBUG, "could not clean the semaphore records in {0}: {1}", directory,
          e);
    }
    return removed;
  }

  /** Removes the record at {@code path} when it still holds the bytes judged (a link, never followed). */
  private static boolean removeIfUnchanged(Path path, LockReading judged) {
    LockReading now = LockFile.readUnguarded(path);
    byte[] before = judged instanceof LockReading.Present p ? p.bytes()
        : ((LockReading.Malformed) judged).bytes();
    boolean same = now instanceof LockReading.Present p ? p.sameBytes(before)
        : now instanceof LockReading.Malformed m && m.sameBytes(before);
    if (!same) {
      return false;
    }
    try {
      Files.delete(path);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  /**
   * One record published: its holder's name (as given), the record and its bytes, the file's path,
   * its identity and its modification time when published (a rewrite through any link changes it:
   * a hold's release checks it, {@link RecordLink#removeOnce}), the JVM lock its holds' releases
   * take, and, while holds made from it are outstanding, its descriptor.
   */
  static final class Published {
    final String holderKey;
    final LockRecord record;
    final byte[] bytes;
    final Path path;
    final Object fileKey;
    final FileTime modified;
    final ReentrantLock releasing = new ReentrantLock();
    private FileChannel channel; // guarded by releasing
    private int holds; // guarded by releasing
    private boolean retired; // guarded by releasing

    Published(String holderKey, LockRecord record, byte[] bytes, Path path, Object fileKey,
        FileTime modified) {
      this.holderKey = holderKey;
      this.record = record;
      this.bytes = bytes;
      this.path = path;
      this.fileKey = Objects.requireNonNull(fileKey, "fileKey");
      this.modified = modified;
    }

    /**
     * Counts one more hold, opening the record's descriptor for the first (read-write, never
     * through a link, never interrupted).
     *
     * @throws IOException when the record is retired, or its file cannot be opened at its name
     *     (nothing counted)
     */
    void pin() throws IOException {
      releasing.lock();
      try {
        if (retired) {
          throw new IOException("the semaphore record " + path + " is retired");
        }
        if (holds == 0 || channel == null || !channel.isOpen()) {
          reopen();
        }
        holds++;
      } finally {
        releasing.unlock();
      }
    }

    /**
     * Counts one hold less, closing the descriptor after the last (under the JVM lock); the last
     * hold of a retired record also takes its entry out of {@link #OWN}.
     */
    void unpin() {
      releasing.lock();
      try {
        if (holds > 0 && --holds == 0) {
          if (channel != null) {
            try {
              channel.close();
            } catch (IOException e) {
              // nothing is written through it
            }
            channel = null;
          }
          if (retired) {
            OWN.remove(fileKey, releasing);
          }
        }
      } finally {
        releasing.unlock();
      }
    }

    /**
     * Takes no new hold from now on; out of {@link #OWN} at once when no hold is outstanding (no
     * descriptor of it is then open in this process), else with the last {@link #unpin}.
     */
    private void retire() {
      releasing.lock();
      try {
        retired = true;
        if (holds == 0) {
          OWN.remove(fileKey, releasing);
        }
      } finally {
        releasing.unlock();
      }
    }

    /**
     * The descriptor, for a release holding {@link #releasing}: opened again when an interrupt
     * closed it (and checked to be the record's file), or {@code null} when that fails.
     */
    FileChannel channel() {
      if (channel == null || !channel.isOpen()) {
        try {
          reopen();
          if (!isAtItsPlace()) {
            channel.close();
            channel = null;
          }
        } catch (IOException e) {
          channel = null;
        }
      }
      return channel;
    }

    private void reopen() throws IOException {
      if (channel != null) {
        channel.close();
      }
      channel = null;
      channel = Uninterruptible.call(() -> FileChannel.open(path, StandardOpenOption.READ,
          StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS));
    }

    /** Whether {@code attributes} are this record's file as published: same inode, size and time. */
    boolean isIntact(BasicFileAttributes attributes) {
      return fileKey.equals(attributes.fileKey()) && attributes.size() == bytes.length
          && modified.equals(attributes.lastModifiedTime());
    }

    /** Whether the record's file is still at its name. */
    boolean isAtItsPlace() {
      try {
        return fileKey.equals(Files.readAttributes(path, BasicFileAttributes.class,
            LinkOption.NOFOLLOW_LINKS).fileKey());
      } catch (IOException e) {
        return false;
      }
    }
  }
}
