package dev.cryo.demo;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cryo.app.Response;
import dev.cryo.freezer.Freezer;
import dev.cryo.lock.LockException;
import dev.cryo.wire.protocol.Grant;
import dev.cryo.wire.protocol.HttpCall;
import dev.cryo.wire.protocol.MoveInfo;
import dev.cryo.worker.AppHost;
import dev.cryo.worker.FreezeOutcome;
import dev.cryo.worker.IdentityLocator;
import dev.cryo.worker.Worker;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The demo served by real workers through the worker's application host, on a real freezer: the
 * login's carrying of a guest's store, freezes and wakes, and the move route.
 */
class DemoThroughAppHostTest {

  static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path temp;
  Freezer freezer;
  final Map<String, IdentityLocator.Location> whereabouts = new ConcurrentHashMap<>();
  final List<Worker> workers = new ArrayList<>();
  /** The application host of each worker. */
  static final Map<Worker, AppHost> HOSTS = new ConcurrentHashMap<>();
  Worker w1;
  Worker w2;

  @BeforeEach
  void setUp() throws Exception {
    freezer = new Freezer(temp.resolve("freezer"));
    w1 = worker("w1");
    w2 = worker("w2");
  }

  private Worker worker(String name) {
    AppHost host = AppHost.load(DemoApplication.class.getName(), null);
    Worker worker = Worker.builder(name, freezer).group("demo")
        .application(host)
        .identityLocator(user -> whereabouts.getOrDefault(user, IdentityLocator.Location.NOWHERE))
        .semaphoreWaitLimit(Duration.ofSeconds(5)).build();
    workers.add(worker);
    HOSTS.put(worker, host);
    return worker;
  }

  @AfterEach
  void tearDown() {
    workers.forEach(Worker::close);
  }

  /** One HTTP call as the commander hands it to a worker, served by its application host. */
  private static Response http(Worker worker, String user, String connection, boolean frozen,
      String method, String pathAndQuery, Object body, Map<String, Object> move) {
    int mark = pathAndQuery.indexOf('?');
    byte[] bytes;
    try {
      bytes = body == null ? new byte[0] : JSON.writeValueAsBytes(body);
    } catch (IOException e) {
      throw new AssertionError(e);
    }
    MoveInfo moveInfo = move == null ? null : new MoveInfo((String) move.get("from"),
        (String) move.get("to"), (String) move.get("refused"));
    return HOSTS.get(worker).serve(worker, new HttpCall(user, connection,
        frozen ? Grant.wake(0, 0) : Grant.ALONE, method,
        mark < 0 ? pathAndQuery : pathAndQuery.substring(0, mark),
        mark < 0 ? "" : pathAndQuery.substring(mark + 1),
        List.of(List.of("Content-Type", "application/json")), bytes, moveInfo));
  }

  private static JsonNode ok(Response reply) {
    String text = new String(reply.body(), StandardCharsets.UTF_8);
    assertThat(reply.status()).as(text).isEqualTo(200);
    try {
      return JSON.readTree(reply.body());
    } catch (IOException e) {
      throw new AssertionError(text, e);
    }
  }

  private String openPage(Worker worker, String user, String connection) {
    return ok(http(worker, user, connection, false, "POST", "/api/pages", null, null))
        .get("page").asText();
  }

  private JsonNode count(Worker worker, String user, String connection, String page) {
    return ok(http(worker, user, connection, false, "POST", "/api/counter", Map.of("page", page),
        null));
  }

