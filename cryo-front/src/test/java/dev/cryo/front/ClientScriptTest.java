package dev.cryo.front;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** {@code /_cryo/cryo.js}: served by the front, cacheable, never a call of the application. */
class ClientScriptTest {

  private final FrontTest.EchoUpstream upstream = new FrontTest.EchoUpstream();
  private final HttpClient client = HttpClient.newHttpClient();
  private Front front;

  @BeforeEach
  void start() {
    front = Front.builder(upstream).port(0).build();
    front.start();
  }

  @AfterEach
  void stop() {
    front.close();
    client.close();
  }

  private HttpResponse<String> send(HttpRequest.Builder request) throws Exception {
    return client.send(request.build(), BodyHandlers.ofString());
  }

  private HttpRequest.Builder request(String path) {
    return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + front.port() + path));
  }

  @Test
  void theClientIsServedAsJavaScriptWithCachingHeadersAndReachesNoApplication() throws Exception {
    HttpResponse<String> got = send(request(ClientScript.PATH));

    assertThat(got.statusCode()).isEqualTo(200);
    assertThat(got.headers().firstValue("Content-Type")).hasValue("text/javascript;"
        + " charset=utf-8");
    assertThat(got.headers().firstValue("Cache-Control")).hasValue("public, max-age=600");
    assertThat(got.headers().firstValue("X-Content-Type-Options")).hasValue("nosniff");
    assertThat(got.headers().firstValue("ETag")).hasValueSatisfying(tag ->
        assertThat(tag).matches("\"[0-9a-f]{24}\""));
    assertThat(got.body()).contains("global.Cryo = {").contains("/_cryo/ws");
    assertThat(got.headers().allValues("Set-Cookie")).as("no connection is minted").isEmpty();
    assertThat(upstream.seen).as("requests that reached the application").isEmpty();
  }

  @Test
  void aBrowserHoldingTheSameVersionIsAnsweredNotModified() throws Exception {
    String tag = send(request(ClientScript.PATH)).headers().firstValue("ETag").orElseThrow();

    HttpResponse<String> again = send(request(ClientScript.PATH).header("If-None-Match", tag));
    HttpResponse<String> stale = send(request(ClientScript.PATH)
        .header("If-None-Match", "\"0123\""));

    assertThat(again.statusCode()).isEqualTo(304);
    assertThat(again.body()).isEmpty();
    assertThat(again.headers().firstValue("ETag")).hasValue(tag);
    assertThat(stale.statusCode()).isEqualTo(200);
    assertThat(stale.body()).contains("global.Cryo = {");
    assertThat(upstream.seen).isEmpty();
  }

  @Test
  void headHasNoBodyAndAWriteIsRefusedWithoutReachingTheApplication() throws Exception {
    HttpResponse<String> head = send(request(ClientScript.PATH)
        .method("HEAD", BodyPublishers.noBody()));
    HttpResponse<String> post = send(request(ClientScript.PATH)
        .POST(BodyPublishers.ofString("x")));

    assertThat(head.statusCode()).isEqualTo(200);
    assertThat(head.body()).isEmpty();
    assertThat(post.statusCode()).isEqualTo(405);
    assertThat(post.headers().firstValue("Allow")).hasValue("GET, HEAD");
    assertThat(post.body()).contains("\"error\":\"bad_method\"");
    assertThat(upstream.seen).isEmpty();
  }

  @Test
  void anotherPathUnderCryosOwnIsNotTheClient() throws Exception {
    HttpResponse<String> other = send(request("/_cryo/cryo.jsx"));

    assertThat(other.statusCode()).isEqualTo(404);
    assertThat(upstream.seen).isEmpty();
  }
}
