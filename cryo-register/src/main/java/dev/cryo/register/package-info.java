/**
 * The registers that hold every live user, connection and page of a worker.
 *
 * <p>A {@link dev.cryo.register.Register} is a named map from key to
 * {@link dev.cryo.register.Row}, with secondary indexes on named fields. A row keeps every field a
 * caller passes, verbatim; a row class, chosen per register, adds typed access to the fields the
 * core gives meaning to and the consumer's own. The {@link dev.cryo.register.RegisterRegistry}
 * hosts registers and holds the three primary ones — {@code user_items}, {@code connection_items},
 * {@code page_items} — with the ownership chain page → connection → user living in their rows, both
 * directions written together by the lifecycle. Each user, connection and page row carries a live
 * store: by default a {@link dev.cryo.register.Store}, a hierarchical ordered container addressed
 * by paths.
 *
 * <h2>Rules of the package</h2>
 *
 * <ul>
 *   <li>An indexed field changes only through its register, which re-files the row in the same
 *       step: no write can leave an index stale.
 *   <li>The chain is written only by the registry's lifecycle: chain fields passed by a caller are
 *       refused, and the primary registers refuse direct creation and drops. After any sequence of
 *       lifecycle calls, from one thread or several, both directions of every edge agree, every
 *       index agrees with its rows, no page or connection is orphaned, every page's user is
 *       derivable, and every refused call changed nothing.
 *   <li>Every refusal is a {@link dev.cryo.register.RegisterException} (or, for a store, a
 *       {@link dev.cryo.register.StoreException}) with a machine-readable reason and a message that
 *       says what happened, what was kept and what to do. The package has no dependencies beyond
 *       the JDK.
 * </ul>
 *
 * <h2>Concurrency: the locks and their order</h2>
 *
 * <p>Every public operation is safe under concurrent use. Two kinds of lock exist.
 *
 * <ol>
 *   <li><b>The structure lock</b>, a stamped read-write lock: one per registry, shared by its three
 *       primary registers; one per other register. It guards which rows exist, the indexes, and the
 *       edges of the chain. Lifecycle operations and index changes hold it exclusively. Reads first
 *       read optimistically — no write to shared memory, so readers on many threads never contend —
 *       and validate that no writer came in between; an overtaken read reads again holding it
 *       shared. It is <em>innermost</em>: it is held only for in-memory bookkeeping — never while a
 *       factory, a seam or any other caller code runs, and never while waiting for a row lock.
 *       Taking it therefore always completes, whatever row locks the caller holds.
 *   <li><b>The row lock</b> ({@link dev.cryo.register.Row#lock()}), exclusive and re-entrant, one per
 *       row (made on first use): one access at a time per row and its store, rows in parallel. A row's fields are an
 *       immutable snapshot replaced whole by each write, so a single read needs no lock; writes take
 *       it themselves. A caller takes it around a sequence of accesses that must not interleave with
 *       another thread's, and around <em>every</em> access to the row's store (a store is not
 *       thread-safe).
 * </ol>
 *
 * <p>The order, for the registry and for callers alike:
 *
 * <ul>
 *   <li>Row locks before the structure lock. A caller holding row locks may call any read and any
 *       lifecycle operation, within the next rule.
 *   <li>Row locks nest only upwards along one chain: a page, then its connection, then its user.
 *       Never hold two rows of the same level (two pages, two connections, two users) at once.
 *       The locks enforce it: a waiting {@code lock()} of a user, connection or page row by a
 *       thread holding another row of the same level or above is refused with {@code LOCK_ORDER}
 *       before it waits, and so is every write of a row's fields (which locks the row); a
 *       {@code tryLock}, which never waits for ever, is not checked.
 *   <li>The registry itself locks: the row it writes ({@code update}, {@code set},
 *       {@code remove}); the new page, from before its publication until
 *       the subscribe seam has returned (so nobody reaches a page's store before its
 *       capture is attached); the connection, then the guest's entry, during a login; and each page
 *       in turn while the detach seam runs. A lifecycle call that would have to lock a row below
 *       one the calling thread holds — dropping the tree of a user or connection whose lock the
 *       thread holds, or logging in a connection while holding its previous user's lock — is refused
 *       with {@code LOCK_ORDER} rather than risk a deadlock. A page's own call, holding the page's
 *       lock, may log its connection in and drop its own page with what the cascade takes; a
 *       thread holding a row lock that drops a tree with a page it does not hold (another tab) is
 *       refused with {@code LOCK_ORDER}, for the drop would wait for that page.
 * </ul>
 *
 * <h2>Concurrency: what a reader can see</h2>
 *
 * <ul>
 *   <li>Each read is one consistent view, taken between whole lifecycle operations. A sequence of
 *       reads is not one view: another thread's operation may fall between two of them.
 *   <li>Births and cascades are single steps: {@code newPage} publishes its page with the
 *       connection and user it brings into being, and a drop removes its whole tree, in one
 *       exclusive section. No view shows a tree half built or half demolished.
 *   <li>When the registry has a detach seam ({@link dev.cryo.register.PageSeams}), a drop
 *       happens in three steps: it claims its rows (still registered, whole and readable, but
 *       marked as being dropped), runs the seam for each page with no structure lock held, then
 *       removes them all in one step. Meanwhile other
 *       lifecycle calls that would touch a claimed row are refused with the retryable
 *       {@code BEING_DROPPED}; reads and field updates proceed. The seam runs exactly once per page
 *       that leaves. If it throws, the pages it had already detached are subscribed again, then
 *       the claim is released and every row stays. Cascading drops of siblings running at once
 *       each see the other's row at their claim; the one whose removal
 *       leaves the parent with no children takes the parent in that same step, so the last page of
 *       a connection and the last connection of a user still take their parent, exactly once.
 *   <li>Downward edges ({@code connections}, {@code pages}) read as immutable snapshots; the
 *       upward ones are plain fields. The index of {@code page_items} on {@code connection_id} is
 *       the connections' own sets of pages, read as an index: the two cannot disagree.
 * </ul>
 */
package dev.cryo.register;
