package dev.cryo.worker;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cryo.register.Store;
import dev.cryo.app.Response;
import dev.cryo.wire.protocol.Grant;
import dev.cryo.wire.protocol.HttpCall;
import dev.cryo.wire.protocol.MoveInfo;
import dev.cryo.wire.protocol.RefusalReason;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** An application of cryo-app served through {@link AppHost} by real workers on a real freezer. */
class AppHostTest {

  static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path temp;
  Harness harness;
  AppHost host1;
  AppHost host2;
  Worker w1;
  Worker w2;

  @BeforeEach
  void setUp() throws Exception {
    TallyApplication.LOG.clear();
    TallyApplication.gate = new CountDownLatch(0);
    harness = new Harness(temp);
    host1 = AppHost.load(TallyApplication.class.getName(), null);
    host2 = AppHost.load(TallyApplication.class.getName(), null);
    w1 = harness.builder("w1").application(host1).build();
    w2 = harness.builder("w2").application(host2).build();
    harness.workers.add(w1);
    harness.workers.add(w2);
  }

  @AfterEach
  void tearDown() {
    TallyApplication.gate.countDown();
    harness.close();
  }

  /** An HTTP call as the commander sends it, for a worker alone (generation 0). */
  static HttpCall http(String user, String connection, String method, String path, Object body) {
    int mark = path.indexOf('?');
    byte[] bytes;
    try {
      bytes = body == null ? new byte[0] : JSON.writeValueAsBytes(body);
    } catch (IOException e) {
      throw new AssertionError(e);
    }
    return new HttpCall(user, connection, Grant.ALONE, method,
        mark < 0 ? path : path.substring(0, mark), mark < 0 ? "" : path.substring(mark + 1),
        List.of(List.of("Content-Type", "application/json")), bytes, null);
  }

  /** {@code call} with the verdict "frozen": a wake of his parcel (generation 0). */
  static HttpCall frozen(HttpCall call) {
    return new HttpCall(call.user(), call.connection(), Grant.wake(0, 0), call.method(),
        call.path(), call.query(), call.headers(), call.body(), call.move(), call.socketless());
  }

  /** {@code call} as part of a move that went as {@code move} says. */
  static HttpCall moving(HttpCall call, MoveInfo move) {
    return new HttpCall(call.user(), call.connection(), call.grant(), call.method(), call.path(),
        call.query(), call.headers(), call.body(), move, call.socketless());
  }

  /**
   * A call the commander sent while no page socket was bound anywhere: its pushes to what this
   * worker holds are counted here, none written, and reach no relay; a push to a page held
   * elsewhere, and every push of a call without the word, is relayed as before.
   */
  @Test
  void aSocketlessCallAnswersItsPushesToWhatTheWorkerHoldsWithoutRelayingThem() throws Exception {
    List<String> relayed = new java.util.concurrent.CopyOnWriteArrayList<>();
    host1.pusher((target, key, json) -> {
      relayed.add(target + " " + key);
      return new dev.cryo.app.Pushed(7, 1);
    });
    String page = json(serve(w1, http("anna", "c1", "POST", "/pages", null))).get("page").asText();
    serve(w1, http("anna", "c1", "POST", "/pages", null)); // a second page of the connection
    serve(w1, http("anna", "c2", "POST", "/pages", null)); // a page of another connection

    JsonNode quiet = json(serve(w1, socketless(http("anna", "c1", "POST", "/push",
        Map.of("page", page, "text", "hi")))));

    assertThat(relayed).isEmpty();
    assertThat(quiet.get("user").toString()).isEqualTo("[3,0]");
    assertThat(quiet.get("connection").toString()).isEqualTo("[2,0]");
    assertThat(quiet.get("page").toString()).isEqualTo("[1,0]");

    JsonNode elsewhere = json(serve(w1, socketless(http("anna", "c1", "POST", "/push",
        Map.of("page", "p-of-another-worker", "text", "hi")))));
    assertThat(relayed).containsExactly("page p-of-another-worker");
    assertThat(elsewhere.get("page").toString()).isEqualTo("[7,1]");

    relayed.clear();
    JsonNode relayedReply = json(serve(w1, http("anna", "c1", "POST", "/push",
        Map.of("page", page, "text", "hi"))));
    assertThat(relayed).containsExactly("user anna", "connection c1", "page " + page);
    assertThat(relayedReply.get("user").toString()).isEqualTo("[7,1]");
  }

