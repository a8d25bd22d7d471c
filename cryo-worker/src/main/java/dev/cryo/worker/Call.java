package dev.cryo.worker;

import dev.cryo.wire.protocol.Grant;
import java.util.Map;
import java.util.Objects;

/**
 * One call for a page, as the commander routes it to a worker: who it is for, what it is, and the
 * commander's verdict on where the user is.
 *
 * <p>{@code user} is the identity the commander resolved; {@code null} means "anonymous", and the
 * connection's owner is then used (its guest, {@code guest_<connection id>}, for a new connection).
 * {@code grant} is the commander's leave to serve him ({@link Grant}): the generation the worker
 * must hold him at, and whether the call may create him (a birth) or wake his own parcel (a wake);
 * without a wake grant a user parcel is residue and is never touched, and without a birth or a
 * wake grant nobody is created. The factories grant {@link Grant#ALONE}: a worker alone's birth.
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
 * @param grant the commander's leave to serve the user, fenced by his generation
 * @param operation the application's operation name
 * @param arguments the application's arguments
 * @param pageFields the fields of the page if this call creates it
 */
public record Call(String user, String connectionId, String pageId, CallKind kind,
    Grant grant, String operation, Map<String, Object> arguments,
    Map<String, Object> pageFields) {

  /** Checks the parts and copies the maps. */
  public Call {
    Objects.requireNonNull(connectionId, "connectionId");
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(grant, "grant");
    operation = operation == null ? "" : operation;
    arguments = arguments == null ? Map.of() : Map.copyOf(arguments);
    pageFields = pageFields == null ? Map.of() : Map.copyOf(pageFields);
  }

  /** A real call ({@link CallKind#RPC}) with no verdict and no arguments. */
  public static Call rpc(String user, String connectionId, String pageId, String operation) {
    return new Call(user, connectionId, pageId, CallKind.RPC, Grant.ALONE, operation, Map.of(), Map.of());
  }

  /** A human event ({@link CallKind#USER_EVENT}) with no verdict and no arguments. */
  public static Call userEvent(String user, String connectionId, String pageId, String operation) {
    return new Call(user, connectionId, pageId, CallKind.USER_EVENT, Grant.ALONE, operation, Map.of(),
        Map.of());
  }

  /** A technical contact ({@link CallKind#PING}). */
  public static Call ping(String user, String connectionId, String pageId) {
    return new Call(user, connectionId, pageId, CallKind.PING, Grant.ALONE, "", Map.of(), Map.of());
  }

  /** Whether the call may wake the user's own parcel: its grant is a wake. */
  public boolean userFrozen() {
    return grant.kind() == Grant.Kind.WAKE;
  }

  /**
   * This call carrying the verdict "the user is frozen": a wake at its generation, from a parcel of
   * that generation or newer.
   */
  public Call withUserFrozen() {
    return withGrant(Grant.wake(grant.generation(), grant.generation()));
  }

  /** This call under {@code newGrant}. */
  public Call withGrant(Grant newGrant) {
    return new Call(user, connectionId, pageId, kind, newGrant, operation, arguments, pageFields);
  }

  /** This call with {@code arguments} for the application. */
  public Call withArguments(Map<String, Object> newArguments) {
    return new Call(user, connectionId, pageId, kind, grant, operation, newArguments,
        pageFields);
  }

  /** This call with the fields of the page it may bring into being. */
  public Call withPageFields(Map<String, Object> fields) {
    return new Call(user, connectionId, pageId, kind, grant, operation, arguments, fields);
  }
}
