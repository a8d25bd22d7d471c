package dev.cryo.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A call's request id ({@link Call#requestId()}) is the front's, from its header, or one minted for
 * the call; {@link Call#log()} prefixes each line with the call's user and that id.
 */
class RequestIdTest {

  /** Answers its request id, and logs one line through the call's logger. */
  static final class Echo implements CryoApplication {
    @Override
    public void routes(Routes routes) {
      routes.post("/echo", call -> {
        call.log().log(System.Logger.Level.INFO, "echoing");
        call.log().log(System.Logger.Level.INFO, "the {0} way", "formatted");
        return Map.of("requestId", call.requestId(), "user", call.user());
      });
    }
  }

  private final List<LogRecord> lines = new CopyOnWriteArrayList<>();
  private final Handler capture = new Handler() {
    @Override
    public void publish(LogRecord record) {
      lines.add(record);
    }

    @Override
    public void flush() {}

    @Override
    public void close() {}
  };
  private final Logger logger = Logger.getLogger(Echo.class.getName());

  @BeforeEach
  void listen() {
    logger.addHandler(capture);
  }

  @AfterEach
  void stop() {
    logger.removeHandler(capture);
  }

  @Test
  void theFrontsIdReachesTheHandlerAndEveryLineOfItsLogger() {
    try (CryoTestKit kit = CryoTestKit.of(Echo::new)) {
      CryoTestKit.Connection browser = kit.connect();
      Response reply = browser.request(Request.of("POST", "/echo", "",
          List.of(Map.entry(Call.REQUEST_ID_HEADER, "AbCdEfGh12345678")), null));
      assertThat(CryoTestKit.json(reply).get("requestId").asText()).isEqualTo("AbCdEfGh12345678");
      String user = CryoTestKit.json(reply).get("user").asText();
      assertThat(lines).extracting(record -> new java.util.logging.SimpleFormatter()
              .formatMessage(record))
          .containsExactly("user=" + user + " request=AbCdEfGh12345678: echoing",
              "user=" + user + " request=AbCdEfGh12345678: the formatted way");
    }
  }

  @Test
  void aNameWithQuotesAndBracesIsPrintedAsItIs() {
    CallLog log = new CallLog(System.getLogger(Echo.class.getName()), () -> "o'brien{0}",
        "AbCdEfGh12345678");
    log.log(System.Logger.Level.INFO, "plain");
    log.log(System.Logger.Level.INFO, "the {0} way", "formatted");
    assertThat(lines).extracting(record -> new java.util.logging.SimpleFormatter()
            .formatMessage(record))
        .containsExactly("user=o'brien{0} request=AbCdEfGh12345678: plain",
            "user=o'brien{0} request=AbCdEfGh12345678: the formatted way");
  }

  @Test
  void aCallWithoutAnIdIsGivenAFreshOneEachTime() {
    try (CryoTestKit kit = CryoTestKit.of(Echo::new)) {
      CryoTestKit.Connection browser = kit.connect();
      String first = CryoTestKit.json(browser.post("/echo")).get("requestId").asText();
      String second = CryoTestKit.json(browser.post("/echo")).get("requestId").asText();
      assertThat(first).matches("[A-Za-z0-9_-]{16}");
      assertThat(second).matches("[A-Za-z0-9_-]{16}").isNotEqualTo(first);
      assertThat(lines).hasSize(4);
      assertThat(lines.get(0).getMessage()).contains("request=" + first + ": ");
      assertThat(lines.get(2).getMessage()).contains("request=" + second + ": ");
    }
  }
}
