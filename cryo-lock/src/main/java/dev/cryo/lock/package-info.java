/**
 * Lockfiles that name their holder and are reclaimed only on proof of its death.
 *
 * <p>A lock is a file, {@code .lock}, holding one {@link dev.cryo.lock.LockRecord}: who holds it
 * (process id, that process's start time, boot id, machine id, host, a holder name, a random
 * token) and since when. The file is published whole or not at all ({@link dev.cryo.lock.Publication}): a reader
 * never sees half a record. A holder is judged dead only when that is provable
 * ({@link dev.cryo.lock.HolderVerdict}); a lock whose holder is alive, on another machine, or
 * cannot be read is held. Every removal of a lockfile by name goes through
 * {@link dev.cryo.lock.LockFile#removeIf}, which serialises removers with an operating-system lock
 * that the kernel releases when its holder dies, so two reclaimers never both win and a reclaimer
 * never removes a live holder's lock.
 *
 * <p>Two policies are built on that record:
 * <ul>
 *   <li>{@link dev.cryo.lock.ProcessLock}: waits up to a deadline, reclaims a provably dead
 *       holder, re-enters per thread, releases at normal JVM exit;
 *   <li>{@link dev.cryo.lock.FolderSemaphore}: the freezer's try-once semaphore, naming its holder,
 *       taking the folder with it when it is released and nothing else is left;
 *       {@link dev.cryo.lock.FolderSemaphore#take} answers a {@link dev.cryo.lock.SemaphoreHold}
 *       that keeps the folder's descriptor (work in the folder taken, never through a link put at
 *       its name: {@link dev.cryo.lock.NoFollowDirectory}) and the lockfile's (a release without
 *       resolving a path again); with {@link dev.cryo.lock.SpareFolders}, a release keeps an
 *       emptied folder for the next take of a missing one, moved by rename instead of made and
 *       removed; with {@link dev.cryo.lock.HolderRecords}, a process writes one record per holder
 *       name (whole, forced once) in a private directory beside the folders, a take is one
 *       {@code link(2)} of that record to the folder's {@code .lock} (a name that exists refuses
 *       it: the holder there is judged as any lockfile's), and a release checks that the name
 *       still designates that record as published (inode, length and modification time, one
 *       look; no byte read) and unlinks it: no file is created or freed per hold. A record may
 *       therefore have many links; the judges read it as any record, and a dead holder's links
 *       are reclaimed one by one, its record file removed by
 *       {@link dev.cryo.lock.HolderRecords#removeAbandoned}. The take's publications of a hold's
 *       lockfile are package-private, one per way: a file of its own ({@code OwnLockfile}), a link
 *       of the process's record ({@code RecordLink}), a spare renamed into place
 *       ({@code SparePublication}).
 * </ul>
 *
 * <p>Rules of the package: nothing here follows a symbolic link at a lockfile's path, blocks on a
 * FIFO, trusts a size the file claims, or creates the directory of a {@code ProcessLock}. Every
 * refusal is a {@link dev.cryo.lock.LockException} carrying a machine-readable
 * {@link dev.cryo.lock.LockException.Reason}, which callers act on; a {@code LockException} is an
 * {@link java.io.IOException}, so a {@code catch} of the file system's failures around code that
 * refuses passes the refusal on first, reason and message unchanged. The package has no dependencies beyond the JDK and is
 * written for Linux; elsewhere the proof of death falls back to {@link java.lang.ProcessHandle}.
 */
package dev.cryo.lock;