  static HttpCall socketless(HttpCall call) {
    return new HttpCall(call.user(), call.connection(), call.grant(), call.method(), call.path(),
        call.query(), call.headers(), call.body(), call.move(), Boolean.TRUE);
  }

  /** Serves {@code call} as the worker's wire endpoint does: through its application host. */
  static Response serve(Worker worker, HttpCall call) {
    return ((AppHost) worker.application()).serve(worker, call);
  }

  static JsonNode json(Response reply) {
    try {
      return JSON.readTree(reply.body());
    } catch (IOException e) {
      throw new AssertionError("not JSON: " + reply.bodyText(), e);
    }
  }

  @Test
  void aCallIsServedAndItsTypedStateIsPlainDataUnderTheClassName() {
    Response reply = serve(w1, http(null, "c1", "POST", "/count", null));

    assertThat(reply.status()).isEqualTo(200);
    assertThat(reply.header("Content-Type")).isEqualTo("application/json");
    assertThat(json(reply).get("user").asText()).isEqualTo("guest_c1");
    assertThat(json(reply).get("worker").asText()).isEqualTo("w1");
    Store store = w1.registry().userItems().get("guest_c1").orElseThrow().get("store", Store.class);
    assertThat(store.toMap()).isEqualTo(Map.of("Tally", Map.of("count", 1L), // and its writer
        "Tally@class", TallyApplication.Tally.class.getName()));
    // An HTTP call has no page: the chain is the user and the connection only.
    assertThat(harness.told("w1")).containsExactly("new_user:guest_c1", "new_connection:c1");
  }

  @Test
  void typedStateSurvivesAFreezeAndAWakeOnAnotherWorker() {
    serve(w1, http("anna", "c1", "POST", "/count", null));
    String page = json(serve(w1, http("anna", "c1", "POST", "/pages", null))).get("page").asText();
    serve(w1, http("anna", "c1", "POST", "/lines", Map.of("page", page, "text", "one")));
    assertThat(TallyApplication.LOG).containsExactly("wake:anna@w1:0");

    assertThat(w1.freezeUser("anna").join()).isEqualTo(FreezeOutcome.FROZEN);
    assertThat(TallyApplication.LOG).endsWith("freeze:anna@w1:ORDERED");

    Response counted = serve(w2, frozen(http("anna", "c1", "POST", "/count", null)));
    assertThat(json(counted).get("count").asLong()).isEqualTo(2);
    assertThat(json(counted).get("connection").asLong()).isEqualTo(2);
    assertThat(json(counted).get("worker").asText()).isEqualTo("w2");
    assertThat(TallyApplication.LOG).endsWith("wake:anna@w2:1");
    JsonNode lines = json(serve(w2, http("anna", "c1", "GET", "/lines/" + page, null)));
    assertThat(lines.get("lines").toString()).isEqualTo("[\"one\"]");
    // What onFreeze wrote before the snapshot was frozen with him.
    assertThat(json(serve(w2, http("anna", "c1", "GET", "/freezes", null))).get("count").asLong())
        .isEqualTo(1);
  }

  @Test
  void aWakeRunsOnceAndAgainOnlyAfterTheUserCameBack() {
    serve(w1, http("anna", "c1", "POST", "/count", null));
    serve(w1, http("anna", "c1", "POST", "/count", null));
    w1.freezeUser("anna").join();
    serve(w1, frozen(http("anna", "c1", "POST", "/count", null)));
    assertThat(TallyApplication.LOG).containsExactly("wake:anna@w1:0",
        "freeze:anna@w1:ORDERED", "wake:anna@w1:2");
  }

  @Test
  void anApplicationFailureIsA500WithAGenericBodyNeverAThrow() {
    Response reply = serve(w1, http("anna", "c1", "POST", "/fail", null));
    assertThat(reply.status()).isEqualTo(500);
    assertThat(json(reply).get("error").asText()).isEqualTo("application_failed");
    assertThat(new String(reply.body(), StandardCharsets.UTF_8)).doesNotContain("boom");
    assertThat(serve(w1, http("anna", "c1", "POST", "/count", null)).status()).isEqualTo(200);
  }

