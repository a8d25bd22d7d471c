/**
 * The commander of one run of cryo: the run lock and {@code run.json}, the routing maps, holds,
 * placement, the worker processes (spawn, presentation, heartbeat, death) and moves. It has no HTTP
 * in it: the front drives it through {@link dev.cryo.commander.Commander} ({@code start},
 * {@code serve}, {@code move}, {@code quitWorker}, {@code admits}, {@code drain}, {@code status},
 * {@code close}). Its lifecycle beyond one run: a drain's reboot data
 * ({@code RebootData}, {@code CommanderItem}), adopted by the next start ({@code Adoption}), and the
 * journal of its maps ({@code Journal}, {@code JournalRecord},
 * {@link dev.cryo.commander.JournalReplay}) that a start after a crash adopts instead; the
 * operator's view is docs/operations.md.
 *
 * <h2>One lifecycle</h2>
 * The run's phase is {@code Lifecycle}'s alone (starting, serving, reloading, shrinking, draining,
 * stopping, closed), and every operation that changes workers asks it first: the start ends in
 * serving; a reload, the replacement of a worker and the close of a spare one
 * ({@code Replacement}) and {@code quitWorker} begin only while the run serves, one at a time
 * (refused {@code busy} otherwise, with a sentence naming what runs); a drain asked during one of
 * them stops admitting, waits for it and carries the users of the worker it was quitting; a stop
 * (a stop now, a drain's end, a start given up) ends any phase. No operation keeps a flag of its
 * own about the run's phase.
 *
 * <h2>Write-ahead hand-overs</h2>
 * Durable state is consumed only once its replacement is durable: a start reads the reboot data,
 * an item in place or the journal ({@code Adoption}), writes its own journal (which then holds
 * every carried user, forced), and only then renames the reboot data back, drops the item or the
 * folders nobody answers for. A start that fails after that — its workers do not start, or its
 * caller cannot bind its ports ({@link dev.cryo.commander.Commander#abandonStart}) — hands back:
 * the reboot data committed again from its maps, or its journal kept, and one line says where.
 * The journal's file is touched only by its own thread, which nothing interrupts.
 *
 * <h2>Rules of the package</h2>
 * <ul>
 *   <li><b>The ordering rule.</b> The routing maps ({@link dev.cryo.commander.Routing}) change only
 *       by announcements, folded in the order they arrive from each worker, and by deaths.
 *       "Frozen" is known only from a {@code user_frozen} announcement (a quit's freezes are
 *       announced one by one before its reply, which carries counts only), never inferred. A reply whose watermark is past the last announcement
 *       folded from its worker is recorded as an anomaly.
 *   <li><b>The fence.</b> Every placement of a user — a birth, a wake, a login into an identity
 *       nobody holds (claimed for the asking worker by the locate answer itself), the target of a
 *       move — is given a generation by {@link dev.cryo.commander.Generations}, one counter for
 *       the run leased on disk, and every call and order to a worker carries it as a
 *       {@link dev.cryo.wire.protocol.Grant}. A worker refuses a grant that does not fit what it
 *       holds ({@code stale_grant}), and the request is routed again within its hold: a decision
 *       made on maps that moved on meanwhile never makes a second copy.
 *   <li><b>Repairs, not anomalies, for copies.</b> A worker telling of a stay the maps do not give
 *       it — in a fold, or in two heartbeat photos in a row — has that copy dropped by a fenced
 *       order; a user the maps place on a worker that holds him in neither photo is marked
 *       frozen; a frozen user whose parcel no worker found within a hold is forgotten, named lost.
 *       Each is a {@code repair} event and counts in {@code cryo_repairs_total{kind}}.
 *   <li>A user being frozen, moved or dropped is held: his requests wait, 5 s in all (the hold
 *       budget, shared by every wait and retry of one request), then are answered 503 with
 *       {@code Retry-After}.
 *   <li>Placement ({@link dev.cryo.commander.Placement}): a user goes to the worker he lives on;
 *       a frozen user to the worker his requests are bound for, else the fullest worker that admits
 *       him, else a new worker, else 503 {@code saturated}. A new user (an unknown connection, a
 *       guest not living on a worker) goes to the oldest running worker that admits him, else on
 *       the same path: the cap {@code --max-users-per-worker} applies to him too, and the births in
 *       flight count against it ({@code BirthsInFlight}, decided and counted under the placement
 *       lock), so a burst never overshoots it. A moved guest lives where he was moved.
 *   <li>Each worker is a child JVM in its own process group; a worker that does not present itself
 *       in time, falls silent for two heartbeats, answers no ping for two heartbeats (while its
 *       other frames still come), or outlives its wire has its whole group killed with SIGKILL.
 *   <li>A dead worker's users that were not frozen are lost: dropped from the maps, their freezer
 *       folders dropped, counted and logged by name. The frozen ones are untouched. A replacement is
 *       started while fewer than the configured workers live.
 *   <li><b>The home is the run's own.</b> Every name the run uses in its run directory is
 *       declared in {@link dev.cryo.commander.Commander#HOME_LAYOUT} and judged at the start by
 *       {@link dev.cryo.control.RunHome} (owned by the server's user, writable by nobody else, no
 *       link or special file where the run keeps a file or directory; refused with nothing changed
 *       otherwise). Every file the package opens or creates there (the journal, the event log,
 *       {@code status.json}, the reload files, the workers' logs, kept within their caps by
 *       {@link dev.cryo.commander.WorkerLogs}) goes through that held
 *       {@code RunHome}, judged again each time, never through a link: files are created 0600
 *       and directories 0700, and workers run under umask 077
 *       ({@link dev.cryo.commander.WorkerCommand}). Directories are moved (the freezer root to
 *       the reboot data and back, what does not read aside) by {@code rename(2)}, which follows no
 *       link. The freezer's inside is the freezer's ({@link dev.cryo.freezer.Freezer}), the lock's
 *       the lock's.
 *   <li>Every refusal says what happened, what was kept and what to do, with a machine-readable
 *       reason ({@link dev.cryo.commander.CommanderException.Reason},
 *       {@link dev.cryo.commander.MoveOutcome.Refusal}). Logging goes through
 *       {@link java.lang.System.Logger}.
 * </ul>
 *
 * <h2>The event log</h2>
 * {@code events.jsonl} in the run directory. Past {@code --events-max-size} (default 64 MiB) it is
 * rotated between two lines: it becomes {@code events.1.jsonl}, older parts move one number up
 * ({@code events.2.jsonl}, …), and at most {@code --events-keep} parts (default 4) are kept, the
 * oldest removed. A start moves the previous run's files aside: {@code events.jsonl} to
 * {@code events.previous.jsonl}, {@code events.N.jsonl} to {@code events.previous.N.jsonl}, the
 * run before that's removed. An operator finds, oldest line first: {@code events.previous.N.jsonl}
 * … {@code events.previous.1.jsonl}, {@code events.previous.jsonl}, then this run's
 * {@code events.N.jsonl} … {@code events.1.jsonl}, {@code events.jsonl}
 * ({@link dev.cryo.commander.EventLogFiles} lists them). A failed rotation is logged and the lines
 * go on into the same file. The log: one JSON object per line, flushed line by line, in the
 * order the events happened — folds are written under the maps' lock, so two folds appear in the
 * order they changed the maps, whatever workers they came from. Every line has
 * <ul>
 *   <li>{@code n}: its number in the run, from 1, one more each line;
 *   <li>{@code at}: an ISO-8601 instant;
 *   <li>{@code event}: its type, one of those below; then the type's fields.
 * </ul>
 * The types and their fields:
 * <ul>
 *   <li>{@code fold} — one announcement folded: {@code worker}, {@code seq} (the worker's
 *       sequence number), {@code kind} ({@code new_user}, {@code new_connection}, {@code new_page},
 *       {@code drop_page}, {@code drop_pages}, {@code drop_connection}, {@code drop_connections},
 *       {@code drop_user}, {@code login}, {@code user_frozen}, {@code user_adopted}),
 *       {@code user}, {@code keys} (list), {@code detail} (string or null), and {@code request}
 *       (the id of the request whose call caused it, the {@code Cryo-Request-Id} its client was
 *       answered with) when a request did. Births are
 *       {@code new_*} folds, freezes {@code user_frozen}, adoptions {@code user_adopted}.
 *   <li>{@code anomaly} — what a fold or a reply could not apply: {@code worker}, {@code seq}
 *       (or null), {@code message}.
 *   <li>{@code repair} — a copy or a placement the maps did not agree with, mended: {@code kind}
 *       ({@code second_copy}, {@code frozen_copy}, {@code stray_copy}, {@code absent},
 *       {@code missing_parcel}), {@code worker} (or null), {@code user}, {@code generation} (the
 *       stay dropped, 0 for none), {@code message}; {@code lost} (list) when a user was forgotten.
 *   <li>{@code claim} — an identity nobody held given to the worker whose login asked where it
 *       lives: {@code user}, {@code worker}, {@code generation}.
 *   <li>{@code move} — a move done or refused: {@code user}, {@code from}, {@code to} (null when
 *       refused), {@code refused} (a {@link dev.cryo.commander.MoveOutcome.Refusal} code, or null),
 *       {@code message}. A done move's line comes after the {@code user_frozen} fold it caused and
 *       before the destination's {@code user_adopted}.
 *   <li>{@code worker_spawned} — {@code worker}, {@code attempt}, {@code pid};
 *       {@code worker_presented} — {@code worker}, {@code pid}; {@code worker_start_failed} —
 *       {@code worker}, {@code attempt}, {@code reason}; {@code worker_start_abandoned} —
 *       {@code worker}, {@code reason}.
 *   <li>{@code worker_died} — {@code worker}, {@code reason}, {@code lost} (the users lost with
 *       it, sorted), {@code planned} (true when the run ended it on purpose: a quit into the
 *       freezer that reported, a start a drain abandoned; false for a crash, a kill, a silence, a
 *       quit that failed). From this line on, none of them lives anywhere until a new birth names
 *       him.
 *   <li>{@code quit_begun} — a worker told to quit into the freezer: {@code worker}, {@code held}
 *       (users held), {@code grace_ms}; {@code quit_ended} — {@code worker} and its report's
 *       {@code frozen}, {@code dropped}, {@code failed}, {@code cut} (counts), or {@code failure};
 *       its {@code worker_died} follows, with the reason "it quit into the freezer".
 *   <li>{@code drain_begun} — {@code workers}, {@code placed}, {@code frozen}, {@code grace_ms};
 *       {@code drain_committed} or {@code drain_failed} — {@code carried} (a count),
 *       {@code lost} (the users not carried, sorted), {@code carried_users} (every user carried,
 *       sorted), {@code not_carried} (each user not carried → why), {@code reboot} (the reboot
 *       data's path, or null), {@code failure}, {@code took_ms}. Or, before any worker quits,
 *       {@code drain_refused} — a worker could not write a user ({@code Drain}):
 *       nothing was quit, committed or deleted, and the run serves on: {@code staying} (each user
 *       who stays awake → why), {@code frozen_meanwhile}, {@code awake}, {@code frozen} (counts),
 *       {@code what_to_do}, {@code took_ms}. A new {@code drain_begun} may follow.
 *   <li>{@code adopted} — the start took over an earlier run's maps: {@code cause}
 *       ({@code drain} or {@code journal}), {@code frozen}, {@code connections}, {@code pages}
 *       (counts), {@code lost} (the users that were awake when it was killed and left no
 *       parcel, sorted).
 *   <li>{@code user_expired} — a frozen user past his time to live ({@link
 *       dev.cryo.commander.Housekeeping}): {@code user}, {@code connections} (how many were
 *       forgotten with him), {@code message}; his folder is dropped right after.
 *   <li>{@code occupancy_restart} — the occupancy check ({@code OccupancyCheck}) replaces a worker
 *       whose heap stayed full: {@code worker}, {@code heap_used}, {@code heap_max},
 *       {@code full_photos}; the replacement's {@code reload_begun} (with {@code why}
 *       {@code heap}), {@code replaced} and {@code reload_ended} follow.
 *       {@code occupancy_close} — it closes a spare worker: {@code worker}, {@code users},
 *       {@code age_ms}, {@code recent_calls}; the quit's events and {@code shrunk}
 *       ({@code worker}, {@code why}, {@code frozen}, {@code lost}, {@code message}) follow.
 *   <li>{@code sweep} — orphan folders dropped: {@code swept} (how many), {@code keys} (their
 *       folder keys, sorted); written only when something was swept.
 * </ul>
 * Readers must ignore fields and event types they do not know: later versions may add some.
 */
package dev.cryo.commander;
