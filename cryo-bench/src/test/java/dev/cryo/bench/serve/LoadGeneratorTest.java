package dev.cryo.bench.serve;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cryo.demo.DemoApplication;
import java.net.URI;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The HTTP benchmark's parts run briefly, so that they cannot rot: the load on the anchor. */
class LoadGeneratorTest {

  @Test
  void theLoadGeneratorDrivesTheSingleProcessAnchorWithoutErrors() throws Exception {
    try (PlainMemoryServer server = new PlainMemoryServer(new DemoApplication(), 0)) {
      server.start();
      LoadGenerator.Result result = LoadGenerator.run(
          URI.create("http://127.0.0.1:" + server.port() + "/"), 5, Duration.ofSeconds(2),
          Duration.ofSeconds(2));

      assertThat(result.errors()).isZero();
      assertThat(result.requests()).isPositive();
      assertThat(result.latency().getTotalCount()).isEqualTo(result.requests());
      assertThat(server.users()).hasSize(5); // one guest per virtual user, each with his cookie
    }
  }
}
