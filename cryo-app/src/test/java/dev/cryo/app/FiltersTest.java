package dev.cryo.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link Routes#before} and {@link Routes#after}: their order, a before filter's answer or throw
 * (the handler does not run), what an after filter sees and what it may change, the user's turn
 * they share with the handler.
 */
class FiltersTest {

  /** What ran, in order, across one call. */
  static final List<String> RAN = new ArrayList<>();
  static final AtomicReference<Call> KEPT = new AtomicReference<>();
  static final AtomicReference<Throwable> SEEN_FAILURE = new AtomicReference<>();
  static final AtomicReference<Integer> SEEN_STATUS = new AtomicReference<>();

  record Visits(long count) {}

  /** Two before and two after filters around a few routes. */
  static final class Filtered implements CryoApplication {
    @Override
    public void routes(Routes routes) {
      routes.before(call -> {
        RAN.add("before 1");
        call.user(Visits.class).update(v -> new Visits(v.count() + 1)); // in the user's turn
        String guard = call.query("guard");
        if ("answer".equals(guard)) {
          return Response.json(401, Map.of("error", "login_required"));
        }
        if ("refuse".equals(guard)) {
          throw new Refusal(403, "forbidden", "not yours");
        }
        if ("throw".equals(guard)) {
          throw new IllegalStateException("the filter broke");
        }
        return null;
      });
      routes.get("/visits", call -> {
        RAN.add("handler");
        return call.user(Visits.class).get();
      });
      routes.post("/items", Visits.class, (call, body) -> {
        RAN.add("handler");
        return body;
      });
      routes.get("/missing", call -> {
        RAN.add("handler");
        throw new NoSuchElementException("no such item");
      });
      routes.get("/broken", call -> {
        RAN.add("handler");
        throw new IllegalStateException("the handler broke");
      });
      routes.before(call -> {
        RAN.add("before 2");
        KEPT.set(call);
        return null;
      });
      routes.after((call, response, failure) -> {
        RAN.add("after 1");
        SEEN_STATUS.set(response.status());
        SEEN_FAILURE.set(failure);
        if ("after-throw".equals(call.query("guard"))) {
          throw new IllegalStateException("the after filter broke");
        }
        if ("after-null".equals(call.query("guard"))) {
          return null;
        }
        return failure instanceof NoSuchElementException
            ? Response.json(404, Map.of("error", "no_such_item")) : response;
      });
      routes.after((call, response, failure) -> {
        RAN.add("after 2 saw " + response.status());
        return response.withHeader("X-Visits",
            Long.toString(call.user(Visits.class).get().count()));
      });
    }
  }

  @BeforeEach
  void clear() {
    RAN.clear();
    KEPT.set(null);
    SEEN_FAILURE.set(null);
    SEEN_STATUS.set(null);
  }

  @Test
  void beforeFiltersThenTheHandlerThenAfterFiltersEachInDeclarationOrder() {
    CryoTestKit kit = CryoTestKit.of(Filtered::new);
    Response reply = kit.connect().get("/visits");

    assertThat(RAN).containsExactly("before 1", "before 2", "handler", "after 1",
        "after 2 saw 200");
    assertThat(CryoTestKit.json(reply).get("count").asLong())
        .as("the handler read what the before filter wrote in the same turn").isEqualTo(1);
    assertThat(reply.header("X-Visits")).isEqualTo("1");
    assertThat(SEEN_STATUS.get()).isEqualTo(200);
    assertThat(SEEN_FAILURE.get()).isNull();
  }

  @Test
  void aBeforeFilterThatAnswersStopsTheRestAndTheHandlerButNotTheAfterFilters() {
    CryoTestKit kit = CryoTestKit.of(Filtered::new);
    Response reply = kit.connect().get("/visits?guard=answer");

    assertThat(reply.status()).isEqualTo(401);
    assertThat(CryoTestKit.json(reply).get("error").asText()).isEqualTo("login_required");
    assertThat(RAN).containsExactly("before 1", "after 1", "after 2 saw 401");
    assertThat(reply.header("X-Visits")).isEqualTo("1");
  }

  @Test
  void aBeforeFilterRunsBeforeTheBodyIsRead() {
    CryoTestKit kit = CryoTestKit.of(Filtered::new);
    Response reply = kit.connect().send("POST", "/items?guard=answer", "not json");

    assertThat(reply.status()).as("refused by the filter, not by the body").isEqualTo(401);
    assertThat(RAN).containsExactly("before 1", "after 1", "after 2 saw 401");

    RAN.clear();
    Response bad = kit.connect().send("POST", "/items", "not json");
    assertThat(bad.status()).isEqualTo(400);
    assertThat(RAN).containsExactly("before 1", "before 2", "after 1", "after 2 saw 400");
  }

