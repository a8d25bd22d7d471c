package dev.cryo.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cryo.cli.DemoClient.Answer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 23: idle users leave memory. With {@code --idle-freeze 3s --idle-guest-freeze 1s} a guest
 * who wrote (his counter) is frozen by his worker's idle valve and woken on his next request with
 * his counter; a guest who only read, with no page, is dropped by the same valve (nothing to
 * freeze), and his old cookie, when it comes back, gets a new guest and a new cookie.
 */
@Timeout(300)
class ServeIdleFreezeTest {

  @TempDir
  Path scratch;

  @Test
  void idleGuestsAreFrozenOrDroppedByTheirWorkerAndServedOnTheirNextRequest()
      throws Exception {
    try (ServeRun run = ServeRun.serving(scratch.resolve("home"), "--workers", "1",
        "--idle-freeze", "3s", "--idle-guest-freeze", "1s");
        HttpClient http = HttpClient.newHttpClient()) {
      Path log = run.home().resolve("events.jsonl");
      DemoClient writer = new DemoClient(http, run.base());
      String page = writer.openPage();
      writer.post("/api/counter", Map.of("page", page));
      Answer second = writer.post("/api/counter", Map.of("page", page));
      assertThat(second.number("counter")).isEqualTo(2);
      String writerName = second.field("user");
      DemoClient reader = new DemoClient(http, run.base());
      Answer read = reader.get("/api/state");
      assertThat(read.status()).as(read.text()).isEqualTo(200);
      String readerName = read.field("user");

      String readerCookie = reader.cookie();
      Poll.until("the writer frozen and the reader dropped by the idle valve",
          () -> freezes(log, writerName) >= 1 && dropped(log, readerName));
      assertThat(freezes(log, readerName)).as("nothing of his was frozen").isZero();
      assertThat(Files.exists(run.home().resolve("freezer")
          .resolve(dev.cryo.freezer.Freezer.key(readerName))))
          .as("no folder made for him").isFalse();

      Answer third = writer.post("/api/counter", Map.of("page", page));
      assertThat(third.status()).as(third.text()).isEqualTo(200);
      assertThat(third.field("user")).isEqualTo(writerName);
      assertThat(third.number("counter")).as("his counter, woken from the freezer").isEqualTo(3);
      assertThat(third.number("pageCounter")).isEqualTo(3);
      Answer again = reader.get("/api/state");
      assertThat(again.status()).as(again.text()).isEqualTo(200);
      assertThat(again.field("user")).as("his old cookie is an unknown one: a new guest")
          .startsWith("guest_").isNotEqualTo(readerName);
      assertThat(reader.cookie()).as("with a new cookie").isNotEqualTo(readerCookie);
      assertThat(EventAuditor.audit(log, writerName::equals).adoptions()).isPositive();
      assertThat(EventAuditor.audit(log, readerName::equals).adoptions()).isZero();
    }
  }

  /** Whether the log folds a {@code drop_user} of {@code user}. */
  private static boolean dropped(Path log, String user) {
    try {
      for (String line : Files.readAllLines(log)) {
        var event = JSON.readTree(line);
        if (event.path("event").asText().equals("fold")
            && event.path("kind").asText().equals("drop_user")
            && event.path("user").asText().equals(user)) {
          return true;
        }
      }
      return false;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static final com.fasterxml.jackson.databind.ObjectMapper JSON =
      new com.fasterxml.jackson.databind.ObjectMapper();

  private static int freezes(Path log, String user) {
    try {
      return EventAuditor.audit(log, user::equals).freezes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
