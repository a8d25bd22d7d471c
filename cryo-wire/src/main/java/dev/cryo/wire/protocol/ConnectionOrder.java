package dev.cryo.wire.protocol;

import java.util.Objects;

/**
 * An order about one connection ({@code drop_connection}).
 *
 * @param connection the connection
 */
public record ConnectionOrder(String connection) {

  /** Checks the connection. */
  public ConnectionOrder {
    Objects.requireNonNull(connection, "connection");
  }
}
