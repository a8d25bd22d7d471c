package dev.cryo.lock;

import java.io.IOException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Objects;
import java.util.Optional;

/**
 * The freezer's semaphore: a {@code .lock} file in a user's folder that names the operation holding
 * it. It is tried once and never waited for: whoever finds it taken retries on its own schedule,
 * without holding a thread that the disk work needs.
 *
 * <p>{@link #tryTake} creates the folder (0700) when needed (and removes it again, when empty,
 * should the take then fail: a full disk never leaves a folder without a lock) and publishes the same record as
 * {@link ProcessLock}, with the same publication (never half a record) and the same proof of death
 * (a provably dead holder is reclaimed within the single try). {@link #release} refuses a holder that
 * is not the one on disk, and removes the folder when the lock was all it had left: the folder lives
 * as long as an operation runs in it; the temporaries a crashed writer left in a folder that holds
 * more than the lock are removed by that release. Taking and releasing work from a thread whose
 * interrupt flag is set, and leave the flag set ({@link Uninterruptible}); nothing here waits on a
 * lock of another folder. All methods are thread-safe and stateless; the record on disk is the only
 * state.
 */
public final class FolderSemaphore {

  /** The semaphore's file name inside the folder. */
  public static final String FILE_NAME = ".lock";

  private static final int ATTEMPTS = 4;
  private static final FileAttribute<?> PRIVATE_FOLDER =
      PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------"));

  private FolderSemaphore() {}

