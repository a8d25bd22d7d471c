package dev.cryo.worker;

import java.util.Map;
import java.util.Objects;

/**
 * One call for a page, as the commander routes it to a worker: who it is for, what it is, and the
 * commander's verdict on where the user is.
 *
 * <p>{@code user} is the identity the commander resolved; {@code null} means "anonymous", and the
 * connection's owner is then used (its guest, {@code guest_<connection id>}, for a new connection).
 * {@code userFrozen} is the commander's verdict "this user is in the freezer": only with it does a
 * worker wake the user's own parcel; without it a user parcel is residue and is never touched.
 * {@code pageFields} are the fields of the page when the call brings it into being (ignored
 * otherwise). {@code operation} and {@code arguments} are for the application; arguments must be
 * plain data. Immutable and thread-safe.
 *
 * <p>A call may come from a connection without a page — an HTML shell, a login POST: its
 * {@code pageId} is then null, its chain is the user and the connection only, it stamps the clocks
 * of the connection and the user, and its page fields are ignored. It reaches pages by id through
 * {@link CallContext#withPageStore(String, java.util.function.Function)}.
 *
 * @param user the identity, or null for anonymous
 * @param connectionId the connection (browser, device) the call comes from
 * @param pageId the page the call is for, or null for a call from the connection itself
 * @param kind what the call is, which decides the clocks it stamps
 * @param userFrozen the commander's verdict that the user is frozen
 * @param operation the application's operation name
 * @param arguments the application's arguments
 * @param pageFields the fields of the page if this call creates it
 */
public record Call(String user, String connectionId, String pageId, CallKind kind,
    boolean userFrozen, String operation, Map<String, Object> arguments,
    Map<String, Object> pageFields) {

  /** Checks the parts and copies the maps. */
  public Call {
    Objects.requireNonNull(connectionId, "connectionId");
    Objects.requireNonNull(kind, "kind");
    operation = operation == null ? "" : operation;
    arguments = arguments == null ? Map.of() : Map.copyOf(arguments);
    pageFields = pageFields == null ? Map.of() : Map.copyOf(pageFields);
  }

  /** A real call ({@link CallKind#RPC}) with no verdict and no arguments. */
  public static Call rpc(String user, String connectionId, String pageId, String operation) {
    return new Call(user, connectionId, pageId, CallKind.RPC, false, operation, Map.of(), Map.of());
  }

  /** A human event ({@link CallKind#USER_EVENT}) with no verdict and no arguments. */
  public static Call userEvent(String user, String connectionId, String pageId, String operation) {
    return new Call(user, connectionId, pageId, CallKind.USER_EVENT, false, operation, Map.of(),
        Map.of());
  }

  /** A technical contact ({@link CallKind#PING}). */
  public static Call ping(String user, String connectionId, String pageId) {
    return new Call(user, connectionId, pageId, CallKind.PING, false, "", Map.of(), Map.of());
  }

  /** This call carrying the verdict "the user is frozen". */
  public Call withUserFrozen() {
    return new Call(user, connectionId, pageId, kind, true, operation, arguments, pageFields);
  }

  /** This call with {@code arguments} for the application. */
  public Call withArguments(Map<String, Object> newArguments) {
    return new Call(user, connectionId, pageId, kind, userFrozen, operation, newArguments,
        pageFields);
  }

  /** This call with the fields of the page it may bring into being. */
  public Call withPageFields(Map<String, Object> fields) {
    return new Call(user, connectionId, pageId, kind, userFrozen, operation, arguments, fields);
  }
}
