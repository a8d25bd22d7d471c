package dev.cryo.commander;

import dev.cryo.freezer.Freezer;
import dev.cryo.freezer.FreezerException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Optional;

/**
 * The reboot data of a run directory: {@code DIR/reboot}, the freezer root a drain renamed whole,
 * with the commander's item ({@link CommanderItem}) at its root beside the users' folders.
 *
 * <p>A drain {@link #commit}s: the item is written into the working freezer root, then the root is
 * renamed to {@code DIR/reboot} in one atomic step: the rename is the commit. A start
 * {@link #read}s it and, only once its own journal durably holds every user of it, {@link #consume}s
 * it: reboot data that reads is renamed back onto the working root (the item dropped); a working
 * root that holds an item that reads (a drain killed between its item and its rename) is adopted in
 * place; reboot data or an item that does not read is
 * never wiped: it is moved aside under a dated name ({@code DIR/reboot-unreadable-…}), which
 * {@code cryo freezer ls} can still list, and the start goes on empty.
 *
 * <p>Not thread-safe: a start and a drain run once each, under the run lock.
 */
final class RebootData {

  /** The reboot data's name in the run directory. */
  static final String DIRECTORY = "reboot";
  /** The prefix of reboot data moved aside because it did not read. */
  static final String UNREADABLE_PREFIX = "reboot-unreadable-";
  private static final String WRITER = "commander";
  private static final DateTimeFormatter DATED =
      DateTimeFormatter.ofPattern("uuuuMMdd'T'HHmmss'Z'").withZone(ZoneOffset.UTC);

  private RebootData() {}

  /** Where a start found the maps it adopts. */
  enum Where {
    /** The reboot data, {@code DIR/reboot}: renamed back onto the working root once consumed. */
    REBOOT,
    /** An item in the working root (a drain killed between its item and its rename). */
    IN_PLACE
  }

  /**
   * What a start found.
   *
   * @param item the maps to adopt, when something reads
   * @param where where they are, when something reads; null otherwise
   * @param line one line for the start's log: what was adopted, or moved aside and why; null when
   *     there was nothing
   */
  record Taken(Optional<CommanderItem> item, Where where, String line) {}

  /**
   * Writes {@code item} into {@code freezer}'s root, runs {@code afterItem}, and renames the root to
   * {@code home/reboot}, durably ({@link Freezer#renameRootDurably}): the root's parcels and the item
   * are forced before the rename, and the rename after it, so that a power loss after this returns
   * finds the reboot data whole.
   *
   * @return the reboot data's path
   * @throws FreezerException when the item cannot be written or the root cannot be renamed (the
   *     working root then stays where it was, with the item when it was written: the next start
   *     adopts it in place)
   */
  static Path commit(Path home, Freezer freezer, CommanderItem item, Runnable afterItem)
      throws FreezerException {
    freezer.writeCommanderParcel(item.toPayload(), WRITER, item.cause());
    afterItem.run();
    Path reboot = home.resolve(DIRECTORY);
    freezer.renameRootDurably(reboot); // every parcel and the item on disk first, the rename after
    return reboot;
  }

  /**
   * At a start, before any worker runs: reads the reboot data, or an item left in the working root,
   * and consumes nothing of it ({@link #consume} does, once the new run's journal holds its users);
   * what does not read is moved aside (never wiped) and the working root wiped.
   */
  static Taken read(Path home, Freezer working, Instant now) throws FreezerException, IOException {
    Path reboot = home.resolve(DIRECTORY);
    if (Files.isDirectory(reboot, LinkOption.NOFOLLOW_LINKS)) {
      Freezer data = new Freezer(reboot);
      CommanderItem item;
      try {
        Object payload = data.readCommanderParcel().orElseThrow(() -> new IllegalArgumentException(
            "it holds no " + Freezer.COMMANDER_PARCEL));
        item = CommanderItem.fromPayload(payload);
      } catch (FreezerException | IllegalArgumentException e) {
        Path aside = moveAside(home, reboot, now);
        working.wipeRoot();
        return new Taken(Optional.empty(), null, "the reboot data " + reboot + " does not read ("
            + e.getMessage() + "); it was moved aside to " + aside + " (cryo freezer ls " + aside
            + " lists it) and this run starts with no user");
      }
      return new Taken(Optional.of(item), Where.REBOOT, "the reboot data of " + item.writtenAt()
          + " was adopted: " + item.frozen().size() + " users come back frozen, "
          + item.connectionUser().size() + " connections resolve");
    }
    Path inPlace = working.root().resolve(Freezer.COMMANDER_PARCEL);
    if (Files.exists(inPlace, LinkOption.NOFOLLOW_LINKS)) {
      try {
        CommanderItem item = CommanderItem.fromPayload(working.readCommanderParcel()
            .orElseThrow(() -> new IllegalArgumentException("it vanished")));
        return new Taken(Optional.of(item), Where.IN_PLACE, "the freezer holds the item of a"
            + " drain that did not finish its rename (" + item.writtenAt() + "); it was adopted in"
            + " place: " + item.frozen().size() + " users come back frozen");
      } catch (FreezerException | IllegalArgumentException e) {
        Path aside = moveAside(home, working.root(), now);
        working.wipeRoot();
        return new Taken(Optional.empty(), null, "the freezer holds a commander item that does not"
            + " read (" + e.getMessage() + "); the freezer was moved aside to " + aside
            + " (cryo freezer ls " + aside + " lists it) and this run starts with no user");
      }
    }
    return new Taken(Optional.empty(), null, null);
  }

  /**
   * Consumes what {@link #read} adopted, once the new run's journal durably holds its users: the
   * reboot data is renamed back onto the working root (whatever the working root held dropped
   * first: nobody answers for it), durably, and the item dropped. A crash between the two steps
   * leaves an item in the working root, which the next start adopts in place.
   */
  static void consume(Freezer working, Where where, Path home) throws FreezerException {
    if (where == Where.REBOOT) {
      Freezer data = new Freezer(home.resolve(DIRECTORY));
      working.dropRoot();
      data.renameRootDurably(working.root());
    }
    working.dropCommanderParcel();
  }

  /** Moves {@code directory} to {@code home/reboot-unreadable-<UTC time>[-n]}, never over anything. */
  static Path moveAside(Path home, Path directory, Instant now) throws IOException {
    return moveAside(home, directory, now, UNREADABLE_PREFIX);
  }

  /** Moves {@code path} to {@code home/<prefix><UTC time>[-n]}, never over anything. */
  static Path moveAside(Path home, Path path, Instant now, String prefix) throws IOException {
    Path directory = path;
    String base = prefix + DATED.format(now);
    for (int n = 0; ; n++) {
      Path aside = home.resolve(n == 0 ? base : base + "-" + n);
      if (Files.exists(aside, LinkOption.NOFOLLOW_LINKS)) {
        continue;
      }
      try {
        Files.move(directory, aside, StandardCopyOption.ATOMIC_MOVE);
        return aside;
      } catch (java.nio.file.FileAlreadyExistsException
          | java.nio.file.DirectoryNotEmptyException e) {
        // appeared meanwhile: the next name
      }
    }
  }

}
