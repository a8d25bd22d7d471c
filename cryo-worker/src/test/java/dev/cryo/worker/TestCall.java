package dev.cryo.worker;

import dev.cryo.wire.protocol.Grant;
import java.util.Map;

/**
 * A call of the worker's tests to {@link StoreApplication}: how it arrives at the worker (who, which
 * connection and page, which grant, which clocks) and which operation it asks, with its arguments
 * (query parameters, and {@code value} as the body of a put). {@link Harness#call} serves it
 * through {@link AppHost}; a ping ({@link Arrival.Clocks#REFRESH}) goes to {@link Worker#ping}.
 */
record TestCall(Arrival arrival, String operation, Map<String, Object> arguments) {

  TestCall {
    arguments = arguments == null ? Map.of() : Map.copyOf(arguments);
  }

  /** A call of a page's code, a worker alone's birth grant. */
  static TestCall rpc(String user, String connection, String page, String operation) {
    return of(user, connection, page, Arrival.Clocks.RPC, operation);
  }

  /** A human event, a worker alone's birth grant. */
  static TestCall userEvent(String user, String connection, String page, String operation) {
    return of(user, connection, page, Arrival.Clocks.USER, operation);
  }

  /** A beat: stamps the refresh clock, never serves. */
  static TestCall ping(String user, String connection, String page) {
    return of(user, connection, page, Arrival.Clocks.REFRESH, "");
  }

  private static TestCall of(String user, String connection, String page, Arrival.Clocks clocks,
      String operation) {
    return new TestCall(new Arrival(user, connection, page, Grant.ALONE, clocks, Map.of()),
        operation, Map.of());
  }

  /** This call with the verdict "the user is frozen": a wake at its grant's generation. */
  TestCall withUserFrozen() {
    return withGrant(Grant.wake(arrival.grant().generation(), arrival.grant().generation()));
  }

  /** This call under {@code grant}. */
  TestCall withGrant(Grant grant) {
    return new TestCall(new Arrival(arrival.user(), arrival.connectionId(), arrival.pageId(), grant,
        arrival.clocks(), arrival.pageFields()), operation, arguments);
  }

  /** This call with {@code values} as its arguments. */
  TestCall withArguments(Map<String, Object> values) {
    return new TestCall(arrival, operation, values);
  }

  /** This call with the fields of the page it may bring into being. */
  TestCall withPageFields(Map<String, Object> fields) {
    return new TestCall(new Arrival(arrival.user(), arrival.connectionId(), arrival.pageId(),
        arrival.grant(), arrival.clocks(), fields), operation, arguments);
  }

  /** The user the call names, or null. */
  String user() {
    return arrival.user();
  }

  /** The call's connection. */
  String connectionId() {
    return arrival.connectionId();
  }

  /** The call's page, or null. */
  String pageId() {
    return arrival.pageId();
  }

  /** The call's grant. */
  Grant grant() {
    return arrival.grant();
  }
}
