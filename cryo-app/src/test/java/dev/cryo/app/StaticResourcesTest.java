package dev.cryo.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * {@link Routes#staticResources}: served from the application's resources without a user (the
 * kit makes no guest, runs no filter, no hook), with caching headers, refusing folders and path
 * tricks with the JSON error body.
 */
class StaticResourcesTest {

  static final AtomicInteger FILTERED = new AtomicInteger();
  static final AtomicInteger WOKEN = new AtomicInteger();

  /** Mounts {@code assets-test/} at {@code /assets}, and counts filters and wakes. */
  public static final class Site implements CryoApplication {
    @Override
    public void routes(Routes routes) {
      routes.staticResources("/assets", "assets-test/");
      routes.staticResources("/fresh/", "/assets-test", Duration.ZERO);
      routes.before(call -> {
        FILTERED.incrementAndGet();
        return null;
      });
      routes.get("/api/hello", call -> Map.of("user", call.user()));
      routes.get("/assets-route", call -> Map.of("route", true));
    }

    @Override
    public void onWake(Stay stay) {
      WOKEN.incrementAndGet();
    }
  }

  @Test
  void aFileIsServedWithItsTypeTagAndCachingWithoutAUser() {
    FILTERED.set(0);
    WOKEN.set(0);
    CryoTestKit kit = CryoTestKit.of(Site::new);
    CryoTestKit.Connection browser = kit.connect();

    Response css = browser.get("/assets/app.css");

    assertThat(css.status()).isEqualTo(200);
    assertThat(css.bodyText()).isEqualTo("body { color: red; }\n");
    assertThat(css.header("Content-Type")).isEqualTo("text/css; charset=utf-8");
    assertThat(css.header("ETag")).matches("\"[0-9a-f]{32}\"");
    assertThat(css.header("Cache-Control")).isEqualTo("public, max-age=600");
    assertThat(css.header("X-Content-Type-Options")).isEqualTo("nosniff");
    assertThat(browser.get("/assets/index.html").header("Content-Type"))
        .isEqualTo("text/html; charset=utf-8");
    assertThat(browser.get("/assets/sub/note.txt").bodyText()).isEqualTo("hello\n");
    assertThat(browser.get("/fresh/app.css").header("Cache-Control"))
        .isEqualTo("public, max-age=0");
    assertThat(kit.users()).as("no guest for an asset").isEmpty();
    assertThat(browser.user()).isNull();
    assertThat(FILTERED).as("no filter runs for an asset").hasValue(0);
    assertThat(WOKEN).hasValue(0);

    assertThat(browser.get("/assets-route").status()).as("a route beside the prefix")
        .isEqualTo(200);
    assertThat(kit.users()).hasSize(1);
  }

  @Test
  void anIfNoneMatchOfTheTagIsA304AndAnotherTagTheFile() {
    CryoTestKit kit = CryoTestKit.of(Site::new);
    CryoTestKit.Connection browser = kit.connect();
    String etag = browser.get("/assets/app.css").header("ETag");

    Response again = browser.request(Request.of("GET", "/assets/app.css", "",
        List.of(Map.entry("If-None-Match", etag)), null));
    Response other = browser.request(Request.of("GET", "/assets/app.css", "",
        List.of(Map.entry("If-None-Match", "\"feed\"")), null));
    Response head = browser.request(Request.of("HEAD", "/assets/app.css", "", List.of(), null));

    assertThat(again.status()).isEqualTo(304);
    assertThat(again.body()).isEmpty();
    assertThat(again.header("ETag")).isEqualTo(etag);
    assertThat(other.status()).isEqualTo(200);
    assertThat(head.status()).isEqualTo(200);
    assertThat(head.body()).isEmpty();
    assertThat(head.header("ETag")).isEqualTo(etag);
    assertThat(browser.get("/assets/index.html").header("ETag")).isNotEqualTo(etag);
  }

  @Test
  void foldersMissingFilesAndPathTricksAreRefusedWithAJsonBody() {
    CryoTestKit kit = CryoTestKit.of(Site::new);
    CryoTestKit.Connection browser = kit.connect();

    for (String folder : List.of("/assets", "/assets/", "/assets/sub", "/assets/sub/")) {
      Response reply = browser.get(folder);
      assertThat(reply.status()).as(folder).isEqualTo(404);
      assertThat(CryoTestKit.json(reply).get("error").asText()).isEqualTo("not_found");
    }
    assertThat(browser.get("/assets/missing.css").status()).isEqualTo(404);
    for (String trick : List.of("/assets/../assets-secret.json", "/assets/sub/../../x",
        "/assets/./app.css", "/assets//app.css", "/assets/sub%2Fnote.txt",
        "/assets/..%2Fassets-secret.json", "/assets/sub\\note.txt", "/assets/c:x")) {
      Response reply = browser.request(Request.of("GET", trick, "", List.of(), null));
      assertThat(reply.status()).as(trick).isEqualTo(400);
      assertThat(reply.header("Content-Type")).isEqualTo(Response.JSON);
      assertThat(CryoTestKit.json(reply).get("error").asText()).isEqualTo("bad_path");
      assertThat(reply.bodyText()).doesNotContain("secret\":true");
    }
    Response post = browser.post("/assets/app.css");
    assertThat(post.status()).isEqualTo(405);
    assertThat(post.header("Allow")).isEqualTo("GET, HEAD");
    assertThat(CryoTestKit.json(post).get("error").asText()).isEqualTo("method_not_allowed");
    assertThat(kit.users()).isEmpty();
  }

  @Test
  void badMountsAreRefusedAtDeclaration() {
    for (String[] mount : new String[][] {{"/", "static/"}, {"/_cryo/x", "static/"},
        {"/a/{id}", "static/"}, {"assets", "static/"}, {"/assets", ""}, {"/assets", "/"},
        {"/assets", "../x"}, {"/a/../b", "static/"}}) {
      assertThatThrownBy(() -> CryoTestKit.of(() -> routes -> routes.staticResources(mount[0],
          mount[1]))).as(String.join(" ", mount)).isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("nothing was declared");
    }
    assertThatThrownBy(() -> CryoTestKit.of(() -> routes -> routes
        .staticResources("/a", "x/").staticResources("/a/", "y/")))
        .hasMessageContaining("twice");
  }
}
