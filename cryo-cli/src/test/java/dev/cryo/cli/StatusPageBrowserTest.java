package dev.cryo.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.awt.image.BufferedImage;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;

/**
 * The status page of a real {@code cryo serve --admin-port 0} in a real headless Chromium: it
 * shows every worker the run has, goes live, and a screenshot of it is taken.
 */
class StatusPageBrowserTest {

  @TempDir Path scratch;

  @Test
  void theStatusPageShowsEveryWorkerAndIsScreenshot() throws Exception {
    try (ServeRun run = ServeRun.serving(scratch.resolve("home"), "--workers", "3",
            "--admin-port", "0");
        HttpClient http = HttpClient.newHttpClient();
        Browser browser = Browser.open(scratch)) {
      URI admin = AdminServeTest.adminUrl(run);
      DemoClient tab = new DemoClient(http, run.base());
      tab.post("/api/counter", Map.of("page", tab.openPage()));
      Poll.until("three workers run", () -> liveWorkers(http, admin).size() == 3);

      browser.get(admin.resolve("/_cryo/status"));
      browser.await("the page is live", d -> "live".equals(browser.text(By.id("connection"))));
      // the workers it must show: the run's, as its status.json says now (a start that failed
      // under load is retried under another name, so the names are the run's, not guessed)
      List<String> expected = browser.await("the page shows the run's workers", d -> {
        List<String> live = liveWorkers(http, admin);
        return live.size() == 3 && new java.util.HashSet<>(shownWorkers(browser))
            .equals(new java.util.HashSet<>(live)) ? live : null;
      });
      Map<String, String> rows = shownRows(browser);
      assertThat(rows.keySet()).containsExactlyInAnyOrderElementsOf(expected);
      rows.forEach((worker, text) -> assertThat(text).contains(worker).contains("running"));
      browser.await("the chart draws a line per worker", d -> d.findElements(
          By.cssSelector("#chart path[data-worker]")).size() >= 3 ? Boolean.TRUE : null);
      browser.await("the events show a birth", d -> browser.text(By.id("events"))
          .contains("birth"));

      Path shot = browser.screenshot(scratch.resolve("status.png"));
      Files.copy(shot, Path.of("target", "status-page.png"),
          java.nio.file.StandardCopyOption.REPLACE_EXISTING);
      byte[] png = Files.readAllBytes(shot);
      assertThat(png).startsWith(0x89, 'P', 'N', 'G');
      BufferedImage image = ImageIO.read(shot.toFile());
      assertThat(image.getWidth()).isEqualTo(windowWidth(browser));
      assertThat(image.getHeight()).isGreaterThan(400);
    }
  }

  private static long windowWidth(Browser browser) {
    return ((Number) browser.script("return window.innerWidth * window.devicePixelRatio;"))
        .longValue();
  }

  private static List<String> shownWorkers(Browser browser) {
    return List.copyOf(shownRows(browser).keySet());
  }

  /**
   * Each worker row's name and text, read in one script: the page redraws its rows every second,
   * so elements found one by one may be gone by the next call.
   */
  @SuppressWarnings("unchecked")
  private static Map<String, String> shownRows(Browser browser) {
    Map<String, String> rows = new java.util.LinkedHashMap<>();
    for (Object pair : (List<Object>) browser.script("return Array.from(document.querySelectorAll("
        + "'#workers tr[data-worker]')).map(row => [row.dataset.worker, row.innerText]);")) {
      List<Object> entry = (List<Object>) pair;
      rows.put((String) entry.get(0), (String) entry.get(1));
    }
    return rows;
  }

  /** The names of the running workers, from the admin port's status.json. */
  private static List<String> liveWorkers(HttpClient http, URI admin) {
    try {
      String body = http.send(java.net.http.HttpRequest.newBuilder(
          admin.resolve("/_cryo/status.json")).build(),
          java.net.http.HttpResponse.BodyHandlers.ofString()).body();
      List<String> names = new java.util.ArrayList<>();
      for (var worker : DemoClient.JSON.readTree(body).path("workers")) {
        if ("running".equals(worker.path("state").asText())) {
          names.add(worker.path("name").asText());
        }
      }
      return names;
    } catch (java.io.IOException e) {
      return List.of();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return List.of();
    }
  }
}
