package dev.cryo.chaos.load;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The virtual users of a run and their processes, on virtual threads: each user opens his pages,
 * then each page's process increments, reads, writes notes and now and then moves its user; a
 * login process logs users into identities, some shared and some raced by two users at once; a
 * move storm moves one user as fast as the run lets it. {@link #start} begins, {@link #stop} ends
 * every process (each finishes its operation in flight), {@link #finalReads} reads every user's
 * state once more, over HTTP, for the checker's last word.
 */
public final class Workload {

  /** The pause of a process after no reply or a 503, beside its think time. */
  static final Duration BACK_OFF = Duration.ofMillis(500);

  private final WorkloadOptions options;
  private final Recorder recorder;
  private final List<VirtualUser> users = new ArrayList<>();
  private final List<ReentrantLock> loginLocks = new ArrayList<>();
  private final List<Thread> threads = new ArrayList<>();
  private final AtomicLong races = new AtomicLong();
  private final SplittableRandom random;
  private volatile boolean running;

  /** A workload of {@code options} against {@code client}, recorded by {@code recorder}. */
  public Workload(WorkloadOptions options, DemoClient client, Recorder recorder) {
    this.options = options;
    this.recorder = recorder;
    this.random = new SplittableRandom(options.seed());
    for (int i = 0; i < options.users(); i++) {
      users.add(new VirtualUser(String.format("u%03d", i), client, recorder,
          random.nextDouble() < options.socketShare(), options.timeout()));
      loginLocks.add(new ReentrantLock());
    }
  }

  /** Starts every process. */
  public synchronized void start() {
    running = true;
    for (VirtualUser user : users) {
      int pages = 1 + random.nextInt(options.maxPages());
      SplittableRandom own = random.split();
      threads.add(Thread.ofVirtual().name(user.name()).start(() -> begin(user, pages, own)));
    }
    if (options.loginsPerSecond() > 0) {
      SplittableRandom own = random.split();
      threads.add(Thread.ofVirtual().name("logins").start(() -> logins(own)));
    }
  }

  private void begin(VirtualUser user, int pages, SplittableRandom random) {
    try {
      pause(random, options.think().multipliedBy(10));
      VirtualUser.Page first = user.newPage();
      String process = user.name() + "/1";
      while (running && !user.open(process, first)) {
        Thread.sleep(200);
      }
      for (int i = 2; i <= pages && running; i++) {
        VirtualUser.Page page = user.newPage();
        String name = user.name() + "/" + i;
        SplittableRandom own = random.split();
        Thread thread = Thread.ofVirtual().name(name).start(() -> process(user, name, page, own));
        synchronized (this) {
          threads.add(thread);
        }
      }
      process(user, process, first, random);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void process(VirtualUser user, String process, VirtualUser.Page page,
      SplittableRandom random) {
    try {
      while (running) {
        if (page.id == null) {
          if (!user.open(process, page)) {
            Thread.sleep(200);
          }
          continue;
        }
        double draw = random.nextDouble();
        double rest = 1 - options.moveShare();
        Reply reply;
        if (draw < options.moveShare()) {
          reply = user.move(process);
        } else if (draw < options.moveShare() + rest * 0.5) {
          reply = user.increment(process, page);
        } else if (draw < options.moveShare() + rest * 0.75) {
          reply = user.read(process, page);
        } else {
          reply = user.note(process, page);
        }
        if (reply == null || reply.status() == 503) {
          Thread.sleep(BACK_OFF.toMillis()); // as a browser would: no reply, or "retry later"
        }
        pause(random, options.think());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void logins(SplittableRandom random) {
    long gap = Math.max(1, (long) (1000 / options.loginsPerSecond()));
    try {
      while (running) {
        Thread.sleep(gap);
        if (random.nextDouble() < options.raceShare()) {
          int a = random.nextInt(users.size());
          int b = random.nextInt(users.size());
          if (a != b) {
            race(a, b, "race" + races.incrementAndGet());
          }
        } else {
          int a = random.nextInt(users.size());
          int pool = Math.max(1, users.size() / 4);
          loginAlone(a, "id" + random.nextInt(pool));
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Users {@code a} and {@code b} log into the new identity at the same instant. */
  private void race(int a, int b, String identity) throws InterruptedException {
    CountDownLatch go = new CountDownLatch(1);
    for (int index : new int[] {a, b}) {
      Thread.ofVirtual().start(() -> {
        try {
          go.await();
          loginAlone(index, identity);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      });
    }
    go.countDown();
  }

  private void loginAlone(int index, String identity) throws InterruptedException {
    VirtualUser user = users.get(index);
    ReentrantLock lock = loginLocks.get(index);
    if (!user.hasCookie() || !lock.tryLock()) {
      return;
    }
    try {
      user.login(user.name() + "/login", identity);
    } finally {
      lock.unlock();
    }
  }

  /**
   * Moves one user (picked by {@code pick}) back to back for {@code length} while his pages go on
   * writing; returns his name.
   */
  public String storm(int pick, Duration length) throws InterruptedException {
    VirtualUser user = users.get(Math.floorMod(pick, users.size()));
    long end = System.nanoTime() + length.toNanos();
    while (running && System.nanoTime() < end) {
      user.move(user.name() + "/storm");
    }
    return user.name();
  }

  /** Ends every process; each finishes the operation it has in flight. */
  public void stop() throws InterruptedException {
    running = false;
    List<Thread> all;
    synchronized (this) {
      all = new ArrayList<>(threads);
    }
    long deadline = System.nanoTime() + options.timeout().plusSeconds(5).toNanos();
    for (Thread thread : all) {
      thread.join(Duration.ofNanos(Math.max(1, deadline - System.nanoTime())));
    }
    users.forEach(VirtualUser::close);
  }

  /**
   * Reads every user's state once more over HTTP — each page, or the user alone when he has none —
   * retrying a read that does not succeed until {@code budget} has passed.
   */
  public void finalReads(Duration budget) throws InterruptedException {
    long deadline = System.nanoTime() + budget.toNanos();
    List<Thread> readers = new ArrayList<>();
    for (VirtualUser user : users) {
      readers.add(Thread.ofVirtual().start(() -> {
        try {
          List<VirtualUser.Page> pages = user.pages();
          if (pages.stream().allMatch(page -> page.id == null)) {
            pages = java.util.Collections.singletonList(null);
          }
          for (VirtualUser.Page page : pages) {
            if (page != null && page.id == null) {
              continue;
            }
            while (user.hasCookie()) {
              Reply reply = user.read(user.name() + "/final", page);
              if ((reply != null && (reply.done() || reply.status() == 404))
                  || System.nanoTime() > deadline) {
                break;
              }
              Thread.sleep(500);
            }
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }));
    }
    for (Thread reader : readers) {
      reader.join(Duration.ofNanos(Math.max(1, deadline - System.nanoTime()) + 20_000_000_000L));
    }
  }

  private static void pause(SplittableRandom random, Duration mean) throws InterruptedException {
    long micros = mean.toNanos() / 1000;
    if (micros > 0) {
      TimeUnit.MICROSECONDS.sleep(random.nextLong(2 * micros + 1));
    }
  }
}
