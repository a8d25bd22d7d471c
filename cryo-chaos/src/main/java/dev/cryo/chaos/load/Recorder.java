package dev.cryo.chaos.load;

import dev.cryo.chaos.history.Entry;
import dev.cryo.chaos.history.FaultKind;
import dev.cryo.chaos.history.Function;
import dev.cryo.chaos.history.History;
import java.io.IOException;
import java.net.ConnectException;
import java.net.http.HttpConnectTimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * Writes a run's history: stamps every line with the run's monotonic clock and the wall clock,
 * numbers operations and faults, and classifies a completion as {@code ok}, {@code fail} or
 * {@code info}. Thread-safe.
 */
public final class Recorder {

  private final History history;
  private final long origin = System.nanoTime();
  private final AtomicLong ids = new AtomicLong();
  private final LongAdder completed = new LongAdder();

  /** Records into {@code history}. */
  public Recorder(History history) {
    this.history = history;
  }

  /** An operation begun, to be completed once by {@link #complete} or {@link #unknown}. */
  public record Invocation(long op, String vuser, String process, Function f, String via,
      String page) {}

  /** Nanoseconds since this recorder was made. */
  public long now() {
    return System.nanoTime() - origin;
  }

  /** Records an invocation. */
  public Invocation invoke(String vuser, String process, Function f, String via, String user,
      String page, String arg) {
    long op = ids.incrementAndGet();
    history.append(Entry.invoke(now(), System.currentTimeMillis(), op, vuser, process, f, via,
        user, page, arg));
    return new Invocation(op, vuser, process, f, via, page);
  }

  /**
   * Records the completion of {@code invocation} by {@code reply}: ok, fail or info;
   * {@code cookie} is {@link Entry#COOKIE_NEW}, {@link Entry#COOKIE_DROPPED} or null (see
   * {@link Entry}).
   */
  public void complete(Invocation invocation, Reply reply, String cookie) {
    String type = reply.done() ? Entry.OK : reply.refused() ? Entry.FAIL : Entry.INFO;
    completed.increment();
    history.append(new Entry(type, now(), System.currentTimeMillis(), invocation.op(),
        invocation.vuser(), invocation.process(), invocation.f().wireName(), invocation.via(),
        reply.user(), reply.page() != null ? reply.page() : invocation.page(), null,
        reply.status(), reply.error(), reply.counter(), reply.pageCounter(), reply.noteMax(),
        reply.notes(), reply.worker(), reply.servedBy(), reply.generation(), cookie, null,
        reply.message()));
  }

  /**
   * Records the completion of {@code invocation} with no reply: {@code fail} when the request
   * provably never left (the connection was refused), else {@code info}.
   */
  public void unknown(Invocation invocation, Throwable failure) {
    boolean neverSent = failure instanceof ConnectException
        || failure instanceof HttpConnectTimeoutException
        || failure instanceof NotSent;
    completed.increment();
    history.append(new Entry(neverSent ? Entry.FAIL : Entry.INFO, now(),
        System.currentTimeMillis(), invocation.op(), invocation.vuser(), invocation.process(),
        invocation.f().wireName(), invocation.via(), null, invocation.page(), null, null,
        failure.getClass().getSimpleName(), null, null, null, null, null, null, null, null, null,
        failure.getMessage() == null ? null : shorten(failure.getMessage())));
  }

  /** Records a push received on a page socket. */
  public void push(String vuser, String page, String user, Long counter, Long pageCounter) {
    history.append(new Entry(Entry.PUSH, now(), System.currentTimeMillis(), null, vuser, null,
        null, "ws", user, page, null, null, null, counter, pageCounter, null, null, null, null,
        null, null, null, null));
  }

  /** Records a fault's start; returns its id for {@link #faultEnd}. */
  public long faultStart(FaultKind kind, String detail) {
    long id = ids.incrementAndGet();
    history.append(Entry.fault(Entry.FAULT_START, now(), System.currentTimeMillis(), id, kind,
        detail));
    return id;
  }

  /** Records a fault's end. */
  public void faultEnd(long id, FaultKind kind, String detail) {
    history.append(Entry.fault(Entry.FAULT_END, now(), System.currentTimeMillis(), id, kind,
        detail));
  }

  /** Records the run's description. */
  public void meta(String detail) {
    history.append(Entry.meta(now(), System.currentTimeMillis(), detail));
  }

  /** How many operations completed so far. */
  public long completed() {
    return completed.sum();
  }

  /** Writes what is buffered to the history file. */
  public void flush() throws IOException {
    history.flush();
  }

  private static String shorten(String message) {
    return message.length() <= 200 ? message : message.substring(0, 200);
  }

  /** A request that provably never left this process (a page socket that was not open). */
  public static final class NotSent extends IOException {
    /** Says why it was not sent. */
    public NotSent(String message) {
      super(message);
    }
  }
}