  /**
   * Tries once to take the semaphore of {@code folder} for {@code holder}, creating the folder
   * (mode 0700, parents included) when it is missing.
   *
   * @return {@code true} when the semaphore is now {@code holder}'s, {@code false} when a live (or
   *     unprovably dead) holder has it
   * @throws LockValidationException when something that is not a regular file sits at the lock's
   *     path, when the folder is not a directory (a symbolic link there is refused, never
   *     followed), or when the file system refuses the folder or the record
   */
  public static boolean tryTake(Path folder, String holder) throws LockException {
    Objects.requireNonNull(holder, "holder");
    Path lockPath = folder.resolve(FILE_NAME);
    LockFile file = null;
    for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
      boolean created = createFolder(folder, lockPath);
      if (file == null) {
        file = LockFile.at(lockPath); // once the folder exists, so that it resolves to one spelling
      }
      try {
        Claim.run(file, holder, System.nanoTime());
        return true;
      } catch (LockBusyException e) {
        return false;
      } catch (LockValidationException e) {
        if (e.reason() != LockException.Reason.DIRECTORY_DISAPPEARED) {
          if (created) {
            removeIfEmpty(folder);
          }
          throw e;
        }
        // A release removed the empty folder between our mkdir and our link: make it again.
      }
    }
    return false;
  }

  /**
   * Tries once to take the semaphore of {@code folder} for {@code holder}, as {@link #tryTake}
   * does, and answers the hold: the folder's descriptor, to work in the folder taken whatever is
   * later put at its name, and the lockfile's, for a release without resolving a path again
   * ({@link SemaphoreHold#release}).
   *
   * <p>The usual take is one pass: the folder is opened (created, 0700, when missing) and checked
   * to be a real directory ({@link NoFollowDirectory}); the record is written whole into a fresh
   * temporary relative to it, hard-linked to {@value #FILE_NAME} (an existing lockfile is never
   * replaced: a reader sees the whole record or none), checked to have landed in the folder held,
   * and the temporary's name removed, its descriptor kept. Only when a lockfile is already there
   * does the take fall back to the claim of {@link #tryTake}, which judges the holder and reclaims
   * a provably dead one.
   *
   * @param folder the folder, whose parent is a real path (the caller resolved it once): the
   *     folder's lockfile then shares its JVM guard with every other spelling's
   * @return the hold, or {@code null} when a live (or unprovably dead) holder has the semaphore,
   *     or took it (or removed it) right after this take's claim: retry later
   * @throws LockValidationException as {@link #tryTake}, and {@link LockException.Reason#NOT_A_DIRECTORY}
   *     when the folder is a link or changes under the take (nothing of the take is left in the
   *     folder held; a record linked into a directory put at its name meanwhile stays there,
   *     naming this process)
   */
  public static SemaphoreHold take(Path folder, String holder) throws LockException {
    return take(folder, holder, null);
  }

  /**
   * Tries once to take the semaphore of {@code folder}, as {@link #take(Path, String)} does, with
   * a pool of spare folders: when the folder is missing and {@code spares} has one, the record is
   * written whole into the spare's fresh lockfile and the spare renamed to the folder's name, so
   * that the folder appears with its lock in one step (no {@code mkdir}, no temporary, no link).
   * The rename fails, changing nothing, when something is at the name by then (a folder with
   * anything in it, a file, a link); the take then goes the usual way. The spare's parent must be
   * the folder's.
   *
   * @param spares the pool of the folder's parent, or {@code null} for none
   */
  public static SemaphoreHold take(Path folder, String holder, SpareFolders spares)
      throws LockException {
    return take(folder, holder, spares, null);
  }

  /**
   * Tries once to take the semaphore of {@code folder}, as {@link #take(Path, String, SpareFolders)}
   * does, with the records of this process for the folder's parent: the lockfile is then a hard
   * link of the one record {@code records} keeps for {@code holder} (written whole and forced
   * once, when this process first takes a folder as {@code holder}), made by one {@code link(2)},
   * and the release unlinks it: no file is created or freed per hold. When no record can be
   * linked (the records' directory is not a real directory, the file system refuses), the take
   * goes the usual way, a record file of its own. A lockfile already there is judged, and a dead
   * holder reclaimed, exactly as without records.
   *
   * @param records the records of the folder's parent, or {@code null} for none
   */
  public static SemaphoreHold take(Path folder, String holder, SpareFolders spares,
      HolderRecords records) throws LockException {
    Objects.requireNonNull(holder, "holder");
    Path canonical = folder.toAbsolutePath().normalize();
    Path lockPath = canonical.resolve(FILE_NAME);
    if (spares != null && !spares.parent().equals(canonical.getParent())) {
      throw new IllegalArgumentException("the spare folders of " + spares.parent()
          + " cannot stand in for " + canonical);
    }
    if (records != null && !records.parent().equals(canonical.getParent())) {
      throw new IllegalArgumentException("the semaphore records of " + records.parent()
          + " cannot be linked in " + canonical);
    }
    LockRecord mine = null;
    for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
      boolean created = false;
      SecureDirectoryStream<Path> directory;
      Object folderKey;
      // One look, which throws nothing: a missing folder (a user's first freeze) is the usual case
      // of half the takes, and a refused open, or a look that does not follow a link, would cost
      // an exception. A link with no target reads as missing here; the rename of a spare onto it
      // and the mkdir both refuse it, and the look after the mkdir names it.
      boolean missing = isMissing(canonical);
      if (missing && spares != null) {
        HolderRecords.Published linked = null;
        if (records != null) {
          try {
            linked = records.publishedFor(holder);
          } catch (IOException e) {
            // no record to link: the spare gets a file of its own
          }
        }
        if (linked == null && mine == null) {
          mine = LockRecord.fresh(ProcessTable.system().current(), holder);
        }
        SemaphoreHold hold = SparePublication.publish(canonical, spares, mine, linked, records);
        if (hold != null) {
          return hold;
        }
        missing = isMissing(canonical);
      }
      try {
        if (missing) {
          created = makeFolder(canonical, lockPath);
        }
        NoFollowDirectory.Opened opened = NoFollowDirectory.openKeyed(canonical);
        directory = opened.directory();
        folderKey = opened.fileKey();
      } catch (LockException e) {
        throw e; // the mkdir's own refusal (a link or a file at the name): its reason stands
      } catch (NoSuchFileException e) {
        continue; // made and removed again by a release meanwhile: make it again
      } catch (NotDirectoryException e) {
        throw new LockValidationException(LockException.Reason.NOT_A_DIRECTORY, lockPath,
            "the semaphore folder " + canonical + " cannot be taken: " + e.getMessage()
                + "; nothing was changed: remove what is there if nobody should be, then retry", e);
      } catch (IOException e) {
        throw new LockValidationException(LockException.Reason.IO_FAILURE, lockPath,
            "could not open the semaphore folder " + canonical + ": " + LockFile.describe(e), e);
      }
      SemaphoreHold hold = null;
      try {
        boolean linked = false;
        if (records != null) {
          try {
            hold = RecordLink.publish(canonical, directory, folderKey, records, holder);
            linked = true;
          } catch (RecordLink.Unlinkable e) {
            // no record to link: a file of its own
          }
        }
        if (!linked) {
          if (mine == null) {
            mine = LockRecord.fresh(ProcessTable.system().current(), holder);
          }
          hold = OwnLockfile.publish(canonical, directory, folderKey, mine);
        }
        if (hold == null) {
          hold = claimTaken(canonical, directory, folderKey, holder);
        }
        return hold;
      } catch (LockBusyException e) {
        return null;
      } catch (LockValidationException e) {
        if (e.reason() == LockException.Reason.DIRECTORY_DISAPPEARED) {
          continue; // a release removed the empty folder between our open and our link
        }
        if (created) {
          removeIfEmpty(canonical);
        }
        throw e;
      } finally {
        if (hold == null) {
          SemaphoreHold.closeQuietly(directory);
        }
      }
    }
    return null;
  }

  /**
   * The take when a lockfile was already there: the claim of {@link #tryTake} (judge the holder,
   * reclaim a dead one, publish again by path), then the published file opened relative to the
   * folder held and checked to be the claim's record.
   *
   * @return the hold; never null
   * @throws LockBusyException when a live holder has it
   */
  private static SemaphoreHold claimTaken(Path folder, SecureDirectoryStream<Path> directory,
      Object folderKey, String holder) throws LockException {
    LockFile file = LockFile.ofCanonical(folder.resolve(FILE_NAME));
    LockRecord record = Claim.run(file, holder, System.nanoTime());
    try {
      return OwnLockfile.adopt(folder, directory, folderKey, record);
    } catch (LockBusyException e) {
      throw e; // removed or taken by another right after the claim: busy, the caller retries
    } catch (IOException e) {
      throw new LockValidationException(LockException.Reason.IO_FAILURE, file.path(),
          "took " + file.path() + " but could not open it in the folder held: "
              + LockFile.describe(e) + "; it stays until its holder is proven dead", e);
    }
  }

  /**
   * Whether nothing is at {@code folder}, by one {@code access(2)}, which (unlike a look that does
   * not follow a link) throws nothing when the answer is yes. A link whose target is missing
   * answers yes too.
   */
  private static boolean isMissing(Path folder) {
    return !Files.exists(folder);
  }

  /**
   * Removes the folder a failed take created (a full disk refuses the record after the mkdir
   * succeeded): nobody answers for an empty folder without a lock. A folder somebody else has put
   * something into meanwhile stays.
   */
  static void removeIfEmpty(Path folder) {
    try {
      Files.delete(folder);
    } catch (IOException e) {
      // Not empty (another taker's lock, parcels), already gone, or refused: it stays.
    }
  }

  /**
   * Gives the semaphore of {@code folder} back, and removes the folder when nothing else is in it.
   *
   * @param holder the name given to {@link #tryTake}, compared as the record keeps it (sanitised
   *     and bounded)
   * @throws LockValidationException with {@link LockException.Reason#HOLDER_MISMATCH} when the
   *     semaphore is not held by {@code holder} in this process (the message names the current
   *     holder, and the lock stays), or when the file system refuses the removal
   */
  public static void release(Path folder, String holder) throws LockException {
    String name = LockRecord.sanitize(Objects.requireNonNull(holder, "holder"));
    long pid = ProcessTable.system().current().pid();
    LockFile file = LockFile.at(folder.resolve(FILE_NAME));
    LockFile.Removal outcome;
    try {
      outcome = file.removeOwn(bytes -> heldBy(bytes, name, pid), ProcessLock.RELEASE_PATIENCE);
    } catch (IOException e) {
      throw new LockValidationException(LockException.Reason.RELEASE_REFUSED, file.path(),
          "the file system refused to remove " + file.path() + ": " + LockFile.describe(e)
              + "; the semaphore is still held: fix the cause and release again", e);
    }
    if (outcome != LockFile.Removal.REMOVED) {
      throw refusedRelease(folder, holder, file, outcome, name, pid);
    }
    removeFolderIfEmpty(folder, file);
  }

  /** Whether {@code bytes} are a whole record (with its token) of {@code holder} in process {@code pid}. */
  private static boolean heldBy(byte[] bytes, String holder, long pid) {
    try {
      return heldBy(LockRecord.parse(bytes), holder, pid);
    } catch (MalformedRecordException e) {
      return false;
    }
  }

  private static boolean heldBy(LockRecord record, String holder, long pid) {
    return !record.isBarePid() && record.pid() == pid && holder.equals(record.holder());
  }

  private static LockValidationException refusedRelease(Path folder, String holder, LockFile file,
      LockFile.Removal outcome, String name, long pid) {
    LockReading reading = file.read();
    if (outcome == LockFile.Removal.CONTENDED || reading instanceof LockReading.Present present
        && heldBy(present.record(), name, pid)) {
      return new LockValidationException(LockException.Reason.RELEASE_REFUSED, file.path(),
          "the semaphore " + file.path() + " changed or stayed busy during its release ("
              + outcome.name().toLowerCase(java.util.Locale.ROOT) + "); release again");
    }
    return new LockValidationException(LockException.Reason.HOLDER_MISMATCH, file.path(),
        "release of " + folder + " by '" + holder + "' refused: the semaphore is "
            + Claim.describe(reading) + "; it was left as it is: release it as its holder");
  }

  /**
   * Removes the folder when nothing but the temporaries of dead processes is left in it. On the
   * common paths this is one call: the folder is empty (the end of an adoption), or parcels remain
   * (the end of a freeze) and the listing finds nothing to clean.
   */
  static void removeFolderIfEmpty(Path folder, LockFile file) throws LockException {
    try {
      try {
        Files.delete(folder);
      } catch (DirectoryNotEmptyException e) {
        // Parcels remain, or only the temporaries of a crashed process (no later claim met any
        // contention to clean them) and emptied spare files (SpareFolders): clean those, and the
        // folder goes if that was all.
        int removed = Publication.removeAbandoned(folder, FILE_NAME, ProcessTable.system())
            + removeSpareFiles(folder);
        if (removed > 0) {
          Files.delete(folder);
        }
      }
    } catch (DirectoryNotEmptyException | NoSuchFileException e) {
      // Parcels remain, or somebody took the folder over: it stays.
    } catch (IOException e) {
      throw new LockValidationException(LockException.Reason.IO_FAILURE, file.path(),
          "released " + file.path() + ", but could not remove the empty folder: "
              + LockFile.describe(e), e);
    }
  }

  /**
   * Removes the spare files ({@link SpareFolders#PREFIX} names) of a folder about to be removed, by
   * a listing that never blocks on a FIFO and a removal that never follows a link (a name is
   * unlinked, whatever it is): they hold nothing, and nothing but them may keep the folder.
   *
   * @return how many were removed
   */
  private static int removeSpareFiles(Path folder) {
    int removed = 0;
    try (SecureDirectoryStream<Path> directory = NoFollowDirectory.open(folder)) {
      for (Path entry : directory) {
        Path name = entry.getFileName();
        if (SpareFolders.isSpareName(name.toString())) {
          try {
            directory.deleteFile(name);
            removed++;
          } catch (IOException e) {
            // gone already, or not a file: it keeps the folder
          }
        }
      }
    } catch (IOException | RuntimeException e) {
      // not a folder any more, or gone: nothing to clean
    }
    return removed;
  }

  /**
   * Who holds the semaphore of {@code folder} right now.
   *
   * @return the holder's record, or empty when the semaphore is free
   * @throws LockValidationException when the lockfile cannot be read as a record (the message says
   *     what is there)
   */
  public static Optional<LockRecord> holder(Path folder) throws LockException {
    LockFile file = LockFile.at(folder.resolve(FILE_NAME));
    LockReading reading = file.read();
    return switch (reading) {
      case LockReading.Absent absent -> Optional.empty();
      case LockReading.Present present -> Optional.of(present.record());
      case LockReading.NotRegular notRegular -> throw new LockValidationException(
          LockException.Reason.NOT_A_REGULAR_FILE, file.path(),
          file.path() + " is " + notRegular.kind() + ", not a semaphore");
      default -> throw new LockValidationException(LockException.Reason.MALFORMED_RECORD,
          file.path(), "the semaphore " + file.path() + " is " + Claim.describe(reading));
    };
  }

  /** Makes sure the folder is there; whether this call created it. */
  private static boolean createFolder(Path folder, Path lockPath) throws LockValidationException {
    if (Files.isDirectory(folder, LinkOption.NOFOLLOW_LINKS)) {
      // The folder of a frozen user: one look, which (unlike a refused creation) throws nothing.
      // Should a release remove it before the record is linked, the claim says so and the take
      // comes back here.
      return false;
    }
    return makeFolder(folder, lockPath);
  }

  /** Makes the folder, which a look found missing; whether this call created it. */
  private static boolean makeFolder(Path folder, Path lockPath) throws LockValidationException {
    for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
      try {
        try {
          try {
            Files.createDirectory(folder, PRIVATE_FOLDER);
          } catch (NoSuchFileException e) {
            // Only now make the parents: on the common path they exist, and a refused creation
            // (an exception) per take would cost more than the take itself.
            Files.createDirectories(folder.getParent());
            Files.createDirectory(folder, PRIVATE_FOLDER);
          }
          return true;
        } catch (FileAlreadyExistsException e) {
          // One look, never following a link: a link planted in the folder's place would carry
          // the semaphore and every parcel written after it somewhere else.
          BasicFileAttributes found = Files.readAttributes(folder, BasicFileAttributes.class,
              LinkOption.NOFOLLOW_LINKS);
          if (!found.isDirectory()) {
            throw new LockValidationException(LockException.Reason.NOT_A_DIRECTORY, lockPath,
                "the semaphore folder " + folder + " is " + LockFile.kindOf(folder, found)
                    + ", not a directory; nothing was changed and it was not followed: remove it"
                    + " if nobody should be there, then retry", e);
          }
          return false;
        }
      } catch (NoSuchFileException e) {
        // It was there, and a release removed it before we looked: make it again.
      } catch (LockValidationException e) {
        throw e;
      } catch (IOException e) {
        throw new LockValidationException(LockException.Reason.IO_FAILURE, lockPath,
            "could not create the semaphore folder " + folder + ": " + LockFile.describe(e), e);
      }
    }
    // It keeps coming and going: the claim finds out, and the take is retried.
    return false;
  }
}
