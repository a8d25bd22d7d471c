package dev.cryo.front;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cryo.commander.Reply;
import dev.cryo.commander.Request;
import java.io.ByteArrayInputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The request bodies held at once are bounded across all requests: past it, 503 at once. */
class BodyBudgetTest {

  private static final int BODY = 100_000;

  /** An upstream that holds every request until released: its body stays held meanwhile. */
  static final class HoldingUpstream implements Upstream {
    final Semaphore entered = new Semaphore(0);
    final CountDownLatch release = new CountDownLatch(1);

    @Override
    public boolean knowsConnection(String connectionId) {
      return false;
    }

    @Override
    public Reply serve(Request request) {
      entered.release();
      try {
        release.await(SocketClient.PATIENCE.toSeconds(), TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return new Reply(200, List.of(), Integer.toString(request.body().length).getBytes());
    }
  }

  private final HoldingUpstream upstream = new HoldingUpstream();
  private final Front front = Front.builder(upstream).port(0).maxBody(BODY)
      .maxBufferedBodies(2 * BODY + BODY / 2).build();

  @AfterEach
  void stop() {
    upstream.release.countDown();
    front.close();
  }

  private HttpResponse<String> post(HttpRequest.BodyPublisher body) throws Exception {
    // A client each: a refusal may end its connection before the body was read.
    try (HttpClient client = HttpClient.newHttpClient()) {
      return client.send(HttpRequest.newBuilder(
          URI.create("http://127.0.0.1:" + front.port() + "/api/upload")).POST(body).build(),
          BodyHandlers.ofString());
    }
  }

  private CompletableFuture<HttpResponse<String>> postAsync(byte[] body) {
    return CompletableFuture.supplyAsync(() -> {
      try {
        return post(BodyPublishers.ofByteArray(body));
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    });
  }

  @Test
  void bodiesPastTheBudgetAre503WithRetryAfterUntilTheHeldOnesAreAnswered() throws Exception {
    front.start();
    byte[] body = new byte[BODY];
    CompletableFuture<HttpResponse<String>> first = postAsync(body);
    CompletableFuture<HttpResponse<String>> second = postAsync(body);
    assertThat(upstream.entered.tryAcquire(2, SocketClient.PATIENCE.toSeconds(), TimeUnit.SECONDS))
        .isTrue();

    HttpResponse<String> declared = post(BodyPublishers.ofByteArray(body));
    HttpResponse<String> chunked = post(BodyPublishers.ofInputStream(
        () -> new ByteArrayInputStream(body)));

    for (HttpResponse<String> refused : List.of(declared, chunked)) {
      assertThat(refused.statusCode()).isEqualTo(503);
      assertThat(refused.headers().firstValue("retry-after")).contains("1");
      assertThat(refused.body()).contains("\"error\":\"bodies_over_budget\"")
          .contains("nothing of it reached the application").doesNotContain("/_cryo");
    }
    upstream.release.countDown();
    assertThat(first.get(60, TimeUnit.SECONDS).body()).isEqualTo(Integer.toString(BODY));
    assertThat(second.get(60, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
    assertThat(post(BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(body))).body())
        .isEqualTo(Integer.toString(BODY));
    assertThat(front.limits().bodyBytesHeld()).isZero();
    assertThat(front.limits().bodiesRefused()).isEqualTo(2);
  }
}
