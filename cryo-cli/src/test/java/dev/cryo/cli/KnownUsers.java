package dev.cryo.cli;

import dev.cryo.cli.DemoClient.Answer;
import java.net.URI;
import java.net.http.HttpClient;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Many cookie-less browsers of the demo whose every state the test knows: user {@code i} opens a
 * page, logs in as {@code known-i@example.org} when {@code i % 4 == 0} (a guest otherwise), then
 * clicks the counter {@code 1 + i % 5} times; a load then keeps clicking on a subset. Every click
 * is recorded with the time its answer came: a 200 is acknowledged (its value and arrival), any
 * other answer or no answer (a 502, a 503, a reset) leaves the click in flight, counted as
 * {@linkplain User#unsure() unsure} until the next acknowledgement.
 *
 * <p>Thread-safe: each user is driven by one thread at a time (one tab: one request at a time);
 * his record is read under his monitor. At most {@code concurrency} requests are sent at once
 * (the front refuses more than 256 connections from one address).
 */
final class KnownUsers {

  /** One browser: its tab, page and name, and what cryo acknowledged to it. */
  static final class User {
    final int index;
    final DemoClient tab;
    private String page;
    private String name;
    private String worker;
    private long acked;
    private long ackedAt; // System.nanoTime() when the last acknowledgement arrived
    private final List<long[]> acks = new ArrayList<>(); // {arrival nanos, value}
    private int unsure;
    private boolean wentBack; // a 200 answered no more than a value acknowledged before it
    private long wentBackBy; // the most clicks such a 200 showed lost

    User(int index, DemoClient tab) {
      this.index = index;
      this.tab = tab;
    }

    /** The identity this user logs into, or null for a guest. */
    String identity() {
      return index % 4 == 0 ? "known-" + index + "@example.org" : null;
    }

    int clicks() {
      return 1 + index % 5;
    }

    synchronized String page() {
      return page;
    }

    synchronized String name() {
      return name;
    }

    /** The worker of his last 200. */
    synchronized String worker() {
      return worker;
    }

    /** The value of his last 200. */
    synchronized long acked() {
      return acked;
    }

    /** Clicks sent since his last 200 with no 200 for them: they may or may not have counted. */
    synchronized int unsure() {
      return unsure;
    }

    /** Whether a 200 answered a counter no higher than one acknowledged before it. */
    synchronized boolean wentBack() {
      return wentBack;
    }

    /** The most clicks a 200 showed lost ({@link #wentBack}), 0 if none did. */
    synchronized long wentBackBy() {
      return wentBackBy;
    }

    /** The value of the last acknowledgement that arrived at or before {@code nanos}; 0 if none. */
    synchronized long ackedBy(long nanos) {
      long value = 0;
      for (long[] ack : acks) {
        if (ack[0] - nanos <= 0) {
          value = ack[1];
        }
      }
      return value;
    }

    /** The arrival (nanos) of his first acknowledgement: when he held state first. */
    synchronized long firstAckedAt() {
      return acks.isEmpty() ? ackedAt : acks.get(0)[0];
    }

    /** The arrival (nanos) of his last acknowledgement. */
    synchronized long ackedAt() {
      return ackedAt;
    }

    synchronized void counted(Answer answer, long arrival) {
      long value = answer.number("counter");
      if (!acks.isEmpty() && value <= acked) {
        wentBack = true;
        wentBackBy = Math.max(wentBackBy, acked + 1 - value);
      }
      acked = value;
      ackedAt = arrival;
      acks.add(new long[] {arrival, value});
      unsure = 0;
      worker = answer.field("worker");
      name = answer.field("user");
    }

    synchronized void inFlight() {
      unsure++;
    }

    synchronized void opened(String page, String worker) {
      this.page = page;
      this.worker = worker;
    }

    @Override
    public synchronized String toString() {
      return name + " (user " + index + ", page " + page + ", last on " + worker + ", acked "
          + acked + ", unsure " + unsure + ")";
    }
  }

  private final List<User> users;
  private final Semaphore permits;

  private KnownUsers(List<User> users, int concurrency) {
    this.users = users;
    this.permits = new Semaphore(concurrency);
  }

  List<User> users() {
    return users;
  }

  /**
   * Makes {@code count} users on the run at {@code base}, each with his exact state (every answer
   * must be a 200 with the expected counter), at most {@code concurrency} requests at once.
   *
   * @throws AssertionError naming the first user whose answer was not the expected one
   */
  static KnownUsers make(HttpClient http, URI base, ExecutorService threads, int count,
      int concurrency) throws Exception {
    List<User> users = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      users.add(new User(i, new DemoClient(http, base)));
    }
    KnownUsers known = new KnownUsers(users, concurrency);
    List<Future<?>> made = new ArrayList<>();
    for (User user : users) {
      made.add(threads.submit(() -> {
        known.permits.acquire();
        try {
          known.make(user);
        } finally {
          known.permits.release();
        }
        return null;
      }));
    }
    for (Future<?> one : made) {
      one.get();
    }
    return known;
  }

  private void make(User user) throws Exception {
    Answer opened = user.tab.post("/api/pages", Map.of());
    expect(user, "open a page", opened);
    user.opened(opened.field("page"), opened.field("worker"));
    if (user.identity() != null) {
      Answer login = user.tab.post("/api/login", Map.of("user", user.identity(),
          "page", user.page()));
      expect(user, "log in", login);
      if (!user.identity().equals(login.field("user")) || login.number("counter") != 0) {
        throw new AssertionError(user + ": the login answered " + login.text());
      }
    }
    for (int n = 1; n <= user.clicks(); n++) {
      Answer counted = user.tab.post("/api/counter", Map.of("page", user.page()));
      expect(user, "click " + n, counted);
      if (counted.number("counter") != n) {
        throw new AssertionError(user + ": click " + n + " answered " + counted.text());
      }
      user.counted(counted, System.nanoTime());
    }
  }

  private static void expect(User user, String what, Answer answer) {
    if (answer.status() != 200) {
      throw new AssertionError(user + ": " + what + " answered " + answer.status() + " "
          + answer.text());
    }
  }

  /**
   * Starts the load: each user of {@code clicking} clicks his page's counter, one click at a time
   * with {@code think} millis between (a person's pace), until {@link Load#stop} (and for the
   * click in flight then). Each answer is recorded; an exception is a click in flight.
   */
  Load load(ExecutorService threads, List<User> clicking, long think) {
    AtomicBoolean going = new AtomicBoolean(true);
    AtomicInteger acknowledged = new AtomicInteger();
    List<Future<?>> running = new ArrayList<>();
    for (User user : clicking) {
      running.add(threads.submit(() -> {
        while (going.get()) {
          permits.acquire();
          try {
            Answer answer = user.tab.post("/api/counter", Map.of("page", user.page()));
            if (answer.status() == 200) {
              user.counted(answer, System.nanoTime());
              acknowledged.incrementAndGet();
            } else {
              user.inFlight(); // a 502 may have counted; a 503 did not, but is not told apart
            }
          } catch (java.io.IOException e) {
            user.inFlight(); // no answer: it may have counted
          } finally {
            permits.release();
          }
          Thread.sleep(think);
        }
        return null;
      }));
    }
    return new Load(going, acknowledged, running);
  }

  /** A running load: how many clicks it had acknowledged, and its stop. */
  record Load(AtomicBoolean going, AtomicInteger acknowledged, List<Future<?>> running) {
    /** Stops sending clicks and waits for those in flight to be answered (or to fail). */
    void stop() throws Exception {
      going.set(false);
      for (Future<?> one : running) {
        one.get();
      }
    }
  }

  /**
   * Reads each user's state through {@code tabs} (by user index: his own tab, or one with his
   * cookie on the next run) and his page, at most the concurrency at once, asking again (bounded
   * by {@link Poll#PATIENCE}) while it answers 503 (the run starting, the user held); returns the
   * answers by user index.
   */
  List<Answer> states(ExecutorService threads, List<DemoClient> tabs) throws Exception {
    List<Future<Answer>> read = new ArrayList<>();
    for (User user : users) {
      DemoClient tab = tabs.get(user.index);
      read.add(threads.submit(() -> {
        permits.acquire();
        try {
          long deadline = System.nanoTime() + Poll.PATIENCE.toNanos();
          Answer answer = tab.get("/api/state?page=" + user.page());
          while (answer.status() == 503 && System.nanoTime() - deadline < 0) {
            Thread.sleep(100); // Retry-After: the run is starting or holds him
            answer = tab.get("/api/state?page=" + user.page());
          }
          return answer;
        } finally {
          permits.release();
        }
      }));
    }
    List<Answer> answers = new ArrayList<>();
    for (Future<Answer> one : read) {
      answers.add(one.get());
    }
    return answers;
  }
}
