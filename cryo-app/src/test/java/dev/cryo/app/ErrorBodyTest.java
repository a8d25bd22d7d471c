package dev.cryo.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Every error body is {@code {"error": …, "message": …}} with its keys in that order (docs/demo.md),
 * in every JVM: the exact bytes are asserted, so an order left to a hash (a {@code Map.of}, whose
 * iteration order is salted per JVM) fails here in about every other run, and across the fresh
 * JVMs of {@link #theOrderIsTheSameInEveryJvm} almost surely.
 */
class ErrorBodyTest {

  record Item(String name) {}

  static final class Shop implements CryoApplication {
    @Override
    public void routes(Routes routes) {
      routes.get("/items", call -> Map.of());
      routes.post("/items", Item.class, (call, item) -> item);
      routes.get("/refuse", call -> {
        throw new Refusal(409, "taken", "that name is taken; nothing changed");
      });
      routes.get("/broken", call -> {
        throw new IllegalStateException("bug");
      });
      routes.get("/pages/{id}", call -> call.page(call.pathParameter("id"), Item.class).get());
    }
  }

  private final CryoTestKit kit = CryoTestKit.of(Shop::new).failOnApplicationError(false);
  private final CryoTestKit.Connection browser = kit.connect();

  @Test
  void everyErrorOfTheDispatcherAndTheHostPolicyPutsErrorBeforeMessage() {
    assertOrdered(browser.get("/nowhere"), "not_found");
    assertOrdered(browser.send("DELETE", "/items", null), "method_not_allowed");
    assertOrdered(browser.post("/items"), "bad_request");
    assertOrdered(browser.get("/refuse"), "taken");
    assertOrdered(browser.get("/broken"), "application_failed");
    assertOrdered(browser.get("/pages/p-unknown"), "unknown_page");
    assertOrdered(HostPolicy.wakeFailed(), "application_failed");
    assertOrdered(HostPolicy.unreadableParcel("why"), "unreadable_parcel");
    assertOrdered(HostPolicy.error(503, "interrupted", "reload"), "interrupted");
  }

  /** Prints the bodies of a few error replies, one a line: run in fresh JVMs. */
  public static final class Print {
    public static void main(String[] args) {
      CryoTestKit.Connection browser = CryoTestKit.of(Shop::new).failOnApplicationError(false)
          .connect();
      System.out.println(browser.get("/nowhere").bodyText());
      System.out.println(browser.get("/refuse").bodyText());
      System.out.println(HostPolicy.wakeFailed().bodyText());
    }
  }

  @Test
  void theOrderIsTheSameInEveryJvm() throws Exception {
    String java = ProcessHandle.current().info().command().orElse("java");
    List<String> outputs = new ArrayList<>();
    for (int run = 0; run < 6; run++) {
      Process child = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
          Print.class.getName()).redirectError(ProcessBuilder.Redirect.DISCARD).start();
      byte[] out = child.getInputStream().readAllBytes();
      assertThat(child.waitFor(60, TimeUnit.SECONDS)).isTrue();
      assertThat(child.exitValue()).isZero();
      outputs.add(new String(out, StandardCharsets.UTF_8));
    }
    for (String output : outputs) {
      for (String line : output.strip().split("\\R")) {
        assertThat(line).startsWith("{\"error\":");
      }
    }
    assertThat(outputs).containsOnly(outputs.get(0));
  }

  private static void assertOrdered(Response reply, String code) {
    assertThat(reply.bodyText()).startsWith("{\"error\":\"" + code + "\",\"message\":\"")
        .endsWith("\"}");
    assertThat(CryoTestKit.json(reply).size()).isEqualTo(2);
  }
}
