package dev.cryo.register;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.ShrinkingMode;

/**
 * Properties of the chain under any sequence of lifecycle operations, from one thread and from
 * several at once: both directions of every edge agree, every index agrees with its rows, no row is
 * orphaned, every page's user is derivable, every refused operation changed nothing, and every page
 * is subscribed once and detached exactly when it leaves.
 */
class ChainPropertiesTest {

  private static final List<String> USERS = List.of("anna", "bob", "guest_c0", "guest_c1");
  private static final List<String> TARGETS = List.of("anna", "bob", "carl", "guest_c2");
  private static final List<String> CONNECTIONS = List.of("c0", "c1", "c2", "c3");
  private static final List<String> PAGES = List.of("p0", "p1", "p2", "p3", "p4", "p5");

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

  @Provide
  Arbitrary<Operation> operation() {
    Arbitrary<String> users = Arbitraries.of(USERS);
    Arbitrary<String> connections = Arbitraries.of(CONNECTIONS);
    Arbitrary<String> pages = Arbitraries.of(PAGES);
    Arbitrary<String> maybePage = pages.injectNull(0.5);
    return Arbitraries.frequencyOf(
        weighted(2, users.map(NewUser::new)),
        weighted(3, Combinators.combine(connections, users.injectNull(0.5))
            .as(NewConnection::new)),
        weighted(8, Combinators.combine(pages, users, connections, maybePage, pages.injectNull(0.2))
            .as((page, user, connection, parent, root) ->
                new NewPage(page, user, connection, parent, parent == null ? null : root))),
        weighted(2, Combinators.combine(pages, pages).as(UpdatePage::new)),
        weighted(2, Combinators.combine(pages, pages).as(WriteRow::new)),
        weighted(3, Combinators.combine(connections, Arbitraries.of(TARGETS)).as(Login::new)),
        weighted(3, Combinators.combine(pages, Arbitraries.of(true, true, false))
            .as(DropPage::new)),
        weighted(2, Combinators.combine(connections, Arbitraries.of(true, false))
            .as(DropConnection::new)),
        weighted(2, Arbitraries.of(List.of("anna", "bob", "carl", "guest_c0", "guest_c1", "guest_c3"))
            .map(DropUser::new)),
        weighted(1, Arbitraries.just(new IndexConnectionsByUser())));
  }

  private static net.jqwik.api.Tuple.Tuple2<Integer, Arbitrary<? extends Operation>> weighted(
      int weight, Arbitrary<? extends Operation> arbitrary) {
    return net.jqwik.api.Tuple.of(weight, arbitrary);
  }

  @Provide
  Arbitrary<List<Operation>> operations() {
    return operation().list().ofMinSize(1).ofMaxSize(60);
  }

  @Provide
  Arbitrary<List<List<Operation>>> threads() {
    return operation().list().ofMinSize(50).ofMaxSize(200).list().ofSize(3);
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
    for (Operation operation : operations) {
      Map<String, Object> before = ChainInvariants.picture(registry);
      try {
        operation.apply(registry);
      } catch (RegisterException refused) {
        assertThat(ChainInvariants.picture(registry)).as("%s refused (%s) changed something",
            operation, refused.reason()).isEqualTo(before);
      }
      assertThat(ChainInvariants.violations(registry)).as("after %s", operation).isEmpty();
    }
    if (registry instanceof SeamRegistry seams) {
      assertThat(seams.seamViolations()).isEmpty();
    }
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
