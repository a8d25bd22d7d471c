package dev.cryo.front;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Login CSRF: a state-changing request from another site's page never reaches the run. */
class CrossSiteGateTest {

  private final FrontTest.EchoUpstream upstream = new FrontTest.EchoUpstream();
  private Front front;

  @BeforeEach
  void start() {
    front = Front.builder(upstream).port(0)
        .allowedOrigins(List.of("https://app.example/")).build();
    front.start();
  }

  @AfterEach
  void stop() {
    front.close();
  }

  private HttpResponse<String> send(String method, String... headers) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(
        URI.create("http://127.0.0.1:" + front.port() + "/api/login"))
        .method(method, BodyPublishers.ofString("{\"user\":\"mallory\"}"));
    for (int i = 0; i < headers.length; i += 2) {
      request.header(headers[i], headers[i + 1]);
    }
    // A client each: a refusal that leaves the body unread ends its connection, and a pooled
    // client may reuse it before it sees so.
    try (HttpClient fresh = HttpClient.newHttpClient()) {
      return fresh.send(request.build(), BodyHandlers.ofString());
    }
  }

  @Test
  void aPostFromAnotherSitesPageIs403AndNeverReachesTheRun() throws Exception {
    HttpResponse<String> byOrigin = send("POST", "Origin", "https://evil.example",
        "Content-Type", "text/plain");
    HttpResponse<String> byFetchSite = send("POST", "Sec-Fetch-Site", "cross-site");
    HttpResponse<String> sandboxed = send("PUT", "Origin", "null");
    HttpResponse<String> sibling = send("DELETE", "Sec-Fetch-Site", "same-site");
    HttpResponse<String> otherPort = send("POST", "Origin", "http://127.0.0.1:1");

    for (HttpResponse<String> refused : List.of(byOrigin, byFetchSite, sandboxed, sibling,
        otherPort)) {
      assertThat(refused.statusCode()).as(refused.body()).isEqualTo(403);
      assertThat(refused.body()).contains("\"error\":\"cross_site\"")
          .contains("nothing reached the application");
      assertThat(refused.headers().firstValue("set-cookie")).isEmpty();
    }
    assertThat(byOrigin.body()).contains("--allowed-origin https://evil.example");
    assertThat(upstream.seen).isEmpty();
  }

  @Test
  void thePagesOwnOriginAnAllowedOneAndNonBrowsersPass() throws Exception {
    String own = "http://127.0.0.1:" + front.port();
    assertThat(send("POST", "Origin", own, "Sec-Fetch-Site", "same-origin").statusCode())
        .isEqualTo(200);
    assertThat(send("POST", "Origin", "HTTPS://APP.EXAMPLE").statusCode()).isEqualTo(200);
    assertThat(send("POST").statusCode()).isEqualTo(200); // curl, a script: no Origin
    assertThat(send("POST", "Sec-Fetch-Site", "none").statusCode()).isEqualTo(200);
    assertThat(upstream.seen).hasSize(4);
  }

  @Test
  void safeMethodsPassFromAnywhere() throws Exception {
    assertThat(send("GET", "Origin", "https://evil.example", "Sec-Fetch-Site", "cross-site")
        .statusCode()).isEqualTo(200);
    assertThat(send("OPTIONS", "Origin", "https://evil.example").statusCode()).isEqualTo(200);
    assertThat(upstream.seen).hasSize(2);
  }

  @Test
  void behindATlsProxyTheHostHeaderNamesThePagesOwnOrigin() throws Exception {
    // The proxy ends TLS and keeps the browser's Host: https://app.test is this site.
    assertThat(rawPost("app.test", "https://app.test")).startsWith("HTTP/1.1 200");
    assertThat(rawPost("app.test:8443", "https://app.test:8443")).startsWith("HTTP/1.1 200");
    assertThat(rawPost("app.test", "https://app.test:8443")).startsWith("HTTP/1.1 403");
    assertThat(rawPost("app.test", "https://evil.test")).startsWith("HTTP/1.1 403");
    assertThat(upstream.seen).hasSize(2);
  }

  private String rawPost(String host, String origin) throws Exception {
    try (Socket socket = new Socket("127.0.0.1", front.port())) {
      OutputStream out = socket.getOutputStream();
      out.write(("POST /api/login HTTP/1.1\r\nHost: " + host + "\r\nOrigin: " + origin
          + "\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}")
          .getBytes(StandardCharsets.US_ASCII));
      out.flush();
      InputStream in = socket.getInputStream();
      return new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
    }
  }
}
