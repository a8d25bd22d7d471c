package dev.cryo.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.JavascriptExecutor;

/**
 * cryo's browser client ({@code /_cryo/cryo.js}, docs/client.md) in a real headless Chromium
 * against a real {@code cryo serve} of {@link PokeApplication}: a call over the socket answered
 * as a promise, a push handed to the subscribers of its kind only, a refused call rejected with
 * the reply's status; then the server drains and goes away (the browser's socket is closed by
 * it), the client says it is reconnecting and refuses calls meanwhile, and once a new run is
 * serving on the same port it reconnects by itself, the same page, and calls and pushes go on.
 */
@Timeout(400)
class BrowserClientTest {

  @TempDir Path scratch;

  @Test
  void callsPushesAndAReconnectAfterTheServerDroppedTheSocket() throws Exception {
    int port = freePort();
    Path home = scratch.resolve("home");
    String[] args = {"--app", PokeApplication.class.getName()};
    ServeRun first = ServeRun.servingOnPort(home, port, args);
    ServeRun second = null;
    try (Browser browser = Browser.open(scratch)) {
      browser.get(first.base().resolve("/client"));
      String page = (String) async(browser, """
          Cryo.http("POST", "/api/pages", {}).then((opened) => {
            window.states = [];
            window.pokes = [];
            window.others = [];
            window.client = Cryo.connect({ page: opened.page, maxDelay: 1000 });
            client.onState((change) => states.push(change.state));
            client.on("poke", (data) => pokes.push(data));
            client.on("other", (data) => others.push(data));
            done(opened.page);
          }, (error) => done("failed: " + error.message));
          """);
      assertThat(page).startsWith("p");
      awaitState(browser, "open");

      // a call over the socket, a promise of the reply's body; its push reaches "poke" only
      Object poked = async(browser, """
          client.post("/api/poke", { page: client.page, text: "hello" })
              .then((reply) => done(reply), (error) => done("failed: " + error.message));
          """);
      assertThat(poked).isEqualTo(Map.of("pages", 1L, "written", 1L));
      browser.await("the push reaches the subscriber of its kind",
          d -> Long.valueOf(1).equals(browser.script("return pokes.length;")));
      assertThat(browser.script("return pokes[0].text;")).isEqualTo("hello");
      assertThat(browser.script("return others.length;")).isEqualTo(0L);

      // a refused call rejects with the reply's status and a CryoError
      Object refused = async(browser, """
          client.get("/api/nothing-here").then(() => done("resolved"), (error) => done(
              [error instanceof Cryo.CryoError, error.status, client.state]));
          """);
      assertThat(refused).isEqualTo(List.of(true, 404L, "open"));

      // a page the server closes: its client is told (4404 page_closed) and does not reconnect
      Object closedPage = async(browser, """
          Cryo.http("POST", "/api/pages", {}).then((opened) => {
            window.closedStates = [];
            window.closedCodes = [];
            window.doomed = Cryo.connect({ page: opened.page, maxDelay: 1000 });
            doomed.onState((change) => {
              closedStates.push(change.state);
              closedCodes.push(change.code);
              if (change.state === "open") {
                client.post("/api/close", { page: doomed.page }).then(
                    (reply) => done(reply), (error) => done("failed: " + error.message));
              }
            });
          }, (error) => done("failed: " + error.message));
          """);
      assertThat(closedPage).isEqualTo(Map.of("closed", true));
      browser.await("the closed page's client says so",
          d -> "page_closed".equals(browser.script("return doomed.state;")));
      assertThat(browser.script("return closedStates;"))
          .isEqualTo(List.of("connecting", "open", "page_closed")); // never reconnecting
      assertThat(browser.script("return closedCodes[2];")).isEqualTo(4404L);
      assertThat(browser.script("return [doomed.opens, client.state];"))
          .isEqualTo(List.of(1L, "open")); // the other page's client goes on

      // the server goes away: it closes the socket; the client says so and refuses calls
      first.process().destroy(); // SIGTERM: a drain, the users carried into the reboot data
      assertThat(first.exitCode()).as(first.err()).isZero();
      awaitState(browser, "reconnecting");
      Object down = async(browser, """
          client.post("/api/poke", { page: client.page, text: "lost" }).then(
              () => done("resolved"), (error) => done([error.reason, error.status]));
          """);
      assertThat(down).isEqualTo(List.of("socket_down", 0L));

      // a new run on the same port: the client reconnects by itself, the same page
      second = ServeRun.servingOnPort(home, port, args);
      awaitState(browser, "open");
      assertThat(browser.script("return client.opens;")).isEqualTo(2L);
      assertThat(browser.script("return client.page;")).isEqualTo(page);
      @SuppressWarnings("unchecked")
      List<String> states = (List<String>) browser.script("return states;");
      assertThat(states).startsWith("connecting", "open", "reconnecting").endsWith("open");
      Object again = async(browser, """
          client.post("/api/poke", { page: client.page, text: "again" })
              .then((reply) => done(reply), (error) => done("failed: " + error.message));
          """);
      assertThat(again).isEqualTo(Map.of("pages", 1L, "written", 1L));
      browser.await("the push after the reconnect",
          d -> "again".equals(browser.script("return pokes.length === 2 ? pokes[1].text : null;")));
    } finally {
      first.close();
      if (second != null) {
        second.close();
      }
    }
  }

  /**
   * Runs {@code body} as an asynchronous script in the current tab, with {@code done(value)} to
   * call once, and returns that value.
   */
  private static Object async(Browser browser, String body) {
    return ((JavascriptExecutor) browser.driver()).executeAsyncScript(
        "const done = arguments[arguments.length - 1];\n" + body);
  }

  private static void awaitState(Browser browser, String state) {
    browser.await("the client is " + state,
        d -> state.equals(browser.script("return window.client && client.state;")));
  }

  private static int freePort() throws Exception {
    try (ServerSocket socket = new ServerSocket(0)) {
      socket.setReuseAddress(true);
      return socket.getLocalPort();
    }
  }
}