  private static void await(String what, BooleanSupplier condition) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!condition.getAsBoolean()) {
      assertThat(System.nanoTime() < deadline).as("still waiting for: " + what).isTrue();
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2));
    }
  }

  private boolean semaphoreFree(String user) {
    try {
      return freezer.semaphoreHolder(user).isEmpty();
    } catch (LockException e) {
      throw new AssertionError(e);
    }
  }

  @Test
  void aGuestsCounterAndNotesFollowHimIntoHisFirstIdentity() {
    String page = openPage(w1, null, "c1");
    count(w1, null, "c1", page);
    count(w1, null, "c1", page);
    ok(http(w1, null, "c1", false, "POST", "/api/notes", Map.of("page", page, "text", "mine"),
        null));

    JsonNode login = ok(http(w1, null, "c1", false, "POST", "/api/login",
        Map.of("user", "anna", "page", page), null));

    assertThat(login.get("user").asText()).isEqualTo("anna");
    assertThat(login.get("counter").asLong()).isEqualTo(2);
    assertThat(login.get("pageCounter").asLong()).isEqualTo(2);
    assertThat(login.get("notes").toString()).isEqualTo("[\"mine\"]");
    // The registry's login moved the guest's entry, store and all, onto anna.
    assertThat(w1.registry().userItems().contains("guest_c1")).isFalse();
    assertThat(count(w1, "anna", "c1", page).get("counter").asLong()).isEqualTo(3);
  }

  @Test
  void anIdentityThatLivesHereKeepsItsOwnCounter() {
    String annas = openPage(w1, "anna", "c0");
    count(w1, "anna", "c0", annas);
    whereabouts.put("anna", IdentityLocator.Location.on("w1"));
    String page = openPage(w1, null, "c1");
    for (int i = 0; i < 4; i++) {
      count(w1, null, "c1", page);
    }

    JsonNode login = ok(http(w1, null, "c1", false, "POST", "/api/login",
        Map.of("user", "anna", "page", page), null));

    assertThat(login.get("user").asText()).isEqualTo("anna");
    assertThat(login.get("counter").asLong()).isEqualTo(1);
    assertThat(login.get("pageCounter").asLong()).isEqualTo(4);
  }

  @Test
  void anIdentityOnAnotherWorkerKeepsItsOwnAndTheConnectionFollowsTheRedirect() {
    String annas = openPage(w2, "anna", "c0");
    count(w2, "anna", "c0", annas);
    whereabouts.put("anna", IdentityLocator.Location.on("w2"));
    String page = openPage(w1, null, "c1");
    for (int i = 0; i < 3; i++) {
      count(w1, null, "c1", page);
    }
    ok(http(w1, null, "c1", false, "POST", "/api/notes", Map.of("page", page, "text", "guest's"),
        null));

    Response login = http(w1, null, "c1", false, "POST", "/api/login",
        Map.of("user", "anna", "page", page), null);

    assertThat(login.status()).isEqualTo(303);
    assertThat(login.header("Location")).isEqualTo("/api/state?page=" + page);
    await("handed over", () -> !w1.registry().connectionItems().contains("c1")
        && semaphoreFree("anna"));
    // The commander routes the connection's next request to anna's worker, which adopts it.
    JsonNode state = ok(http(w2, "anna", "c1", false, "GET", login.header("Location"), null,
        null));
    assertThat(state.get("user").asText()).isEqualTo("anna");
    assertThat(state.get("counter").asLong()).isEqualTo(1);
    assertThat(state.get("pageCounter").asLong()).isEqualTo(3);
    assertThat(state.get("notes").toString()).isEqualTo("[\"guest's\"]");
    assertThat(state.get("worker").asText()).isEqualTo("w2");
  }

  @Test
  void aFrozenIdentityIsWokenWithItsOwnCounter() {
    String annas = openPage(w2, "anna", "c0");
    count(w2, "anna", "c0", annas);
    count(w2, "anna", "c0", annas);
    assertThat(w2.freezeUser("anna").join()).isEqualTo(FreezeOutcome.FROZEN);
    whereabouts.put("anna", IdentityLocator.Location.FROZEN);
    String page = openPage(w1, null, "c1");
    count(w1, null, "c1", page);

    assertThat(http(w1, null, "c1", false, "POST", "/api/login", Map.of("user", "anna"), null)
        .status()).isEqualTo(303);
    await("handed over", () -> !w1.registry().connectionItems().contains("c1")
        && semaphoreFree("anna"));

    JsonNode state = ok(http(w1, "anna", "c1", true, "GET", "/api/state?page=" + page, null,
        null));
    assertThat(state.get("counter").asLong()).isEqualTo(2);
    assertThat(state.get("pageCounter").asLong()).isEqualTo(1);
  }

  @Test
  void aMoveIsAFreezeOnOneWorkerAndAWakeOnTheOtherWithEverythingKept() {
    String page = openPage(w1, "anna", "c1");
    count(w1, "anna", "c1", page);
    ok(http(w1, "anna", "c1", false, "POST", "/api/notes", Map.of("page", page, "text", "kept"),
        null));

    // What the commander does for a move route: freeze here, then the request to the other.
    assertThat(w1.freezeUser("anna").join()).isEqualTo(FreezeOutcome.FROZEN);
    JsonNode moved = ok(http(w2, "anna", "c1", true, "POST", "/api/move", null,
        Map.of("from", "w1", "to", "w2")));
    assertThat(moved.toString()).isEqualTo("{\"from\":\"w1\",\"to\":\"w2\"}");

    JsonNode state = ok(http(w2, "anna", "c1", false, "GET", "/api/state?page=" + page, null,
        null));
    assertThat(state.get("counter").asLong()).isEqualTo(1);
    assertThat(state.get("notes").toString()).isEqualTo("[\"kept\"]");
    assertThat(state.get("worker").asText()).isEqualTo("w2");

    Response refused = http(w2, "anna", "c1", false, "POST", "/api/move", null,
        Map.of("from", "w2", "refused", "no_other_worker"));
    assertThat(refused.status()).isEqualTo(409);
    assertThat(new String(refused.body(), StandardCharsets.UTF_8))
        .contains("\"reason\":\"no_other_worker\"");
  }

  @Test
  void theDemoDeclaresItsMoveRoute() {
    assertThat(AppHost.load(DemoApplication.class.getName(), null).moveRoutes())
        .containsExactly(List.of("POST", "/api/move"));
  }
}
