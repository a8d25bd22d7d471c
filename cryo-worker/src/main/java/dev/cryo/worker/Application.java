package dev.cryo.worker;

import dev.cryo.wire.protocol.RefusalReason;
import java.util.List;

/**
 * The application a worker serves: the seam between cryo and the code of a stateful server.
 *
 * <p>The worker calls {@link #handle} once per real call ({@link CallKind#RPC} or
 * {@link CallKind#USER_EVENT}), after the user is awake, the page, its connection and its user are
 * registered and the clocks are stamped, and while the call holds its request slot (so the user
 * cannot be frozen under it). Calls run concurrently, several per user and per page: the
 * application reaches each store only through the {@link CallContext}, which takes the row's lock
 * around the access. What the handler returns is handed back to the caller as it is.
 *
 * <p>Two defaulted hooks tell the application of its users' stays beyond their calls:
 * {@link #beforeFreeze} and {@link #pagesClosed}. A hook reaches a user's stores through the
 * worker's registry, each under its row's lock, and changes no row's life (no birth, no drop, no
 * login): the lifecycle goes through the worker.
 */
@FunctionalInterface
public interface Application {

  /**
   * Serves one call.
   *
   * @return the reply, handed back to the caller of {@link Worker#call} unchanged
   * @throws Exception anything; the worker closes the request slot and reports it as a
   *     {@link WorkerException} with {@link RefusalReason#APPLICATION_FAILED}
   */
  Object handle(CallContext context) throws Exception;

  /**
   * Called once before a user leaves by the freezer — an ordered freeze, a transfer, the idle valve,
   * a quit — with none of his calls in flight (save calls a quit cut), before his rows are read for
   * the parcels: what the hook writes into his stores is frozen with him. Runs on the departing
   * thread with no lock of the worker held. A throw is logged and the freeze goes on. Not called for
   * an expiry (a drop: see {@link #pagesClosed}) nor for a login tail (the connection moves whole),
   * nor for a user whose calls a quit cut (they may hold his rows for ever: he is frozen as he is).
   *
   * @param worker the worker
   * @param user the user leaving
   * @param cause {@code "freeze"} (ordered), {@code "transfer"}, {@code "idle"} or {@code "quit"}
   */
  default void beforeFreeze(Worker worker, String user, String cause) {}

  /**
   * Called after pages were closed for good — dropped with their page, connection or user (an
   * expiry included), their drops announced — never when they leave by a freeze or a login tail.
   * Runs on the dropping thread, with no lock of the worker held; the user may be gone with them.
   * Not called for the expiry of a user whose calls a quit cut. A throw is logged.
   *
   * @param worker the worker
   * @param user the pages' user
   * @param pageIds the pages closed
   */
  default void pagesClosed(Worker worker, String user, List<String> pageIds) {}

  /**
   * The version of the state this application writes, stamped on every parcel the worker writes
   * ({@code state_version}); a parcel without a stamp was written by version 1. The default is 1.
   * Asked once, when the worker is built.
   */
  default int stateVersion() {
    return 1;
  }

  /**
   * The content of one store from a parcel stamped with state version {@code version}, as this
   * application reads it; asked at a wake or an adoption when {@code version} is not
   * {@link #stateVersion()}, on a disk thread with the user's semaphore held, before any row is
   * rebuilt. A throw means this version cannot read the parcel: the worker leaves every parcel of
   * the user as it was, writes the freezer's {@link dev.cryo.freezer.Freezer#UNREADABLE_NOTE} and
   * refuses the call with {@link RefusalReason#UNREADABLE_PARCEL}. The default reads no
   * other version than its own.
   *
   * @param level {@code "user"}, {@code "connection"} or {@code "page"}
   * @param version the state version stamped on the parcel
   * @param content the store's content (plain data); not to be changed
   * @return the content to rebuild the store with
   * @throws RuntimeException when this version cannot read it; the message says why
   */
  default java.util.Map<String, Object> readStore(String level, int version,
      java.util.Map<String, Object> content) {
    throw new IllegalStateException("this worker's application writes state version "
        + stateVersion() + " and reads no other, and this " + level + " store was written by"
        + " state version " + version);
  }
}
