package dev.cryo.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cryo.admin.PrometheusText;
import java.net.CookieManager;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The application's own meters ({@code AppContext.meters()}) on a real {@code cryo serve} with two
 * workers: what a worker's instance counts reaches the admin listener's metrics as
 * {@code app_…}, tagged with that worker and the application's tags.
 */
@Timeout(300)
class ServeAppMetricsTest {

  static final String TOKEN = "serve-app-metrics-token-9";
  static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path scratch;

  @Test
  void aWorkersMetersReachTheAdminListenerTaggedByWorker() throws Exception {
    ServeRun run = ServeRun.serving(scratch.resolve("home"), "--workers", "2", "--admin-port",
        "0", "--admin-token", TOKEN, "--app", MeteredApplication.class.getName());
    try (HttpClient http = HttpClient.newBuilder().cookieHandler(new CookieManager()).build();
        HttpClient admin = HttpClient.newHttpClient()) {
      URI adminBase = AdminServeTest.adminUrl(run);
      String worker = null;
      for (int i = 0; i < 3; i++) {
        var response = http.send(HttpRequest.newBuilder(run.base().resolve("/api/order"))
            .POST(HttpRequest.BodyPublishers.noBody()).timeout(Duration.ofSeconds(30)).build(),
            BodyHandlers.ofString());
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        worker = JSON.readTree(response.body()).path("worker").asText();
      }
      String orders = "app_shop_orders_total{kind=\"test\",worker=\"" + worker + "\"}";
      String checkouts = "app_shop_checkout_seconds_count{worker=\"" + worker + "\"}";
      Poll.until("the worker's next photo carries its meters", () -> {
        PrometheusText metrics = metrics(admin, adminBase);
        return metrics.valueOrZero(orders) == 3 && metrics.valueOrZero(checkouts) == 3;
      });
      PrometheusText metrics = metrics(admin, adminBase);
      assertThat(metrics.value("app_shop_checkout_seconds_sum{worker=\"" + worker + "\"}"))
          .isNotNull();
      assertThat(metrics.value(orders)).isEqualTo(3);
    } finally {
      run.close();
    }
  }

  private static PrometheusText metrics(HttpClient admin, URI base) {
    try {
      var response = admin.send(HttpRequest.newBuilder(base.resolve("/_cryo/metrics"))
          .header("Authorization", "Bearer " + TOKEN).timeout(Duration.ofSeconds(30)).build(),
          BodyHandlers.ofString());
      return PrometheusText.parse(response.body());
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
