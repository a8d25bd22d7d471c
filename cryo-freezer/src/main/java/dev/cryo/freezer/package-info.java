/**
 * The freezer: where a user's live state waits on disk between two workers.
 *
 * <p>Rules of the package:
 *
 * <ul>
 *   <li>One root, private (0700). One folder per user, named by {@link dev.cryo.freezer.FolderKeys}:
 *       a one-way key computed forward from the identity. No identity can name anything outside
 *       the root, two identities never share a folder, and no identity is ever read back from a
 *       name. Folders are 0700, files 0600.
 *   <li>Inside a folder: the user parcel, one parcel per connection (while he is awake, the
 *       user parcel his wake read, set aside as {@code woken.parcel}), and the semaphore
 *       {@code .lock} of cryo-lock's {@link dev.cryo.lock.FolderSemaphore}. The semaphore is the
 *       only coherence mechanism: whoever holds it writes over the destination, and a
 *       reader takes it before looking. The commander's own parcel is a file at the root, which
 *       the sweep (it only sees folders) never touches. A folder an adoption empties is kept at
 *       the root as an empty spare ({@link dev.cryo.lock.SpareFolders}, a dot name no key has)
 *       and becomes the next missing folder a take needs: no listing of folders shows a spare.
 *       Likewise the parcel files a hold drops are kept, emptied, in the user's folder under
 *       spare names ({@code .spare.parcel-N}, which no parcel has), travel with the folder when it
 *       is recycled, and are filled whole and renamed into place by the next writes under a hold
 *       ({@code SpareParcels}); a frozen folder may hold, beside its parcels, the emptied spares
 *       its freeze did not need.
 *   <li>Every parcel is an envelope ({@link dev.cryo.freezer.ParcelFormat}): a diagnostic header
 *       readable without the payload, the payload, and checksums. A torn or altered parcel is a
 *       loud {@link dev.cryo.freezer.FreezerException} naming the file, never another payload.
 *   <li>The built-in codecs ({@link dev.cryo.freezer.SmileCodec}, the default, and
 *       {@link dev.cryo.freezer.CborCodec}) map plain data only and never instantiate a class named
 *       by the file: a planted parcel can at worst be refused.
 *   <li>Reads say "absent" with an empty {@code Optional}; drops ask for absence, so dropping what
 *       is not there is no error.
 *   <li>Durability: nothing a freeze, a wake or a semaphore does is forced to disk. Parcels are
 *       written into the page cache, which every process of the machine shares, so another worker
 *       adopts them at once; they survive the death of the process that wrote them (a kill, a
 *       crash of that JVM) but not a power loss or a crash of the machine's kernel. The semaphore
 *       never needs to survive one: after a reboot its holder is provably dead by the boot id.
 *       Forcing is the caller's barrier, in one place:
 *       {@link dev.cryo.freezer.Freezer#forceUsers} (the parcels and folders of some users, then
 *       the root's entries; in parallel, or one {@code syncfs} of the root's file system past a
 *       few dozen folders) and {@link dev.cryo.freezer.Freezer#forceAll}. Whoever
 *       records somewhere durable that a user is frozen passes that barrier first: the commander's
 *       journal forces a batch's frozen users before it writes the batch, and a drain's commit
 *       ({@link dev.cryo.freezer.Freezer#renameRootDurably}) forces the whole root before the
 *       rename and the rename after it. A parcel a power loss tore anyway (written after its
 *       barrier, or by hand) reads as {@link dev.cryo.freezer.FreezerException.Reason#CORRUPT_PARCEL},
 *       never as another payload.
 * </ul>
 */
package dev.cryo.freezer;
