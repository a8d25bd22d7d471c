package dev.cryo.commander;

import java.lang.System.Logger.Level;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The event log followed by the run's {@link RunListener}s: what the routing maps record goes to
 * the log first, then to each listener; a listener that throws is logged, never propagated.
 * Thread-safe.
 */
final class Listeners implements EventSink {

  private static final System.Logger LOG = System.getLogger(Listeners.class.getName());

  private final EventSink log;
  private final List<RunListener> listeners = new CopyOnWriteArrayList<>();

  Listeners(EventSink log) {
    this.log = Objects.requireNonNull(log, "log");
  }

  void add(RunListener listener) {
    listeners.add(Objects.requireNonNull(listener, "listener"));
  }

  @Override
  public void record(String event, Map<String, Object> fields) {
    log.record(event, fields);
    for (RunListener listener : listeners) {
      try {
        listener.event(event, fields);
      } catch (RuntimeException e) {
        LOG.log(Level.WARNING, "a run listener failed on the event " + event + ": " + e);
      }
    }
  }

  void workerCall(String worker, boolean woke, boolean answered, long nanos) {
    for (RunListener listener : listeners) {
      try {
        listener.workerCall(worker, woke, answered, nanos);
      } catch (RuntimeException e) {
        LOG.log(Level.WARNING, "a run listener failed on a call to " + worker + ": " + e);
      }
    }
  }

  void heldWait(String user, boolean released, long nanos) {
    for (RunListener listener : listeners) {
      try {
        listener.heldWait(user, released, nanos);
      } catch (RuntimeException e) {
        LOG.log(Level.WARNING, "a run listener failed on a held wait of " + user + ": " + e);
      }
    }
  }
}
