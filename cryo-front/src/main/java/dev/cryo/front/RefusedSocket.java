package dev.cryo.front;

import org.eclipse.jetty.websocket.api.Callback;
import org.eclipse.jetty.websocket.api.Session;

/**
 * A socket accepted only to be closed at once with a close code that says why (a browser's script
 * sees the code, never an HTTP status): 1008 without a known connection cookie, 1013 while the run
 * admits no new work. Nothing it receives is read. Public only because Jetty calls its listener
 * methods through method handles; it has no public constructor and is no API.
 */
public final class RefusedSocket implements Session.Listener.AutoDemanding {

  private final int code;
  private final String reason;

  RefusedSocket(int code, String reason) {
    this.code = code;
    this.reason = reason;
  }

  @Override
  public void onWebSocketOpen(Session session) {
    session.close(code, reason, Callback.NOOP);
  }
}
