package dev.cryo.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cryo.cli.DemoClient.Answer;
import dev.cryo.front.SocketClient;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A push to a frozen user's page across processes: a real {@code cryo serve} of
 * {@link PokeApplication}; user A opens a page and its socket; {@code cryo reload} (another
 * process) quits every worker into the freezer, so A is frozen while his socket stays open in the
 * front; user B's call pushes to A's page. A's socket receives it, B's call is told it was
 * written, and the event log shows A was not woken by it (nor by a ping over his socket); A's next
 * call on the same socket wakes him.
 */
@Timeout(300)
class PushToFrozenPageTest {

  @TempDir Path scratch;

  @Test
  void aPushToAFrozenUsersPageReachesHisOpenSocketAndWakesNobody() throws Exception {
    ServeRun run = ServeRun.serving(scratch.resolve("home"), "--workers", "2", "--app",
        PokeApplication.class.getName());
    HttpClient http = HttpClient.newHttpClient(); // shut down at once: a close waits for sockets
    try {
      Path log = run.home().resolve("events.jsonl");
      DemoClient a = new DemoClient(http, run.base());
      Answer opened = a.post("/api/pages", Map.of());
      assertThat(opened.status()).as(opened.text()).isEqualTo(200);
      String page = opened.field("page");
      String userA = opened.field("user");
      SocketClient socket = SocketClient.connect(http, URI.create("ws://"
          + run.base().getHost() + ":" + run.base().getPort() + "/_cryo/ws"), a.cookie(), null);
      socket.send("{\"id\":1,\"type\":\"open\",\"page\":\"" + page + "\"}");
      assertThat(socket.nextWithId(1).path("status").asInt()).isEqualTo(200);

      // Every worker quits into the freezer and is replaced: A is frozen, his socket stays open.
      ChildCryo reload = ChildCryo.start(scratch, "reload", "--home", run.home().toString());
      try {
        assertThat(reload.exitCode()).as(reload.out() + reload.err()).isZero();
      } finally {
        reload.close();
      }
      EventAuditor frozen = EventAuditor.audit(log, userA::equals);
      assertThat(frozen.freezes()).as("A's freezes in the log").isEqualTo(1);
      assertThat(frozen.adoptions()).isZero();

      DemoClient b = new DemoClient(http, run.base());
      Answer born = b.post("/api/pages", Map.of());
      assertThat(born.status()).as(born.text()).isEqualTo(200);
      Answer poked = b.post("/api/poke", Map.of("page", page, "text", "hello, frozen A"));
      assertThat(poked.status()).as(poked.text()).isEqualTo(200);
      assertThat(poked.number("pages")).as("pages the push found").isEqualTo(1);
      assertThat(poked.number("written")).as("sockets it was written to").isEqualTo(1);

      JsonNode push = socket.next();
      assertThat(push.path("type").asText()).as(push.toString()).isEqualTo("push");
      assertThat(push.path("page").asText()).isEqualTo(page);
      assertThat(push.path("data").path("kind").asText()).isEqualTo("poke");
      assertThat(push.path("data").path("from").asText()).isEqualTo(born.field("user"));
      assertThat(push.path("data").path("text").asText()).isEqualTo("hello, frozen A");
      socket.send("{\"id\":2,\"type\":\"ping\"}");
      assertThat(socket.nextWithId(2).path("type").asText()).isEqualTo("pong");

      // Nobody woke A: his only freeze, no adoption, no birth anew, no violation.
      EventAuditor after = EventAuditor.audit(log, userA::equals);
      assertThat(after.violations()).isEmpty();
      assertThat(after.freezes()).isEqualTo(1);
      assertThat(after.adoptions()).as("A woken by the push or the ping").isZero();

      // The same socket, no reconnect: A's own call wakes him (the log can tell a wake).
      socket.send("{\"id\":3,\"type\":\"call\",\"method\":\"POST\",\"path\":\"/api/poke\","
          + "\"body\":{\"page\":\"" + page + "\",\"text\":\"awake\"}}");
      JsonNode reply = socket.nextWithId(3);
      assertThat(reply.path("status").asInt()).as(reply.toString()).isEqualTo(200);
      assertThat(reply.path("body").path("written").asInt()).isEqualTo(1);
      Poll.until("A's wake is in the event log",
          () -> audit(log, userA).adoptions() == 1);
      assertThat(audit(log, userA).violations()).isEmpty();
      socket.close();
    } finally {
      http.shutdownNow();
      run.close();
    }
  }

  private static EventAuditor audit(Path log, String user) {
    try {
      return EventAuditor.audit(log, user::equals);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
