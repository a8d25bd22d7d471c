package dev.cryo.worker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cryo.app.CryoApplication;
import dev.cryo.app.CryoTestKit;
import dev.cryo.app.Request;
import dev.cryo.app.Response;
import dev.cryo.app.Routes;
import dev.cryo.wire.protocol.StaticCall;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Static files ({@link Routes#staticResources}) in the test kit and in the runtime's application
 * host answer the same — status, every header, body — and neither makes a user.
 */
class StaticParityTest {

  /** Mounts {@code parity-static/} at {@code /static}, and a route beside it. */
  public static final class Site implements CryoApplication {
    @Override
    public void routes(Routes routes) {
      routes.staticResources("/static", "parity-static");
      routes.get("/api/x", call -> Map.of("x", 1));
    }
  }

  @TempDir Path temp;
  Harness harness;

  @BeforeEach
  void setUp() throws Exception {
    harness = new Harness(temp);
  }

  @AfterEach
  void tearDown() {
    harness.close();
  }

  @Test
  void theKitAndTheWorkerServeStaticFilesAlikeForNoUser() {
    Worker worker = harness.worker("w1", Site.class);
    CryoTestKit kit = CryoTestKit.of(Site::new);
    CryoTestKit.Connection browser = kit.connect();
    String etag = kit.connect().get("/static/page.css").header("ETag");
    List<Request> requests = List.of(get("/static/page.css"), get("/static/img/dot.png"),
        get("/static/page.css", "If-None-Match", etag), get("/static/page.css", "If-None-Match",
            "\"other\""), Request.of("HEAD", "/static/page.css", "", List.of(), null), get("/static/img"), get("/static/img/"), get("/static"),
        get("/static/none.css"), get("/static/../parity-static/page.css"),
        get("/static/img%2Fdot.png"), Request.of("PUT", "/static/page.css", "", List.of(), null));
    for (Request request : requests) {
      Response inKit = browser.request(request);
      Response inWorker = worker.application().serveStatic(new StaticCall(request.method(),
          request.path(), request.query(), pairs(request.headers())));
      String what = request.method() + " " + request.path() + " " + request.headers();
      assertThat(inWorker.status()).as(what).isEqualTo(inKit.status());
      assertThat(inWorker.headers()).as(what).isEqualTo(inKit.headers());
      assertThat(inWorker.body()).as(what).isEqualTo(inKit.body());
    }
    assertThat(worker.application().staticPrefixes()).containsExactly("/static");
    assertThat(kit.users()).isEmpty();
    assertThat(worker.registry().userItems().size()).isZero();
    assertThat(worker.registry().connectionItems().size()).isZero();
  }

  private static Request get(String path, String... header) {
    return Request.of("GET", path, "", header.length == 0 ? List.of()
        : List.of(Map.entry(header[0], header[1])), null);
  }

  private static List<List<String>> pairs(List<Map.Entry<String, String>> headers) {
    List<List<String>> out = new ArrayList<>();
    for (Map.Entry<String, String> header : headers) {
      out.add(List.of(header.getKey(), header.getValue()));
    }
    return out;
  }
}
