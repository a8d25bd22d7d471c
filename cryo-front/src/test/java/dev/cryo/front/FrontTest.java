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
import java.nio.charset.StandardCharsets;
import java.util.AbstractMap.SimpleImmutableEntry;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class FrontTest {

  /** An upstream that knows the connections it served and echoes what reached it. */
  static final class EchoUpstream implements Upstream {
    final Set<String> known = ConcurrentHashMap.newKeySet();
    final List<Request> seen = new CopyOnWriteArrayList<>();
    volatile List<Map.Entry<String, String>> replyHeaders = List.of();
    /** The next reply, instead of the echo (once). */
    volatile Reply next;

    @Override
    public boolean knowsConnection(String connectionId) {
      return known.contains(connectionId);
    }

    @Override
    public Reply serve(Request request) {
      seen.add(request);
      known.add(request.connectionId());
      Reply given = next;
      if (given != null) {
        next = null;
        return given;
      }
      String text = request.method() + " " + request.path() + "?" + request.query() + " "
          + request.body().length;
      return new Reply(200, replyHeaders, text.getBytes(StandardCharsets.UTF_8));
    }
  }

  private final EchoUpstream upstream = new EchoUpstream();
  private final HttpClient client = HttpClient.newHttpClient();
  private Front front;

  @BeforeEach
  void start() {
    front = Front.builder(upstream).port(0).maxBody(1000).build();
    front.start();
  }

  @AfterEach
  void stop() {
    front.close();
    client.close();
  }

  private URI uri(String path) {
    return URI.create("http://127.0.0.1:" + front.port() + path);
  }

  private HttpResponse<String> get(String path, String cookie) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(uri(path));
    if (cookie != null) {
      request.header("Cookie", cookie);
    }
    return client.send(request.build(), BodyHandlers.ofString());
  }

  private static String connectionOf(HttpResponse<?> response) {
    String setCookie = response.headers().firstValue("set-cookie").orElseThrow();
    assertThat(setCookie).contains("HttpOnly").contains("SameSite=Lax").contains("Path=/");
    return setCookie.substring(setCookie.indexOf('=') + 1, setCookie.indexOf(';'));
  }

  @Test
  void aNewConnectionGetsA128BitCookieAndKeepsIt() throws Exception {
    HttpResponse<String> first = get("/hello?x=1", null);
    String connection = connectionOf(first);

    assertThat(first.statusCode()).isEqualTo(200);
    assertThat(first.body()).isEqualTo("GET /hello?x=1 0");
    assertThat(connection).hasSize(22).matches("[A-Za-z0-9_-]+");
    HttpResponse<String> second = get("/again", "cryo_connection=" + connection);
    assertThat(second.headers().firstValue("set-cookie")).isEmpty();
    String id = ConnectionCookie.connectionIdOf(connection);
    assertThat(id).isNotEqualTo(connection).hasSize(22);
    assertThat(upstream.seen).extracting(Request::connectionId).containsExactly(id, id);
  }

  @Test
  void anUnknownForgedOrMalformedCookieIsANewAnonymousConnection() throws Exception {
    String known = connectionOf(get("/", null));
    String forged = "AAAAAAAAAAAAAAAAAAAAAA";
    for (String cookie : List.of("cryo_connection=" + forged, "cryo_connection=../../etc",
        "cryo_connection=" + known + "; cryo_connection=" + forged)) {
      HttpResponse<String> response = get("/", cookie);
      String minted = connectionOf(response);
      assertThat(minted).isNotIn(known, forged);
    }
    assertThat(upstream.seen).extracting(Request::connectionId)
        .doesNotContain(ConnectionCookie.connectionIdOf(forged)).doesNotHaveDuplicates();
  }

  /**
   * A soak's defect: the user of a known cookie was lost between the front's look at the cookie
   * and the routing of its request, which then made a new guest on the cookie's id, with no
   * Set-Cookie; a second request of the same browser minted a new cookie, and the browser kept
   * that one: the first's acknowledged write was orphaned. Now the commander answers "forgotten",
   * and the front mints the new connection itself and serves the request on it.
   */
  @Test
  void aCookieForgottenBeforeItsRequestIsRoutedGetsANewConnection() throws Exception {
    String cookie = connectionOf(get("/", null));
    String id = ConnectionCookie.connectionIdOf(cookie);
    upstream.next = Reply.forgotten(id); // its user was lost after the front knew the cookie

    HttpResponse<String> response = get("/again", "cryo_connection=" + cookie);

    String minted = connectionOf(response);
    assertThat(minted).isNotEqualTo(cookie);
    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.body()).isEqualTo("GET /again? 0");
    assertThat(response.headers().firstValue(Reply.FORGOTTEN_HEADER)).isEmpty();
    List<Request> last = upstream.seen.subList(upstream.seen.size() - 2, upstream.seen.size());
    assertThat(last.get(0).connectionId()).isEqualTo(id);
    assertThat(last.get(0).fromCookie()).isTrue();
    assertThat(last.get(1).connectionId()).isEqualTo(ConnectionCookie.connectionIdOf(minted));
    assertThat(last.get(1).fromCookie()).isFalse();
  }

  /**
   * A login rotates the cookie: the reply carries {@code ID.SECRET}, its connection the request's
   * and its secret the one whose hash went up as the request's successor; the runtime's header
   * never reaches the client. The new cookie's requests prove that hash; the old one proves
   * nothing. A logout clears the cookie.
   */
  @Test
  void aLoginRotatesTheCookieToTheRequestsSuccessorAndALogoutClearsIt() throws Exception {
    String cookie = connectionOf(get("/", null));
    String id = ConnectionCookie.connectionIdOf(cookie);
    upstream.next = new Reply(200, List.of(Map.entry(Reply.ROTATED_HEADER, Reply.ROTATED_LOGIN)),
        new byte[0]);

    HttpResponse<String> login = get("/login", "cryo_connection=" + cookie);

    String rotated = connectionOf(login);
    assertThat(login.headers().firstValue(Reply.ROTATED_HEADER)).isEmpty();
    Request loggingIn = upstream.seen.get(upstream.seen.size() - 1);
    assertThat(loggingIn.credential()).isNull();
    assertThat(rotated).startsWith(id + ".");
    assertThat(ConnectionCookie.credentialOf(rotated)).isEqualTo(loggingIn.successor());
    assertThat(ConnectionCookie.connectionOf(rotated)).isEqualTo(id);

    get("/after", "cryo_connection=" + rotated);
    Request after = upstream.seen.get(upstream.seen.size() - 1);
    assertThat(after.connectionId()).isEqualTo(id);
    assertThat(after.credential()).isEqualTo(loggingIn.successor());
    assertThat(after.successor()).isNotEqualTo(loggingIn.successor());

    upstream.next = new Reply(200, List.of(Map.entry(Reply.ROTATED_HEADER, Reply.ROTATED_ENDED)),
        new byte[0]);
    HttpResponse<String> logout = get("/logout", "cryo_connection=" + rotated);
    assertThat(logout.headers().allValues("set-cookie")).singleElement().asString()
        .startsWith("cryo_connection=; ").contains("Max-Age=0");
  }

  @Test
  void theApplicationNeverSeesNorSetsTheConnectionCookie() throws Exception {
    String connection = connectionOf(get("/", null));
    upstream.replyHeaders = List.of(
        new SimpleImmutableEntry<>("Set-Cookie", "cryo_connection=stolen; Path=/"),
        new SimpleImmutableEntry<>("Set-Cookie", "theme=dark; Path=/"),
        new SimpleImmutableEntry<>("X-App", "yes"));

    HttpResponse<String> response = get("/", "theme=light; cryo_connection=" + connection);

    assertThat(response.headers().allValues("set-cookie")).containsExactly("theme=dark; Path=/");
    assertThat(response.headers().firstValue("x-app")).contains("yes");
    Request last = upstream.seen.get(upstream.seen.size() - 1);
    assertThat(last.headers()).anySatisfy(header -> {
      assertThat(header.getKey()).isEqualTo("cookie");
      assertThat(header.getValue()).isEqualTo("theme=light");
    });
    assertThat(last.headers()).noneSatisfy(
        header -> assertThat(header.getValue()).contains(connection));
  }

  @Test
  void aBodyOverTheLimitIs413AndNeverReachesTheUpstream() throws Exception {
    byte[] big = new byte[1001];
    // A client each: a 413 ends its connection, and a pooled client may reuse it before it sees so.
    HttpResponse<String> declared = java.net.http.HttpClient.newHttpClient().send(HttpRequest.newBuilder(uri("/api"))
        .POST(BodyPublishers.ofByteArray(big)).build(), BodyHandlers.ofString());
    HttpResponse<String> chunked = java.net.http.HttpClient.newHttpClient().send(HttpRequest.newBuilder(uri("/api"))
        .POST(BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(big))).build(),
        BodyHandlers.ofString());
    HttpResponse<String> fits = java.net.http.HttpClient.newHttpClient().send(HttpRequest.newBuilder(uri("/api"))
        .POST(BodyPublishers.ofByteArray(new byte[1000])).build(), BodyHandlers.ofString());

    assertThat(declared.statusCode()).isEqualTo(413);
    assertThat(declared.body()).contains("body_too_large").contains("--max-body");
    assertThat(chunked.statusCode()).isEqualTo(413);
    assertThat(fits.statusCode()).isEqualTo(200);
    assertThat(fits.body()).isEqualTo("POST /api? 1000");
    assertThat(upstream.seen).hasSize(1);
  }

  @Test
  void aReplyOfTheRunsOwnNamesNothingOfTheRunToTheClient() throws Exception {
    upstream.next = new Reply(503, List.of(Map.entry("Content-Type", "text/plain; charset=utf-8"),
        Map.entry(Reply.RUNTIME_HEADER, "1"), Map.entry("Retry-After", "2")),
        ("the request could not be placed within PT5S: worker main_0002 died before the request"
            + " was sent to it; /srv/run/freezer/guest_x\n").getBytes(StandardCharsets.UTF_8));
    HttpResponse<String> busy = get("/api/state", null);

    assertThat(busy.statusCode()).isEqualTo(503);
    assertThat(busy.headers().firstValue("retry-after")).contains("2");
    assertThat(busy.headers().map()).doesNotContainKey(Reply.RUNTIME_HEADER.toLowerCase());
    assertThat(busy.headers().firstValue("content-type").orElse("")).startsWith("application/json");
    assertThat(busy.body()).contains("try again in 2 s").doesNotContain("main_0002")
        .doesNotContain("freezer").doesNotContain("placed");

    upstream.next = new Reply(503, List.of(Map.entry("Retry-After", "3")),
        "the application's own words: worker busy".getBytes(StandardCharsets.UTF_8));
    assertThat(get("/api/state", null).body()).as("the application's 503 is its own business")
        .isEqualTo("the application's own words: worker busy");
  }

  @Test
  void cryosOwnPathsNeverReachTheApplication() throws Exception {
    assertThat(get("/_cryo/anything", null).statusCode()).isEqualTo(404);
    assertThat(upstream.seen).isEmpty();
  }
}
