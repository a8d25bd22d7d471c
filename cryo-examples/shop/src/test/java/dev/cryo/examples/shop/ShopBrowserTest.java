package dev.cryo.examples.shop;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;

/**
 * The shop as a user runs it: the cryo command's jar ({@code java -jar cryo.jar serve}, a real
 * commander and two worker JVMs) serving the shop's own jar ({@code --app CLASS --app-path JAR}),
 * in a real headless Chromium. Two tabs of one browser are two pages of one user: adding to the
 * cart in one shows in the other, pushed over its page socket (that tab sends nothing).
 */
@Timeout(400)
class ShopBrowserTest {

  private static final Pattern URL = Pattern.compile("cryo serves (http://[^ ]+/)");

  @TempDir Path scratch;

  @Test
  void aCartChangeInOneTabShowsInTheOther() throws Exception {
    Path cryo = jar("cryo.example.cli.jar", "the cryo command's jar, built before this module");
    Path shop = jar("cryo.example.shop.jar", "the shop's jar, made right after compiling");
    Process serve = serve(cryo, shop);
    try (Browser browser = Browser.open(scratch)) {
      URI base = awaitUrl(serve);
      String first = browser.get(base);
      awaitSocketOpen(browser);
      browser.find(By.id("add-tea")).click();
      browser.awaitText(By.id("cart-count"), "1");

      String second = browser.newTab(base);
      awaitSocketOpen(browser);
      browser.awaitText(By.id("cart-count"), "1"); // read at load: the same user's cart

      browser.switchTo(first);
      browser.find(By.id("add-kettle")).click();
      browser.awaitText(By.id("cart-count"), "2");
      browser.switchTo(second);
      browser.awaitText(By.id("cart-count"), "2"); // pushed: this tab sent nothing
      browser.awaitText(By.id("cart-total"), "43.50");

      // and back: a removal in the second tab shows in the first
      browser.find(By.id("remove-tea")).click();
      browser.awaitText(By.id("cart-count"), "1");
      browser.switchTo(first);
      browser.awaitText(By.id("cart-count"), "1");
      browser.awaitText(By.id("cart-total"), "39.00");
    } finally {
      stop(serve);
    }
  }

  private static Path jar(String property, String what) {
    String value = System.getProperty(property);
    assertThat(value).as(property + " (set by this module's pom)").isNotNull();
    Path jar = Path.of(value);
    assertThat(jar).as(what).isRegularFile();
    return jar;
  }

  private Process serve(Path cryo, Path shop) throws IOException {
    List<String> command = List.of(Path.of(System.getProperty("java.home"), "bin", "java")
        .toString(), "-jar", cryo.toString(), "serve", "--home", scratch.resolve("home")
        .toString(), "--port", "0", "--workers", "2", "--worker-heap", "256m",
        "--app", ShopApplication.class.getName(), "--app-path", shop.toString());
    return new ProcessBuilder(command)
        .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
        .redirectOutput(scratch.resolve("serve-out.txt").toFile())
        .redirectError(scratch.resolve("serve-err.txt").toFile())
        .start();
  }

  private URI awaitUrl(Process serve) throws Exception {
    long deadline = System.nanoTime() + Browser.PATIENCE.toNanos();
    while (true) {
      Matcher matcher = URL.matcher(read("serve-out.txt"));
      if (matcher.find()) {
        return URI.create(matcher.group(1));
      }
      if (!serve.isAlive()) {
        throw new AssertionError("cryo serve exited with " + serve.exitValue() + " before serving;"
            + " stderr: " + read("serve-err.txt"));
      }
      if (System.nanoTime() - deadline > 0) {
        throw new AssertionError("cryo serve printed no URL within " + Browser.PATIENCE
            + "; stderr: " + read("serve-err.txt"));
      }
      Thread.sleep(20);
    }
  }

  private static void awaitSocketOpen(Browser browser) {
    browser.awaitText(By.id("socket"), "open");
  }

  private String read(String name) {
    try {
      return Files.readString(scratch.resolve(name));
    } catch (IOException e) {
      return "";
    }
  }

  /** SIGTERM (a drain), then SIGKILL of whatever of the run is left. */
  private static void stop(Process serve) throws InterruptedException {
    List<ProcessHandle> all = new ArrayList<>(serve.descendants().toList());
    serve.destroy();
    serve.waitFor(20, TimeUnit.SECONDS);
    serve.destroyForcibly();
    all.addAll(serve.descendants().toList());
    all.forEach(ProcessHandle::destroyForcibly);
  }
}
