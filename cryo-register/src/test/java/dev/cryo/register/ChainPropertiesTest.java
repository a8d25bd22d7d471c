package dev.cryo.register;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.RandomDistribution;
import net.jqwik.api.ShrinkingMode;
import net.jqwik.api.statistics.Statistics;

/**
 * Properties of the chain under any sequence of lifecycle operations, from one thread and from
 * several at once: both directions of every edge agree, every index agrees with its rows, no row is
 * orphaned, every page's user is derivable, every refused operation changed nothing, and every page
 * is subscribed once and detached exactly when it leaves.
 *
 * <p>The universe is wide enough for the structures to grow: a dozen connections and two dozen
 * pages, drawn with a bias (most pages on {@code c0}, most connections of {@code anna}), so that a
 * connection's set of pages passes 8 keys and a register's map passes the 12 entries at which a
 * default hash map resizes; the statistics of the single-thread property check that they do. The
 * operations also hold row locks (a page's, a connection's, a user's) around other operations, as
 * a call holding its page does, and touch the rows' live stores under their locks; a refusal of
 * the lock order is a refusal like any other, which must change nothing.
 */
class ChainPropertiesTest {

  private static final List<String> NAMED = List.of("anna", "bob", "carl", "dora", "emil",
      "fanny", "gus", "hedi", "ivo", "jana");
  private static final List<String> CONNECTIONS = IntStream.range(0, 12)
      .mapToObj(i -> "c" + i).toList();
  private static final List<String> PAGES = IntStream.range(0, 24)
      .mapToObj(i -> "p" + i).toList();
  private static final List<String> USERS = concat(NAMED, List.of("guest_c0", "guest_c1"));
  private static final List<String> TARGETS = concat(NAMED, List.of("zoe", "guest_c2"));
  /** Most connections of one user (more than 8 keys in its set), the rest spread. */
  private static final Arbitrary<String> SKEWED_USERS = skewed("anna", USERS);
  /** Most pages on one connection (more than 8 keys in its set), the rest spread. */
  private static final Arbitrary<String> SKEWED_CONNECTIONS = skewed("c0", CONNECTIONS);

  private static List<String> concat(List<String> first, List<String> second) {
    return Stream.concat(first.stream(), second.stream()).toList();
  }

  private static Arbitrary<String> skewed(String favourite, List<String> all) {
    return Arbitraries.frequencyOf(net.jqwik.api.Tuple.of(3 * all.size(), Arbitraries.just(favourite)),
        net.jqwik.api.Tuple.of(all.size(), Arbitraries.of(all)));
  }

  /** One lifecycle call; a description for shrunk counterexamples. */
  interface Operation {
    void apply(RegisterRegistry registry);
  }

  record NewUser(String user) implements Operation {
    public void apply(RegisterRegistry registry) {
      registry.newUser(user);
    }
  }

  record NewConnection(String connection, String user) implements Operation {
    public void apply(RegisterRegistry registry) {
      registry.newConnection(connection, user, Map.of());
    }
  }

  record NewPage(String page, String user, String connection, String parent, String root)
      implements Operation {
    public void apply(RegisterRegistry registry) {
      Map<String, Object> fields = new HashMap<>();
      if (parent != null) {
        fields.put(PageRow.PARENT_PAGE_ID, parent);
      }
      if (root != null) {
        fields.put(PageRow.ROOT_PAGE_ID, root);
      }
      registry.newPage(page, user, connection, fields);
    }
  }

  /**
   * A tab opening several root pages in a row, as a burst of {@link NewPage}s: each is its own
   * operation, and a refused one (a page already there, the connection another user's) refuses
   * that page only.
   */
  record NewPages(String user, String connection, int from, int count) implements Operation {
    public void apply(RegisterRegistry registry) {
      for (int i = 0; i < count; i++) {
        try {
          registry.newPage(PAGES.get((from + i) % PAGES.size()), user, connection, Map.of());
        } catch (RegisterException refused) {
          // that page only
        }
      }
    }
  }

  record UpdatePage(String page, String root) implements Operation {
    public void apply(RegisterRegistry registry) {
      registry.updatePage(page, Map.of(PageRow.ROOT_PAGE_ID, root, "title", root));
    }
  }

