package dev.cryo.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * Handlers are synchronous: one that says it returns a future is refused when its route is
 * declared; a lambda that returns one is the application's failure, never a {@code 200} of the
 * future's fields.
 */
class AsynchronousHandlerTest {

  /** A handler class whose signature says it is asynchronous. */
  static final class Later implements Handler {
    @Override
    public CompletionStage<Object> handle(Call call) {
      return CompletableFuture.completedFuture(Map.of("n", 1));
    }
  }

  /** A body handler class returning a Future. */
  static final class LaterBody implements BodyHandler<Map<String, Object>> {
    @Override
    public Future<Object> handle(Call call, Map<String, Object> body) {
      return CompletableFuture.completedFuture(body);
    }
  }

  @Test
  void aHandlerClassReturningACompletionStageIsRefusedAtItsRoute() {
    assertThatThrownBy(() -> CryoTestKit.of(() -> routes -> routes.get("/cart", new Later())))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("GET /cart")
        .hasMessageContaining(CompletionStage.class.getName())
        .hasMessageContaining("return the value itself");
  }

  @Test
  void aBodyHandlerClassReturningAFutureIsRefusedAtItsRoute() {
    @SuppressWarnings("unchecked")
    Class<Map<String, Object>> type = (Class<Map<String, Object>>) (Class<?>) Map.class;
    assertThatThrownBy(() -> CryoTestKit.of(() -> routes -> routes.post("/cart", type,
        new LaterBody())))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("POST /cart")
        .hasMessageContaining(Future.class.getName());
  }

  @Test
  void aLambdaReturningAFutureIsAnsweredAsTheApplicationsFailureNamingTheRoute() {
    CryoTestKit kit = CryoTestKit.of(() -> routes -> routes.post("/cart/{id}",
        call -> CompletableFuture.completedFuture(Map.of("n", 1))));
    CryoTestKit.Connection browser = kit.connect();

    assertThatThrownBy(() -> browser.post("/cart/7"))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("POST /cart/{id}")
        .hasMessageContaining("a handler is synchronous");

    kit.failOnApplicationError(false);
    Response reply = browser.post("/cart/7");
    assertThat(reply.status()).isEqualTo(500);
    assertThat(CryoTestKit.json(reply).get("error").asText()).isEqualTo("application_failed");
    assertThat(reply.bodyText()).doesNotContain("done");
  }
}
