/**
 * The runtime of cryo: the worker that serves the users placed on it from memory, freezes them
 * into the freezer and wakes them from it.
 *
 * <p>A {@link dev.cryo.worker.Worker} holds a register registry (cryo-register) of the users placed
 * on it and a freezer (cryo-freezer) shared with the other workers of its run. It tells every
 * change of its population as {@link dev.cryo.worker.Announcement}s and describes itself in a
 * {@link dev.cryo.worker.Photo}. The commander, the wire between processes and the HTTP front drive
 * it through this API.
 *
 * <p>An application is written against cryo-app ({@code dev.cryo.app}) and nothing else:
 * {@link dev.cryo.worker.AppHost} serves it, and {@link dev.cryo.worker.AppHost#serve} is the one
 * way an HTTP call reaches it — the wire's {@link dev.cryo.wire.protocol.HttpCall} becomes the
 * application's {@link dev.cryo.app.Request} there, once, and the host follows the
 * {@link dev.cryo.app.HostPolicy} the test kit follows too. A worker is built with its host
 * ({@link dev.cryo.worker.Worker.Builder#application}); there is no other application seam. Inside,
 * a call arrives as an {@code Arrival} (who, which connection and page, which grant, which clocks —
 * the worker's own record, never an application's), is let in by {@code Admission}, holds a
 * {@code RequestSlot} while it runs, and reaches the rows' stores only through the host, one store
 * action at a time under the row's lock. The worker's tests reach the same path through two
 * package-private hooks of the host: a call with a named page and clocks, and a test's code run
 * inside a call.
 *
 * <h2>Rules of the package</h2>
 *
 * <ul>
 *   <li>A user lives in one worker at a time. He leaves only with no call in flight (or when a quit
 *       cuts calls stuck past its grace), by the freezer, and comes back by a wake that makes one
 *       disk trip however many of his calls arrive together.
 *   <li>Every disk step holds the user's semaphore, tried once at a time and retried on the
 *       worker's {@link dev.cryo.worker.Schedule}, never by blocking a thread of the disk work.
 *   <li>A departure is whole or nothing: a refused write leaves the user alive and active where he
 *       was, with nothing announced. A failed wake leaves no row and no semaphore.
 *   <li>The fence ({@link dev.cryo.wire.protocol.Grant}): every call and order names the
 *       generation of the user's stay it is for. A tenant is made only by a birth or a wake grant,
 *       at its generation, and served or ordered only at that generation; anything else is refused
 *       {@code STALE_GRANT} and changes nothing. The check is the stay's own ({@code Tenant.fence}
 *       for a call's grant, {@code Tenant.locatedAt} for a login's locate answer).
 *   <li>One owner per user's stay: {@code Tenant} holds the phase, generation, calls in flight,
 *       departure and flag of the user's stay on this worker, and every transition of it (admit,
 *       close a call, wake, depart, fail a departure, hand over at a login, relabel calls, flag,
 *       leave) is one of its methods, called under its lock. The other classes
 *       ({@code Admission}, {@code Waking}, {@code Freezing}, {@code Departures}, {@code Drops},
 *       {@code Login}) do the registry, disk and announcement work around a transition and ask
 *       the stay for it; they read its state and never write it.
 *   <li>The user's own parcel is woken only by a wake grant, and only when it was written at the
 *       grant's parcel generation or later; otherwise it is residue and is never touched. A wake
 *       sets the user parcel it read aside ({@code woken.parcel}, which no wake reads) and keeps
 *       his connections' parcels, until the stay writes his own (a checkpoint, a freeze) or ends
 *       without the freezer (then they are dropped, and nothing older is left to wake): a worker
 *       killed before that leaves them for the commander to put back. A login tail's hand-over
 *       parcels are adopted by the worker on its own, and consumed.
 *   <li>A worker that loses its commander (the end of its wire) quits into the freezer on its own,
 *       its parcels stamped with each stay's generation, within a bound
 *       ({@code WorkerMain.COMMANDER_LOSS_GRACE}), holding its share of the run's writers file
 *       ({@link dev.cryo.freezer.FreezerWriters}) until it exits: the next commander adopts what
 *       it wrote.
 *   <li>One lock order: a user's tenant lock, then row locks (page, connection, user), then the
 *       registry's structure lock, then the announcer's. Nothing holding a row lock takes a
 *       tenant lock: a lifecycle operation asked from inside a store action is refused with
 *       {@code LOCK_ORDER}. Whoever holds a tenant lock, a disk thread or a semaphore only tries
 *       row locks a store action may hold, and waits for a busy one outside every lock, bounded.
 *   <li>A reply never overtakes the announcements its call caused: the worker waits, holding no
 *       user lock, until they were delivered; the photo and the replies carry the watermark.
 *   <li>Every refusal is a {@link dev.cryo.worker.WorkerException} with a machine-readable reason
 *       in the protocol's one vocabulary ({@link dev.cryo.wire.protocol.RefusalReason}: what the
 *       wire carries to the commander) and a message saying what happened, what was kept and what
 *       to do.
 *   <li>Departures the worker orders itself go through the same freeze as any other, each with its
 *       cause: the idle valve ({@code Departures}: {@code idle}; a guest who held nothing is
 *       marked {@link dev.cryo.freezer.ParcelHeader#EMPTY_GUEST_CAUSE} from the parcels written),
 *       the heap valve ({@code HeapValve}, heard through {@code MemoryPressure}: {@code heap}), a
 *       transfer plan and a quit. Neither valve takes anybody once a quit began. A valve's
 *       departure of a guest who holds nothing and no page, and never had a checkpoint, drops him
 *       as an expiry does instead of freezing him ({@code Freezing.emptyGuest}): nothing is
 *       written, and the commander forgets him from the drops announced.
 *   <li>Failures are logged through {@link java.lang.System.Logger}; the package ships no logging
 *       backend and depends on nothing beyond cryo's own modules.
 * </ul>
 */
package dev.cryo.worker;