  record WriteRow(String page, String root) implements Operation {
    public void apply(RegisterRegistry registry) {
      registry.pageItems().get(page).ifPresent(row -> row.set(PageRow.ROOT_PAGE_ID, root));
    }
  }

  record Login(String connection, String user) implements Operation {
    public void apply(RegisterRegistry registry) {
      registry.changeConnectionUser(connection, user, Map.of("login", user));
    }
  }

  record DropPage(String page, boolean cascade) implements Operation {
    public void apply(RegisterRegistry registry) {
      registry.dropPage(page, cascade);
    }
  }

  record DropConnection(String connection, boolean cascade) implements Operation {
    public void apply(RegisterRegistry registry) {
      registry.dropConnection(connection, cascade);
    }
  }

  record DropUser(String user) implements Operation {
    public void apply(RegisterRegistry registry) {
      registry.dropUser(user);
    }
  }

  record IndexConnectionsByUser() implements Operation {
    public void apply(RegisterRegistry registry) {
      registry.addIndex(RegisterRegistry.CONNECTION_ITEMS, ConnectionRow.USER);
    }
  }

  /** Which register a row is taken from. */
  enum Level { PAGE, CONNECTION, USER }

  private static Optional<? extends Row> row(RegisterRegistry registry, Level level, String key) {
    return switch (level) {
      case PAGE -> registry.pageItems().get(key);
      case CONNECTION -> registry.connectionItems().get(key);
      case USER -> registry.userItems().get(key);
    };
  }

  /** Locks a row and counts a touch in its live store, as a call does with its own state. */
  record TouchStore(Level level, String key) implements Operation {
    public void apply(RegisterRegistry registry) {
      row(registry, level, key).ifPresent(row -> {
        row.lock().lock();
        try {
          Store store = ((ChainRow) row).store(Store.class);
          Integer touches = store.get("touches", Integer.class);
          store.set("touches", touches == null ? 1 : touches + 1);
        } finally {
          row.lock().unlock();
        }
      });
    }
  }

  /** Holds a row's lock (when the row is there) around another operation. */
  record Holding(Level level, String key, Operation inner) implements Operation {
    public void apply(RegisterRegistry registry) {
      Optional<? extends Row> held = row(registry, level, key);
      if (held.isEmpty()) {
        inner.apply(registry);
        return;
      }
      held.get().lock().lock();
      try {
        inner.apply(registry);
      } finally {
        held.get().lock().unlock();
      }
    }
  }

  @Provide
  Arbitrary<Operation> operation() {
    Arbitrary<Operation> plain = plainOperation();
    Arbitrary<String> keys = Arbitraries.oneOf(Arbitraries.of(PAGES), SKEWED_CONNECTIONS,
        SKEWED_USERS);
    return Arbitraries.frequencyOf(
        weighted(30, plain),
        weighted(3, Combinators.combine(Arbitraries.of(Level.class), keys).as(TouchStore::new)),
        weighted(4, Combinators.combine(Arbitraries.of(Level.class), keys,
            Arbitraries.oneOf(plain, Combinators.combine(Arbitraries.of(Level.class), keys)
                .as(TouchStore::new))).as(Holding::new)));
  }

  private Arbitrary<Operation> plainOperation() {
    Arbitrary<String> users = SKEWED_USERS;
    Arbitrary<String> connections = SKEWED_CONNECTIONS;
    Arbitrary<String> pages = Arbitraries.of(PAGES);
    Arbitrary<String> maybePage = pages.injectNull(0.5);
    return Arbitraries.frequencyOf(
        weighted(2, users.map(NewUser::new)),
        weighted(3, Combinators.combine(connections, users.injectNull(0.5))
            .as(NewConnection::new)),
        weighted(8, Combinators.combine(pages, users, connections, maybePage, pages.injectNull(0.2))
            .as((page, user, connection, parent, root) ->
                new NewPage(page, user, connection, parent, parent == null ? null : root))),
        weighted(2, Combinators.combine(users, connections, Arbitraries.integers().between(0,
            PAGES.size() - 1), Arbitraries.integers().between(4, 12)).as(NewPages::new)),
        weighted(2, Combinators.combine(pages, pages).as(UpdatePage::new)),
        weighted(2, Combinators.combine(pages, pages).as(WriteRow::new)),
        weighted(3, Combinators.combine(connections, Arbitraries.of(TARGETS)).as(Login::new)),
        weighted(3, Combinators.combine(pages, Arbitraries.of(true, true, false))
            .as(DropPage::new)),
        weighted(2, Combinators.combine(connections, Arbitraries.of(true, false))
            .as(DropConnection::new)),
        weighted(2, Arbitraries.of(concat(TARGETS, List.of("guest_c0", "guest_c1", "guest_c3")))
            .map(DropUser::new)),
        weighted(1, Arbitraries.just(new IndexConnectionsByUser())));
  }