  @Test
  void aRefusalOfABeforeFilterIsAnAnswerNotAFailure() {
    CryoTestKit kit = CryoTestKit.of(Filtered::new); // fails on application errors
    Response reply = kit.connect().get("/visits?guard=refuse");

    assertThat(reply.status()).isEqualTo(403);
    assertThat(CryoTestKit.json(reply).get("error").asText()).isEqualTo("forbidden");
    assertThat(RAN).doesNotContain("handler");
    assertThat(SEEN_FAILURE.get()).isNull();
  }

  @Test
  void aBeforeFilterThatThrowsIsA500TheHandlerDoesNotRunAndAfterFiltersSeeTheFailure() {
    CryoTestKit kit = CryoTestKit.of(Filtered::new).failOnApplicationError(false);
    Response reply = kit.connect().get("/visits?guard=throw");

    assertThat(reply.status()).isEqualTo(500);
    assertThat(CryoTestKit.json(reply).get("error").asText()).isEqualTo("application_failed");
    assertThat(RAN).containsExactly("before 1", "after 1", "after 2 saw 500");
    assertThat(SEEN_FAILURE.get()).hasMessage("the filter broke");
  }

  @Test
  void aBeforeFilterThatThrowsFailsTheKitsCall() {
    CryoTestKit kit = CryoTestKit.of(Filtered::new);
    assertThatThrownBy(() -> kit.connect().get("/visits?guard=throw"))
        .isInstanceOf(AssertionError.class).hasRootCauseMessage("the filter broke");
  }

  @Test
  void anAfterFilterThatAnswersAFailureOtherwiseHandlesIt() {
    CryoTestKit kit = CryoTestKit.of(Filtered::new); // would throw on a failure left as a 500
    Response reply = kit.connect().get("/missing");

    assertThat(reply.status()).isEqualTo(404);
    assertThat(CryoTestKit.json(reply).get("error").asText()).isEqualTo("no_such_item");
    assertThat(SEEN_FAILURE.get()).isInstanceOf(NoSuchElementException.class);
    assertThat(RAN).containsExactly("before 1", "before 2", "handler", "after 1",
        "after 2 saw 404");
  }

  @Test
  void aFailureAnAfterFilterKeepsIsStillAFailure() {
    CryoTestKit kit = CryoTestKit.of(Filtered::new);
    assertThatThrownBy(() -> kit.connect().get("/broken"))
        .isInstanceOf(AssertionError.class).hasRootCauseMessage("the handler broke");
    assertThat(RAN).contains("after 2 saw 500");
  }

  @Test
  void anAfterFilterThatThrowsOrReturnsNullIsA500TheLaterOnesSee() {
    CryoTestKit kit = CryoTestKit.of(Filtered::new).failOnApplicationError(false);
    Response thrown = kit.connect().get("/visits?guard=after-throw");
    assertThat(thrown.status()).isEqualTo(500);
    assertThat(RAN).containsExactly("before 1", "before 2", "handler", "after 1",
        "after 2 saw 500");

    RAN.clear();
    Response nothing = kit.connect().get("/visits?guard=after-null");
    assertThat(nothing.status()).isEqualTo(500);
    assertThat(RAN).endsWith("after 2 saw 500");
  }

  @Test
  void aCallKeptByAFilterEndsWithTheCall() {
    CryoTestKit kit = CryoTestKit.of(Filtered::new).freezeBetweenCalls(true);
    CryoTestKit.Connection browser = kit.connect();
    browser.get("/visits");

    assertThatThrownBy(() -> KEPT.get().user(Visits.class).get())
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("GET /visits");
    assertThat(CryoTestKit.json(browser.get("/visits")).get("count").asLong())
        .as("the before filter's write was frozen with him").isEqualTo(2);
  }

  @Test
  void aPathNoRouteServesMeetsNoFilter() {
    CryoTestKit kit = CryoTestKit.of(Filtered::new);
    assertThat(kit.connect().get("/nowhere").status()).isEqualTo(404);
    assertThat(RAN).isEmpty();
  }

  @Test
  void filtersAreDeclaredInRoutesOnly() {
    AtomicReference<Routes> kept = new AtomicReference<>();
    CryoTestKit.of(() -> routes -> {
      kept.set(routes);
      routes.get("/", call -> null);
    });
    assertThatThrownBy(() -> kept.get().before(call -> null))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("before filter");
    assertThatThrownBy(() -> kept.get().after((call, response, failure) -> response))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("after filter");
  }
}
