package dev.cryo.register;

import static dev.cryo.register.RegisterTest.expect;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cryo.register.RegisterException.Reason;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class RegisterRegistryTest {

  static final Instant NOW = Instant.parse("2026-01-02T03:04:05Z");

  private final RegisterRegistry registry = new RegisterRegistry(Clock.fixed(NOW, ZoneOffset.UTC));

  @AfterEach
  void theChainIsSound() {
    assertTree(registry);
  }

  static void assertTree(RegisterRegistry registry) {
    assertThat(ChainInvariants.violations(registry)).isEmpty();
  }

  static void distinctObjects(List<?> objects) {
    java.util.Set<Object> seen = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
    seen.addAll(objects);
    assertThat(seen).hasSameSizeAs(objects);
  }

  // ---- registers --------------------------------------------------------------------------------

  @Test
  void thePrimaryRegistersCarryTheRatifiedNamesAndIndexes() {
    assertThat(registry.userItems().name()).isEqualTo("user_items");
    assertThat(registry.connectionItems().name()).isEqualTo("connection_items");
    assertThat(registry.pageItems().name()).isEqualTo("page_items");
    assertThat(registry.userItems().indexedFields()).isEmpty();
    assertThat(registry.connectionItems().indexedFields()).isEmpty();
    assertThat(registry.pageItems().indexedFields())
        .containsExactly("connection_id", "root_page_id");
  }

  @Test
  void newRegisterCreatesHostsAndReturnsAndRefusesDuplicatesAndShadowing() {
    Register<Row> map = registry.newRegister("user_worker_map", "worker");
    map.create("anna", Map.of("worker", "w1"));
    assertThat(map.keysBy("worker", "w1")).containsExactly("anna");
    expect(() -> registry.newRegister("user_worker_map"), Reason.DUPLICATE_REGISTER);
    for (String primary : List.of("user_items", "connection_items", "page_items")) {
      expect(() -> registry.newRegister(primary), Reason.DUPLICATE_REGISTER);
    }
    registry.addIndex("user_worker_map", "zone");
    assertThat(map.indexedFields()).containsExactly("worker", "zone");
    registry.addIndex("connection_items", "user");
    registry.newConnection("c1");
    assertThat(registry.connectionItems().keysBy("user", "guest_c1")).containsExactly("c1");
    expect(() -> registry.addIndex("nowhere", "x"), Reason.UNKNOWN_REGISTER);
    expect(() -> registry.addIndex("user_items", "connections"), Reason.NOT_INDEXABLE);
  }

  @Test
  void thePrimaryRegistersAreMovedOnlyByTheLifecycle() {
    registry.newPage("p1", "anna", "c1");
    expect(() -> registry.pageItems().create("p2", Map.of("connection_id", "c1")),
        Reason.CHAIN_MANAGED);
    expect(() -> registry.connectionItems().drop("c1"), Reason.CHAIN_MANAGED);
    expect(() -> registry.userItems().create("bob"), Reason.CHAIN_MANAGED);
    expect(() -> registry.connectionItems().update("c1", Map.of("user", "bob")), Reason.CHAIN_FIELD);
    expect(() -> registry.connectionItems().update("c1", Map.of("pages", List.of())),
        Reason.CHAIN_FIELD);
    expect(() -> registry.userItems().update("anna", Map.of("connections", List.of())),
        Reason.CHAIN_FIELD);
    expect(() -> registry.updatePage("p1", Map.of("connection_id", "c2")), Reason.CHAIN_FIELD);
    expect(() -> registry.updatePage("p1", Map.of("user", "bob")), Reason.CHAIN_FIELD);
    expect(() -> registry.pageItems().get("p1").orElseThrow().set("connection_id", "c2"),
        Reason.CHAIN_FIELD);
    expect(() -> registry.updatePage("p1", Map.of("last_refresh_ts", 12.5)), Reason.WRONG_TYPE);
    expect(() -> registry.updatePage("p1", Map.of("root_page_id", 7)), Reason.WRONG_TYPE);
    assertThat(registry.pageUser("p1")).isEqualTo("anna");
  }

  // ---- births ---------------------------------------------------------------------------------

  @Test
  void aUserIsBornStampedWithAStoreAndNoConnections() {
    UserRow anna = registry.newUser("anna", Map.of("locale", "it"));
    assertThat(anna.user()).isEqualTo("anna");
    assertThat(anna.connections()).isEmpty();
    assertThat(anna.store()).isInstanceOf(Store.class);
    assertThat(anna.lastRefresh()).isEqualTo(NOW);
    assertThat(anna.get("locale")).isEqualTo("it");
    expect(() -> registry.newUser("anna"), Reason.DUPLICATE_KEY);
    expect(() -> registry.newUser("bob", Map.of("connections", List.of("c9"))), Reason.CHAIN_FIELD);
    assertThat(registry.userItems().contains("bob")).isFalse();
  }

  @Test
  void suppliedStoresAndStampsAreHonoured() {
    Store carried = new Store();
    carried.set("cart.items", List.of("A-1"));
    Instant travelled = Instant.parse("2025-12-31T23:00:00Z");
    UserRow moved = registry.newUser("anna", Map.of("store", carried, "last_refresh_ts", travelled));
    assertThat(moved.store()).isSameAs(carried);
    assertThat(moved.lastRefresh()).isEqualTo(travelled);
    PageRow page = registry.newPage("p1", "anna", "c1", Map.of("store", carried));
    assertThat(page.store()).isSameAs(carried);
  }

  @Test
  void aConnectionIsBornGuestWithItsOwnGuestUserAndDistinctStores() {
    ConnectionRow s1 = registry.newConnection("s1");
    ConnectionRow s2 = registry.newConnection("s2");
    assertThat(s1.user()).isEqualTo("guest_s1");
    assertThat(s1.isGuest()).isTrue();
    UserRow guest = registry.userItems().get("guest_s1").orElseThrow();
    assertThat(guest.connections()).containsExactly("s1");
    assertThat(guest.isGuest()).isTrue();
    assertThat(s1.pages()).isEmpty();
    assertThat(s1.lastRefresh()).isEqualTo(NOW);
    assertThat(List.of(s1.store(), s2.store(), guest.store(),
        registry.userItems().get("guest_s2").orElseThrow().store()))
        .allSatisfy(store -> assertThat(store).isInstanceOf(Store.class))
        .satisfies(RegisterRegistryTest::distinctObjects);
    expect(() -> registry.newConnection("s1"), Reason.DUPLICATE_KEY);
    ConnectionRow explicit = registry.newConnection("s3", "guest_s3", Map.of("agent", "x"));
    assertThat(explicit.user()).isEqualTo("guest_s3");
    ConnectionRow owned = registry.newConnection("s4", "anna", Map.of());
    assertThat(owned.user()).isEqualTo("anna");
    assertThat(registry.userItems().get("anna").orElseThrow().connections()).containsExactly("s4");
    expect(() -> registry.newConnection("s5", "anna", Map.of("pages", List.of())),
        Reason.CHAIN_FIELD);
    assertThat(registry.connectionItems().contains("s5")).isFalse();
  }

  @Test
  void aRootPageIsItsOwnRootAndTheChainIsBroughtIntoBeing() {
    PageRow root = registry.newPage("p1", "anna", "c1");
    assertThat(root.connectionId()).isEqualTo("c1");
    assertThat(root.rootPageId()).isEqualTo("p1");
    assertThat(root.parentPageId()).isNull();
    assertThat(root.isRoot()).isTrue();
    assertThat(root.avatarKey()).isEqualTo("root");
    assertThat(root.has("data")).isTrue();
    assertThat(root.data()).isNull();
    assertThat(root.has("user")).isFalse();
    assertThat(root.lastRefresh()).isEqualTo(NOW);
    assertThat(registry.connectionItems().get("c1").orElseThrow().pages()).containsExactly("p1");
    assertThat(registry.userItems().get("anna").orElseThrow().connections()).containsExactly("c1");
    assertThat(registry.pageUser("p1")).isEqualTo("anna");

    PageRow child = registry.newPage("p2", "anna", "c1",
        Map.of("parent_page_id", "p1", "root_page_id", "p1", "avatar_key", "admin", "data", 42,
            "socket", "ws-7"));
    assertThat(child.isRoot()).isFalse();
    assertThat(child.avatarKey()).isEqualTo("admin");
    assertThat(child.data()).isEqualTo(42);
    assertThat(child.get("socket")).isEqualTo("ws-7");
    assertThat(registry.pageItems().keysBy("root_page_id", "p1")).containsExactlyInAnyOrder("p1", "p2");
    assertThat(registry.pageItems().keysBy("connection_id", "c1")).containsExactlyInAnyOrder("p1", "p2");
    assertThat(root.lock()).isNotSameAs(child.lock());
  }

  @Test
  void refusedPageBirthsCreateNothing() {
    registry.newPage("p1", "anna", "c1");
    Map<String, Object> before = ChainInvariants.picture(registry);
    expect(() -> registry.newPage("p2", "bob", "c2", Map.of("parent_page_id", "p1")),
        Reason.CHILD_WITHOUT_ROOT);
    expect(() -> registry.newPage("p1", "anna", "c1"), Reason.DUPLICATE_KEY);
    expect(() -> registry.newPage("p3", "bob", "c1"), Reason.USER_MISMATCH);
    expect(() -> registry.newPage("p4", "bob", "c9", Map.of("connection_id", "c8")),
        Reason.CHAIN_FIELD);
    expect(() -> registry.newPage("p5", "bob", "c9", Map.of("user", "bob")), Reason.CHAIN_FIELD);
    expect(() -> registry.newPage("p6", "bob", "c9", Map.of("avatar_key", 3)), Reason.WRONG_TYPE);
    expect(() -> registry.newPage("p7", "bob", "c9", Map.of("register_item_id", "p7")),
        Reason.RESERVED_FIELD);
    assertThat(ChainInvariants.picture(registry)).isEqualTo(before);
  }

  @Test
  void updatePageMergesAndKeepsTheIndexes() {
    registry.newPage("p1", "anna", "c1");
    registry.newPage("p2", "anna", "c1", Map.of("parent_page_id", "p1", "root_page_id", "p1"));
    PageRow updated = registry.updatePage("p2", Map.of("root_page_id", "p2", "title", "Cart"));
    assertThat(updated.get("title")).isEqualTo("Cart");
    assertThat(registry.pageItems().keysBy("root_page_id", "p1")).containsExactly("p1");
    assertThat(registry.pageItems().keysBy("root_page_id", "p2")).containsExactly("p2");
    expect(() -> registry.updatePage("p9", Map.of("title", "x")), Reason.UNKNOWN_KEY);
  }

  // ---- the login --------------------------------------------------------------------------------

  @Test
  void theGuestEntryIsTransferredToItsFirstRealIdentityStoreIncluded() {
    registry.newPage("p1", "guest_c1", "c1");
    UserRow guest = registry.userItems().get("guest_c1").orElseThrow();
    Store guestStore = guest.store(Store.class);
    guestStore.set("cart", List.of("A-1"));
    ConnectionRow connection = registry.connectionItems().get("c1").orElseThrow();

    ConnectionRow relabelled = registry.changeConnectionUser("c1", "anna", Map.of("via", "form"));

    assertThat(relabelled).isSameAs(connection); // a relabel, never a re-key
    assertThat(connection.user()).isEqualTo("anna");
    assertThat(connection.get("via")).isEqualTo("form");
    assertThat(registry.userItems().contains("guest_c1")).isFalse();
    UserRow anna = registry.userItems().get("anna").orElseThrow();
    assertThat(anna).isSameAs(guest); // the same entry, re-keyed: lock and store conserved
    assertThat(anna.key()).isEqualTo("anna");
    assertThat(anna.store()).isSameAs(guestStore);
    assertThat(anna.get("via")).isEqualTo("form");
    assertThat(anna.connections()).containsExactly("c1");
    assertThat(registry.pageUser("p1")).isEqualTo("anna");
    assertThat(registry.pageItems().get("p1").orElseThrow().connectionId()).isEqualTo("c1");
  }

  @Test
  void aResidentWinsAndTheGuestDiesWithItsStore() {
    UserRow anna = registry.newUser("anna");
    registry.newPage("p1", "guest_c1", "c1");
    UserRow guest = registry.userItems().get("guest_c1").orElseThrow();
    registry.changeConnectionUser("c1", "anna", Map.of());
    assertThat(registry.userItems().get("anna")).containsSame(anna);
    assertThat(anna.connections()).containsExactly("c1");
    assertThat(anna.store()).isNotSameAs(guest.store());
    assertThat(registry.userItems().contains("guest_c1")).isFalse();
    assertThat(guest.isRegistered()).isFalse();
    assertThat(registry.pageUser("p1")).isEqualTo("anna");
  }

  @Test
  void aRealUsersEntryNeverChangesKey() {
    UserRow anna = registry.newUser("anna");
    registry.newConnection("c1", "anna", Map.of());
    registry.newConnection("c2", "anna", Map.of());
    registry.changeConnectionUser("c1", "bob", Map.of("plan", "pro"));
    UserRow bob = registry.userItems().get("bob").orElseThrow();
    assertThat(bob).isNotSameAs(anna);
    assertThat(bob.get("plan")).isEqualTo("pro");
    assertThat(bob.connections()).containsExactly("c1");
    assertThat(anna.connections()).containsExactly("c2");
    assertThat(anna.isRegistered()).isTrue(); // still has a connection
    registry.changeConnectionUser("c2", "bob", Map.of());
    assertThat(anna.isRegistered()).isFalse(); // its last connection left: it leaves
    assertThat(bob.connections()).containsExactlyInAnyOrder("c1", "c2");
  }

  @Test
  void aGuestOwningOtherConnectionsIsNotTransferredByOneLogin() {
    registry.newConnection("c1", "guest_shared", Map.of());
    registry.newConnection("c2", "guest_shared", Map.of());
    UserRow guest = registry.userItems().get("guest_shared").orElseThrow();
    registry.changeConnectionUser("c1", "anna", Map.of());
    assertThat(registry.userItems().get("anna").orElseThrow()).isNotSameAs(guest);
    assertThat(guest.key()).isEqualTo("guest_shared");
    assertThat(guest.connections()).containsExactly("c2");
    assertThat(registry.connectionItems().get("c2").orElseThrow().user()).isEqualTo("guest_shared");
  }

  @Test
  void aGuestTargetAndAnUnknownConnectionAreRefusedWithNothingChanged() {
    registry.newPage("p1", "guest_c1", "c1");
    Map<String, Object> before = ChainInvariants.picture(registry);
    expect(() -> registry.changeConnectionUser("c1", "guest_x", Map.of()), Reason.GUEST_TARGET);
    expect(() -> registry.changeConnectionUser("c9", "anna", Map.of()), Reason.UNKNOWN_KEY);
    expect(() -> registry.changeConnectionUser("c1", "anna", Map.of("pages", List.of())),
        Reason.CHAIN_FIELD);
    expect(() -> registry.changeConnectionUser("c1", "anna", Map.of("connections", List.of())),
        Reason.CHAIN_FIELD);
    expect(() -> registry.changeConnectionUser("c1", "anna", Map.of("last_refresh_ts", "today")),
        Reason.WRONG_TYPE);
    assertThat(ChainInvariants.picture(registry)).isEqualTo(before);
  }

  @Test
  void aLoginOntoTheSameUserOnlyMergesTheFields() {
    registry.newConnection("c1", "anna", Map.of());
    registry.changeConnectionUser("c1", "anna", Map.of("seen", true));
    assertThat(registry.connectionItems().get("c1").orElseThrow().get("seen")).isEqualTo(true);
    assertThat(registry.userItems().get("anna").orElseThrow().connections()).containsExactly("c1");
  }

  // ---- demolitions ------------------------------------------------------------------------------

  @Test
  void dropPageClimbsOnlyFromTheLastPage() {
    registry.newPage("p1", "anna", "c1");
    registry.newPage("p2", "anna", "c1");
    registry.newPage("p3", "anna", "c2");
    assertThat(registry.dropPage("p1").key()).isEqualTo("p1");
    assertThat(registry.connectionItems().contains("c1")).isTrue();
    registry.dropPage("p2"); // c1's last page: c1 goes, anna keeps c2
    assertThat(registry.connectionItems().contains("c1")).isFalse();
    assertThat(registry.userItems().get("anna").orElseThrow().connections()).containsExactly("c2");
    registry.dropPage("p3"); // c2's last page, anna's last connection: both go
    assertThat(registry.connectionItems().size()).isZero();
    assertThat(registry.userItems().size()).isZero();
    expect(() -> registry.dropPage("p3"), Reason.UNKNOWN_KEY);
  }

  @Test
  void cascadeFalseNeverClimbs() {
    registry.newPage("p1", "anna", "c1");
    registry.dropPage("p1", false);
    ConnectionRow c1 = registry.connectionItems().get("c1").orElseThrow();
    assertThat(c1.pages()).isEmpty();
    registry.dropConnection("c1", false);
    UserRow anna = registry.userItems().get("anna").orElseThrow();
    assertThat(anna.connections()).isEmpty();
  }

  @Test
  void dropConnectionTakesItsPagesAndClimbsFromTheLastConnection() {
    registry.newPage("p1", "anna", "c1");
    registry.newPage("p2", "anna", "c1");
    registry.newPage("p3", "anna", "c2");
    ConnectionRow c1 = registry.dropConnection("c1");
    assertThat(c1.isRegistered()).isFalse();
    assertThat(registry.pageItems().keys()).containsExactly("p3");
    assertThat(registry.pageItems().keysBy("connection_id", "c1")).isEmpty();
    assertThat(registry.userItems().contains("anna")).isTrue();
    registry.dropConnection("c2");
    assertThat(registry.userItems().contains("anna")).isFalse();
    expect(() -> registry.dropConnection("c2"), Reason.UNKNOWN_KEY);
  }

  @Test
  void dropUserTakesTheWholeTreeAndNeverDropsItTwice() {
    registry.newPage("p1", "anna", "c1");
    registry.newPage("p2", "anna", "c1", Map.of("parent_page_id", "p1", "root_page_id", "p1"));
    registry.newPage("p3", "anna", "c2");
    registry.newPage("q1", "bob", "d1");
    UserRow anna = registry.dropUser("anna");
    assertThat(anna.key()).isEqualTo("anna");
    assertThat(registry.userItems().keys()).containsExactly("bob");
    assertThat(registry.connectionItems().keys()).containsExactly("d1");
    assertThat(registry.pageItems().keys()).containsExactly("q1");
    assertThat(registry.pageItems().keysBy("root_page_id", "p1")).isEmpty();
    expect(() -> registry.dropUser("anna"), Reason.UNKNOWN_KEY);
  }

  // ---- seams ------------------------------------------------------------------------------------

  /** A consumer registry recording its seams and owning its stores and row classes. */
  static class RecordingRegistry extends RegisterRegistry {
    final List<String> events = new ArrayList<>();
    int stores;

    RecordingRegistry() {
      super(Clock.fixed(NOW, ZoneOffset.UTC));
    }

    @Override
    protected Object newStore() {
      return new HashMap<String, Object>(Map.of("serial", ++stores));
    }

    @Override
    protected PageRow newPageRow(String pageId) {
      return new SocketPageRow(pageId);
    }

    @Override
    protected void subscribePageStore(PageRow page) {
      assertThat(page.isRegistered()).isTrue();
      assertThat(page.lock().isHeldByCurrentThread()).isTrue();
      events.add("subscribe " + page.key() + " of " + pageUser(page.key()));
    }

    @Override
    protected void detachPage(PageRow page) {
      assertThat(page.isRegistered()).isTrue();
      assertThat(page.lock().isHeldByCurrentThread()).isTrue();
      events.add("detach " + page.key());
    }
  }

  /** A consumer's page row pairing its own field with the chain. */
  static final class SocketPageRow extends PageRow {
    SocketPageRow(String pageId) {
      super(pageId);
    }

    @Override
    protected Map<String, ?> defaultFields() {
      return Map.of("socket", "none");
    }

    String socket() {
      return get("socket", String.class);
    }
  }

  @Test
  void theSeamsAreCalledAfterEveryBirthAndBeforeEveryDeparture() {
    RecordingRegistry recording = new RecordingRegistry();
    recording.newPage("p1", "anna", "c1");
    recording.newPage("p2", "anna", "c1", Map.of("socket", "ws-2"));
    recording.newPage("p3", "anna", "c2");
    assertThat(((SocketPageRow) recording.pageItems().get("p1").orElseThrow()).socket())
        .isEqualTo("none");
    assertThat(((SocketPageRow) recording.pageItems().get("p2").orElseThrow()).socket())
        .isEqualTo("ws-2");
    recording.dropPage("p3");
    recording.dropUser("anna");
    assertThat(recording.events).hasSize(6);
    assertThat(recording.events.subList(4, 6)).containsExactlyInAnyOrder("detach p1", "detach p2");
    assertThat(recording.events.subList(0, 4)).containsExactly("subscribe p1 of anna",
        "subscribe p2 of anna", "subscribe p3 of anna", "detach p3");
    assertTree(recording);
  }

  @Test
  void theStoreFactoryOwnsEveryStore() {
    RecordingRegistry recording = new RecordingRegistry();
    recording.newPage("p1", "anna", "c1");
    List<Object> stores = List.of(recording.pageItems().get("p1").orElseThrow().store(),
        recording.connectionItems().get("c1").orElseThrow().store(),
        recording.userItems().get("anna").orElseThrow().store());
    assertThat(stores).allSatisfy(store -> assertThat(store).isInstanceOf(HashMap.class))
        .satisfies(RegisterRegistryTest::distinctObjects);
    assertThat(recording.stores).isEqualTo(3);
    expect(() -> recording.newPage("p1", "anna", "c1"), Reason.DUPLICATE_KEY);
    assertThat(recording.stores).isEqualTo(3); // a refused birth makes no store
  }

  @Test
  void aFailingDetachStopsTheDemolitionAndEverythingStays() {
    RegisterRegistry failing = new RegisterRegistry() {
      @Override
      protected void detachPage(PageRow page) {
        if (page.key().equals("p2")) {
          throw new IllegalStateException("capture cannot stop");
        }
      }
    };
    failing.newPage("p1", "anna", "c1");
    failing.newPage("p2", "anna", "c1");
    assertThatThrownBy(() -> failing.dropUser("anna")).isInstanceOf(IllegalStateException.class);
    assertThat(failing.pageItems().keys()).containsExactlyInAnyOrder("p1", "p2");
    assertTree(failing);
    failing.dropPage("p1"); // not its connection's last: the rest stays
    assertTree(failing);
  }

  /** Counts each page's subscriptions and detaches; its detach seam fails on a chosen call. */
  static final class FailingSecondDetachRegistry extends RegisterRegistry {
    final Map<String, Integer> subscriptions = new java.util.concurrent.ConcurrentHashMap<>();
    final Map<String, Integer> detaches = new java.util.concurrent.ConcurrentHashMap<>();
    final List<String> resubscribedWhile = new java.util.concurrent.CopyOnWriteArrayList<>();
    volatile int failOnCall = 2;
    private final java.util.concurrent.atomic.AtomicInteger calls =
        new java.util.concurrent.atomic.AtomicInteger();

    @Override
    protected void subscribePageStore(PageRow page) {
      if (detaches.getOrDefault(page.key(), 0) > 0) { // a re-subscription: still being dropped?
        resubscribedWhile.add(page.key() + (page.isRegistered() ? " registered" : " gone")
            + (page.lock().isHeldByCurrentThread() ? ", locked" : ", unlocked"));
        expect(() -> newPage(page.key() + "-sibling", pageUser(page.key()),
            page.connectionId()), Reason.BEING_DROPPED); // its connection is still claimed
      }
      subscriptions.merge(page.key(), 1, Integer::sum);
    }

    @Override
    protected void detachPage(PageRow page) {
      if (calls.incrementAndGet() == failOnCall) {
        throw new IllegalStateException("capture cannot stop");
      }
      detaches.merge(page.key(), 1, Integer::sum);
    }

    /** Subscriptions minus detaches per page: 1 while it lives subscribed, 0 once it left. */
    Map<String, Integer> balance() {
      Map<String, Integer> out = new java.util.TreeMap<>();
      subscriptions.forEach((page, times) -> out.put(page, times - detaches.getOrDefault(page, 0)));
      return out;
    }
  }

  @Test
  void pagesAlreadyDetachedWhenTheSeamFailsLiveOnSubscribedAgain() {
    FailingSecondDetachRegistry failing = new FailingSecondDetachRegistry();
    failing.newPage("p1", "anna", "c1");
    failing.newPage("p2", "anna", "c1");
    failing.newPage("p3", "anna", "c2");
    Map<String, Object> before = ChainInvariants.picture(failing);
    assertThatThrownBy(() -> failing.dropUser("anna")).isInstanceOf(IllegalStateException.class)
        .hasMessage("capture cannot stop");
    assertThat(failing.detaches).hasSize(1); // the first page was detached, the second failed
    assertThat(failing.balance()).containsExactly(Map.entry("p1", 1), Map.entry("p2", 1),
        Map.entry("p3", 1)); // every page still there is subscribed again, once
    assertThat(failing.resubscribedWhile).hasSize(1)
        .allSatisfy(seen -> assertThat(seen).endsWith(" registered, locked"));
    assertThat(ChainInvariants.picture(failing)).isEqualTo(before);
    assertTree(failing);
    failing.failOnCall = 0; // the capture can stop now: the whole tree leaves, each page once
    failing.dropUser("anna");
    assertThat(failing.balance()).containsOnlyKeys("p1", "p2", "p3").containsValues(0)
        .doesNotContainValue(1);
    assertThat(failing.userItems().size()).isZero();
  }

  // ---- concurrency rules --------------------------------------------------------------------

  /** A registry whose detach seam says it was reached, then waits (bounded) to be released. */
  private static RegisterRegistry pausingInDetach(CountDownLatch detaching,
      CountDownLatch release) {
    return new RegisterRegistry() {
      @Override
      protected void detachPage(PageRow page) {
        detaching.countDown();
        try {
          release.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    };
  }

  @Test
  void aRowBeingDroppedIsRefusedToOtherLifecycleCallsAsRetryable() throws Exception {
    CountDownLatch detaching = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    RegisterRegistry slow = pausingInDetach(detaching, release);
    slow.newPage("p1", "anna", "c1");
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try {
      Future<UserRow> drop = pool.submit(() -> slow.dropUser("anna"));
      assertThat(detaching.await(10, TimeUnit.SECONDS)).isTrue();
      // Mid-demolition: the tree is still whole and sound, and nothing can be added to it.
      assertThat(ChainInvariants.violations(slow, true)).isEmpty();
      assertThat(slow.pageUser("p1")).isEqualTo("anna");
      assertThatThrownBy(() -> slow.newPage("p2", "anna", "c1"))
          .isInstanceOf(RegisterException.class)
          .satisfies(e -> assertThat(((RegisterException) e).isRetryable()).isTrue())
          .satisfies(e -> assertThat(((RegisterException) e).reason()).isEqualTo(Reason.BEING_DROPPED));
      expect(() -> slow.newConnection("c2", "anna", Map.of()), Reason.BEING_DROPPED);
      expect(() -> slow.changeConnectionUser("c1", "bob", Map.of()), Reason.BEING_DROPPED);
      expect(() -> slow.dropPage("p1"), Reason.BEING_DROPPED);
      release.countDown();
      assertThat(drop.get(10, TimeUnit.SECONDS).key()).isEqualTo("anna");
      assertThat(slow.pageItems().size()).isZero();
      slow.newPage("p2", "anna", "c1"); // retried after: a new tree
      assertTree(slow);
    } finally {
      release.countDown();
      pool.shutdownNow();
    }
  }

  @Test
  void aLoginOntoAUserWhoseDropIsUnderWayIsRefusedAndOrphansNothing() throws Exception {
    // The interleaving: the login looks (bob live, a resident), then waits for its connection's
    // lock; meanwhile bob's drop claims him and runs its seam; the login then relabels under the
    // structure lock. Had it moved c2 onto bob, bob's removal would leave c2 naming no user.
    CountDownLatch detaching = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    RegisterRegistry slow = pausingInDetach(detaching, release);
    slow.newPage("p1", "bob", "c1");
    slow.newPage("p2", "anna", "c2");
    ConnectionRow c2 = slow.connectionItems().get("c2").orElseThrow();
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      Future<ConnectionRow> login;
      Future<UserRow> drop;
      c2.lock().lock(); // holds the login between its look and its relabelling
      try {
        login = pool.submit(() -> slow.changeConnectionUser("c2", "bob", Map.of()));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!c2.lock().hasQueuedThreads() && System.nanoTime() < deadline) {
          Thread.onSpinWait();
        }
        assertThat(c2.lock().hasQueuedThreads()).as("the login waits for c2's lock").isTrue();
        drop = pool.submit(() -> slow.dropUser("bob"));
        assertThat(detaching.await(10, TimeUnit.SECONDS)).isTrue(); // bob is claimed, still there
      } finally {
        c2.lock().unlock();
      }
      assertThatThrownBy(() -> login.get(10, TimeUnit.SECONDS))
          .hasCauseInstanceOf(RegisterException.class)
          .satisfies(e -> assertThat(((RegisterException) e.getCause()).reason())
              .isEqualTo(Reason.BEING_DROPPED));
      assertThat(ChainInvariants.violations(slow, true)).isEmpty();
      release.countDown();
      assertThat(drop.get(10, TimeUnit.SECONDS).key()).isEqualTo("bob");
      assertTree(slow);
      assertThat(slow.pageUser("p2")).isEqualTo("anna"); // the refused login changed nothing
      assertThat(slow.userItems().keys()).containsExactly("anna");
    } finally {
      release.countDown();
      pool.shutdownNow();
    }
  }

  @Test
  void nobodyReachesANewPagesStoreBeforeItsSubscriptionIsAttached() throws Exception {
    CountDownLatch subscribing = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    RegisterRegistry slow = new RegisterRegistry() {
      @Override
      protected void subscribePageStore(PageRow page) {
        subscribing.countDown();
        try {
          release.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    };
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try {
      Future<PageRow> birth = pool.submit(() -> slow.newPage("p1", "anna", "c1"));
      assertThat(subscribing.await(10, TimeUnit.SECONDS)).isTrue();
      PageRow visible = slow.pageItems().get("p1").orElseThrow(); // born and visible...
      assertThat(slow.pageUser("p1")).isEqualTo("anna");
      assertThat(visible.lock().tryLock()).isFalse(); // ...but its store is not reachable yet
      release.countDown();
      assertThat(birth.get(10, TimeUnit.SECONDS)).isSameAs(visible);
      assertThat(visible.lock().tryLock(10, TimeUnit.SECONDS)).isTrue();
      visible.lock().unlock();
    } finally {
      release.countDown();
      pool.shutdownNow();
    }
  }

  @Test
  void droppingWhileHoldingALockAboveThePagesIsRefused() {
    registry.newPage("p1", "anna", "c1");
    UserRow anna = registry.userItems().get("anna").orElseThrow();
    ConnectionRow c1 = registry.connectionItems().get("c1").orElseThrow();
    PageRow p1 = registry.pageItems().get("p1").orElseThrow();
    Map<String, Object> before = ChainInvariants.picture(registry);
    anna.lock().lock();
    try {
      expect(() -> registry.dropUser("anna"), Reason.LOCK_ORDER);
      expect(() -> registry.dropPage("p1"), Reason.LOCK_ORDER);
      expect(() -> registry.changeConnectionUser("c1", "bob", Map.of()), Reason.LOCK_ORDER);
    } finally {
      anna.lock().unlock();
    }
    c1.lock().lock();
    try {
      expect(() -> registry.dropConnection("c1"), Reason.LOCK_ORDER);
    } finally {
      c1.lock().unlock();
    }
    assertThat(ChainInvariants.picture(registry)).isEqualTo(before);
    p1.lock().lock(); // a page's own call may drop its own chain
    try {
      registry.dropUser("anna");
    } finally {
      p1.lock().unlock();
    }
    assertThat(registry.userItems().size()).isZero();
  }
}