  private static net.jqwik.api.Tuple.Tuple2<Integer, Arbitrary<? extends Operation>> weighted(
      int weight, Arbitrary<? extends Operation> arbitrary) {
    return net.jqwik.api.Tuple.of(weight, arbitrary);
  }

  @Provide
  Arbitrary<List<Operation>> operations() {
    return operation().list().ofMinSize(1).ofMaxSize(150)
        .withSizeDistribution(RandomDistribution.uniform());
  }

  @Provide
  Arbitrary<List<List<Operation>>> threads() {
    return operation().list().ofMinSize(50).ofMaxSize(200)
        .withSizeDistribution(RandomDistribution.uniform()).list().ofSize(3);
  }

  /** A consumer registry accounting for its seams, per page row (by identity). */
  static final class SeamRegistry extends RegisterRegistry {
    final Map<PageRow, Integer> subscribed = Collections.synchronizedMap(new IdentityHashMap<>());
    final Map<PageRow, Integer> detached = Collections.synchronizedMap(new IdentityHashMap<>());

    @Override
    protected void subscribePageStore(PageRow page) {
      subscribed.merge(page, 1, Integer::sum);
    }

    @Override
    protected void detachPage(PageRow page) {
      Thread.yield(); // widen the window between a demolition's claim and its removal
      detached.merge(page, 1, Integer::sum);
    }

    List<String> seamViolations() {
      List<String> out = new ArrayList<>();
      synchronized (subscribed) {
        subscribed.forEach((page, times) -> {
          int detaches = detached.getOrDefault(page, 0);
          if (times != 1) {
            out.add("page " + page.key() + " subscribed " + times + " times");
          }
          if (detaches != (page.isRegistered() ? 0 : 1)) {
            out.add("page " + page.key() + (page.isRegistered() ? " (registered)" : " (gone)")
                + " detached " + detaches + " times");
          }
        });
      }
      List<PageRow> registered;
      java.util.concurrent.locks.Lock read = pageItems().structure().read();
      read.lock();
      try {
        registered = List.copyOf(pageItems().rowsLocked());
      } finally {
        read.unlock();
      }
      for (PageRow page : registered) {
        if (!subscribed.containsKey(page)) {
          out.add("page " + page.key() + " registered but never subscribed");
        }
      }
      return out;
    }
  }

  @Property(tries = 300, shrinking = ShrinkingMode.FULL)
  void anySequenceFromOneThreadKeepsTheChainSound(
      @ForAll("operations") List<Operation> operations, @ForAll boolean withSeams) {
    RegisterRegistry registry = withSeams ? new SeamRegistry() : new RegisterRegistry();
    int mostPagesOfAConnection = 0;
    int mostPages = 0;
    for (Operation operation : operations) {
      Map<String, Object> before = ChainInvariants.picture(registry);
      try {
        operation.apply(registry);
      } catch (RegisterException refused) {
        assertThat(ChainInvariants.picture(registry)).as("%s refused (%s) changed something",
            operation, refused.reason()).isEqualTo(before);
      }
      assertThat(ChainInvariants.violations(registry)).as("after %s", operation).isEmpty();
      mostPagesOfAConnection = Math.max(mostPagesOfAConnection, CONNECTIONS.stream()
          .mapToInt(c -> registry.pageItems().keysBy(PageRow.CONNECTION_ID, c).size()).max()
          .orElse(0));
      mostPages = Math.max(mostPages, registry.pageItems().keys().size());
    }
    if (registry instanceof SeamRegistry seams) {
      assertThat(seams.seamViolations()).isEmpty();
    }
    Statistics.label("a connection's pages passed 8 keys").collect(mostPagesOfAConnection > 8)
        .coverage(coverage -> coverage.check(true).percentage(p -> p >= 20));
    Statistics.label("the page register passed 12 rows").collect(mostPages > 12)
        .coverage(coverage -> coverage.check(true).percentage(p -> p >= 20));
  }


