package dev.cryo.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cryo.cli.DemoClient.Answer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.http.HttpClient;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 23: idle users leave memory. With {@code --idle-freeze 3s --idle-guest-freeze 1s} a guest
 * who wrote (his counter) and a guest who only read are both frozen by their worker's idle valve,
 * and each is woken on his next request, the writer with his counter.
 */
@Timeout(300)
class ServeIdleFreezeTest {

  @TempDir
  Path scratch;

  @Test
  void idleGuestsAreFrozenByTheirWorkerAndWokenWithTheirStateOnTheirNextRequest()
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

      Poll.until("both guests frozen by the idle valve", () -> freezes(log, writerName) >= 1
          && freezes(log, readerName) >= 1);

      Answer third = writer.post("/api/counter", Map.of("page", page));
      assertThat(third.status()).as(third.text()).isEqualTo(200);
      assertThat(third.field("user")).isEqualTo(writerName);
      assertThat(third.number("counter")).as("his counter, woken from the freezer").isEqualTo(3);
      assertThat(third.number("pageCounter")).isEqualTo(3);
      Answer again = reader.get("/api/state");
      assertThat(again.status()).as(again.text()).isEqualTo(200);
      assertThat(again.field("user")).isEqualTo(readerName);
      assertThat(EventAuditor.audit(log, writerName::equals).adoptions()).isPositive();
      assertThat(EventAuditor.audit(log, readerName::equals).adoptions()).isPositive();
    }
  }

  private static int freezes(Path log, String user) {
    try {
      return EventAuditor.audit(log, user::equals).freezes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