  @Test
  void stateThatCannotBeFrozenIsRefusedWhenWrittenAndNothingIsStored() {
    Response reply = serve(w1, http("anna", "c1", "POST", "/unfreezable", null));
    assertThat(reply.status()).isEqualTo(500);
    assertThat(w1.registry().userItems().get("anna").orElseThrow().get("store", Store.class).toMap()).isEmpty();
    assertThat(w1.freezeUser("anna").join()).isEqualTo(FreezeOutcome.FROZEN);
  }

  @Test
  void aPageOfAnotherConnectionIsA404AndItsStateIsLeftAlone() {
    String page = json(serve(w1, http("anna", "c1", "POST", "/pages", null))).get("page").asText();
    serve(w1, http("anna", "c1", "POST", "/lines", Map.of("page", page, "text", "mine")));

    Response foreign = serve(w1, http("bob", "c2", "POST", "/lines",
        Map.of("page", page, "text", "not yours")));
    Response sameUserOtherConnection = serve(w1, http("anna", "c3", "GET", "/lines/" + page,
        null));

    assertThat(foreign.status()).isEqualTo(404);
    assertThat(json(foreign).get("error").asText()).isEqualTo("unknown_page");
    assertThat(sameUserOtherConnection.status()).isEqualTo(404);
    assertThat(json(serve(w1, http("anna", "c1", "GET", "/lines/" + page, null))).get("lines")
        .toString()).isEqualTo("[\"mine\"]");
  }

  @Test
  void theHtmlShellIsServedToAConnectionWithoutAPage() {
    Response reply = serve(w1, http(null, "c1", "GET", "/", null));
    assertThat(reply.status()).isEqualTo(200);
    assertThat(reply.header("content-type")).startsWith("text/html");
    assertThat(serve(w1, http(null, "c1", "GET", "/nowhere", null)).status()).isEqualTo(404);
  }

  @Test
  void theCallsOfOneUserTakeTurnsInArrivalOrderWhileOthersRunInParallel() throws Exception {
    TallyApplication.gate = new CountDownLatch(1);
    ExecutorService threads = Executors.newFixedThreadPool(4);
    try {
      List<Future<Response>> anna = new ArrayList<>();
      anna.add(threads.submit(() -> serve(w1, http("anna", "c1", "GET", "/block?tag=a1", null))));
      harness.await("a1 inside", () -> TallyApplication.LOG.contains("enter:a1"));
      anna.add(threads.submit(() -> serve(w1, http("anna", "c2", "GET", "/block?tag=a2", null))));
      harness.await("a2 waiting for its turn", () -> queued(host1, "anna") == 1);
      anna.add(threads.submit(() -> serve(w1, http("anna", "c1", "GET", "/block?tag=a3", null))));
      harness.await("a3 waiting for its turn", () -> queued(host1, "anna") == 2);

      // Another user is not held by anna's turn: bob's call runs while a1 is blocked.
      assertThat(serve(w1, http("bob", "c9", "POST", "/count", null)).status()).isEqualTo(200);
      assertThat(TallyApplication.LOG).containsExactly("wake:anna@w1:0", "enter:a1",
          "wake:bob@w1:0");

      TallyApplication.gate.countDown();
      for (Future<Response> call : anna) {
        assertThat(call.get(10, TimeUnit.SECONDS).status()).isEqualTo(200);
      }
      assertThat(TallyApplication.LOG).containsExactly("wake:anna@w1:0", "enter:a1",
          "wake:bob@w1:0", "exit:a1", "enter:a2", "exit:a2", "enter:a3", "exit:a3");
    } finally {
      TallyApplication.gate.countDown();
      threads.shutdown();
    }
  }

  private static int queued(AppHost host, String user) {
    UserTurns.Turn turn = host.turns().turn(user);
    return turn == null ? 0 : turn.lock.getQueueLength();
  }