  @Property(tries = 40, shrinking = ShrinkingMode.OFF)
  void concurrentSequencesKeepTheChainSound(@ForAll("threads") List<List<Operation>> threads,
      @ForAll boolean withSeams) throws Exception {
    RegisterRegistry registry = withSeams ? new SeamRegistry() : new RegisterRegistry();
    CyclicBarrier start = new CyclicBarrier(threads.size() + 2); // the workers, the checker, this thread
    AtomicBoolean running = new AtomicBoolean(true);
    ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
    java.util.concurrent.atomic.AtomicInteger beingDropped = new java.util.concurrent.atomic.AtomicInteger();
    List<Thread> workers = new ArrayList<>();
    for (List<Operation> operations : threads) {
      workers.add(Thread.ofPlatform().start(() -> {
        await(start);
        for (Operation operation : operations) {
          try {
            operation.apply(registry);
          } catch (RegisterException refused) {
            // refusals are part of the game; anything else is a failure
            if (refused.reason() == RegisterException.Reason.BEING_DROPPED) {
              beingDropped.incrementAndGet();
            }
          } catch (Throwable unexpected) {
            failures.add(operation + " threw " + unexpected);
          }
        }
      }));
    }
    Thread checker = Thread.ofPlatform().start(() -> {
      await(start);
      java.util.Set<String> names = new java.util.HashSet<>(USERS);
      names.addAll(TARGETS);
      CONNECTIONS.forEach(connection -> names.add(RegisterRegistry.GUEST_PREFIX + connection));
      int turn = 0;
      while (running.get()) {
        // Every consistent view is whole: no half-built or half-demolished tree is visible.
        List<String> violations = ChainInvariants.violations(registry, withSeams);
        if (!violations.isEmpty()) {
          failures.add("mid-run: " + violations);
          return;
        }
        // The public reads, optimistic under racing writers: a refusal or a sound answer.
        for (int i = 0; i < 20; i++, turn++) {
          String page = PAGES.get(turn % PAGES.size());
          String connection = CONNECTIONS.get(turn % CONNECTIONS.size());
          try {
            String user = registry.pageUser(page);
            if (!names.contains(user)) {
              failures.add("pageUser(" + page + ") = " + user);
            }
          } catch (RegisterException refused) {
            // the page is not there
          } catch (RuntimeException wrong) {
            failures.add("pageUser(" + page + ") threw " + wrong);
          }
          try {
            java.util.Set<String> keys = registry.pageItems().keysBy(PageRow.CONNECTION_ID, connection);
            if (!PAGES.containsAll(keys)) {
              failures.add("keysBy(connection_id, " + connection + ") = " + keys);
            }
            registry.pageItems().get(page).ifPresent(row -> {
              if (!row.key().equals(page)) {
                failures.add("get(" + page + ") returned row " + row.key());
              }
            });
            registry.userItems().keys();
            registry.connectionItems().contains(connection);
          } catch (RuntimeException wrong) {
            failures.add("a read threw " + wrong);
          }
        }
      }
    });
    await(start);
    for (Thread worker : workers) {
      worker.join(TimeUnit.SECONDS.toMillis(20));
      assertThat(worker.isAlive()).as("a worker is stuck (deadlock?)").isFalse();
    }
    running.set(false);
    checker.join();
    assertThat(failures).isEmpty();
    assertThat(ChainInvariants.violations(registry)).isEmpty();
    net.jqwik.api.statistics.Statistics.label("a call met a demolition under way")
        .collect(withSeams, beingDropped.get() > 0);
    if (registry instanceof SeamRegistry seams) {
      assertThat(seams.seamViolations()).isEmpty();
    }
  }

  private static void await(CyclicBarrier barrier) {
    try {
      barrier.await(10, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