  @Test
  void aGuestsStateFollowsHimIntoHisFirstIdentityAndAnExistingOneKeepsItsOwn() {
    serve(w1, http(null, "c1", "POST", "/count", null));
    serve(w1, http(null, "c1", "POST", "/count", null));
    JsonNode first = json(serve(w1, http(null, "c1", "POST", "/login", Map.of("user", "anna"))));
    assertThat(first.get("result").asText()).isEqualTo("HERE");
    assertThat(first.get("user").asText()).isEqualTo("anna");
    assertThat(first.get("count").asLong()).isEqualTo(2);

    serve(w1, http(null, "c2", "POST", "/count", null)); // another guest, one click
    JsonNode second = json(serve(w1, http(null, "c2", "POST", "/login", Map.of("user", "anna"))));
    assertThat(second.get("count").asLong()).isEqualTo(2); // anna keeps her own
    assertThat(w1.registry().userItems().contains("guest_c2")).isFalse();
  }

  @Test
  void aLoginIntoAnIdentityElsewhereHandsTheConnectionOverAfterTheCall() {
    serve(w2, http("anna", "c0", "POST", "/count", null)); // anna lives on w2 with one click
    harness.whereabouts.put("anna", IdentityLocator.Location.on("w2"));
    serve(w1, http(null, "c1", "POST", "/count", null));
    serve(w1, http(null, "c1", "POST", "/count", null));

    JsonNode login = json(serve(w1, http(null, "c1", "POST", "/login", Map.of("user", "anna"))));
    assertThat(login.get("result").asText()).isEqualTo("ELSEWHERE");
    assertThat(login.get("user").asText()).isEqualTo("guest_c1"); // still his, until the call ends

    harness.await("handed over", () -> !w1.registry().connectionItems().contains("c1"));
    harness.await("semaphore free", () -> semaphoreFree("anna"));
    JsonNode there = json(serve(w2, http("anna", "c1", "POST", "/count", null)));
    assertThat(there.get("count").asLong()).isEqualTo(2); // hers, not the guest's
    assertThat(there.get("connection").asLong()).isEqualTo(3); // the connection's came along
  }

  private boolean semaphoreFree(String user) {
    try {
      return harness.freezer.semaphoreHolder(user).isEmpty();
    } catch (dev.cryo.lock.LockException e) {
      throw new AssertionError(e);
    }
  }

  @Test
  void aMoveRouteIsListedAndItsHandlerIsToldHowTheMoveWent() {
    assertThat(host1.moveRoutes()).containsExactly(List.of("POST", "/move"));

    Response reply = serve(w2, moving(http("anna", "c1", "POST", "/move", null),
        new MoveInfo("w1", "w2", null)));
    assertThat(json(reply).get("from").asText()).isEqualTo("w1");
    assertThat(json(reply).get("worker").asText()).isEqualTo("w2");

    Response refused = serve(w1, moving(http("anna", "c1", "POST", "/move", null),
        new MoveInfo("w1", null, "no_other_worker")));
    assertThat(refused.status()).isEqualTo(409);
    assertThat(json(refused).get("message").asText()).contains("no_other_worker");
  }

  @Test
  void pagesClosedForGoodRunTheHookAndFrozenOnesDoNot() {
    String page = json(serve(w1, http("anna", "c1", "POST", "/pages", null))).get("page").asText();
    w1.freezeUser("anna").join();
    serve(w2, frozen(http("anna", "c1", "POST", "/count", null)));
    assertThat(TallyApplication.LOG).noneMatch(line -> line.startsWith("closed:"));

    w2.dropConnection("c1");
    assertThat(TallyApplication.LOG).endsWith("closed:" + page);
  }

  @Test
  void anHttpCallOfAnotherShapeIsRefusedClearly() {
    HttpCall broken = new HttpCall("bob", "c9", Grant.ALONE, "GET", "/", "",
        List.of(List.of("not a pair")), null, null);
    assertThatThrownBy(() -> serve(w1, broken))
        .isInstanceOfSatisfying(WorkerException.class,
            e -> assertThat(e.reason()).isEqualTo(RefusalReason.BAD_REQUEST))
        .hasMessageContaining("header is a [name, value] pair");
    assertThat(w1.registry().userItems().contains("bob")).as("nothing was served").isFalse();
  }
}
