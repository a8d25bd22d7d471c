package dev.cryo.chaos.load;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.cryo.chaos.history.History;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Executors;

/**
 * A stand-in for the demo's HTTP API (docs/demo.md) in one process, with no cryo in it: a counter
 * per user, a counter and notes per page, logins with the demo's rules, moves that change nothing.
 * It measures the workload's generator alone, and tests the harness and the checker end to end:
 * {@link Fault#NONE} is a correct server, and each other {@link Fault} plants one kind of defect.
 * No page socket. Thread-safe (one lock for its whole state).
 */
public final class FakeDemo implements AutoCloseable {

  /** The defect the stand-in plants. */
  public enum Fault {
    /** None: a correct server. */
    NONE,
    /** A move leaves a copy of the user behind, and every other later call is served by it. */
    STALE_COPY,
    /** A move brings the user back as he was at his move before: the writes between are lost. */
    FORGET
  }

  private static final class User {
    long counter;
    User copy;
    long served;
    long atLastMove;
  }

  private record Page(String connection, long[] counter, List<String> notes) {}

  private final HttpServer server;
  private final Fault fault;
  private final Map<String, String> connections = new HashMap<>();
  private final Map<String, User> users = new HashMap<>();
  private final Map<String, Page> pages = new HashMap<>();

  private FakeDemo(HttpServer server, Fault fault) {
    this.server = server;
    this.fault = fault;
  }

  /** Starts a stand-in with {@code fault} on a free loopback port. */
  public static FakeDemo start(Fault fault) throws IOException {
    HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 1024);
    FakeDemo demo = new FakeDemo(server, fault);
    server.createContext("/", demo::handle);
    server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
    server.start();
    return demo;
  }

  /** Where it serves. */
  public URI base() {
    return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/");
  }

  private void handle(HttpExchange exchange) throws IOException {
    try (exchange; InputStream body = exchange.getRequestBody()) {
      JsonNode request = History.JSON.createObjectNode();
      byte[] bytes = body.readAllBytes();
      if (bytes.length > 0) {
        request = History.JSON.readTree(bytes);
      }
      String cookie = cookie(exchange);
      ObjectNode reply = History.JSON.createObjectNode();
      int status;
      synchronized (this) {
        if (cookie == null || !connections.containsKey(cookie)) {
          cookie = UUID.randomUUID().toString();
          String guest = "guest_" + cookie;
          connections.put(cookie, guest);
          users.put(guest, new User());
          exchange.getResponseHeaders().add("Set-Cookie", DemoClient.COOKIE + "=" + cookie
              + "; Path=/; HttpOnly");
        }
        status = serve(exchange.getRequestMethod(), exchange.getRequestURI(), cookie, request,
            reply);
      }
      byte[] out = reply.toString().getBytes(StandardCharsets.UTF_8);
      exchange.getResponseHeaders().add("Content-Type", "application/json");
      exchange.sendResponseHeaders(status, out.length);
      exchange.getResponseBody().write(out);
    }
  }

  private int serve(String method, URI uri, String cookie, JsonNode request, ObjectNode reply) {
    String name = connections.get(cookie);
    User user = users.get(name);
    String path = uri.getPath();
    String pageId = request.path("page").asText(null);
    if (method.equals("GET") && path.equals("/api/state") && uri.getQuery() != null) {
      pageId = uri.getQuery().substring("page=".length());
    }
    Page page = pageId == null ? null : pages.get(pageId);
    if (pageId != null && (page == null || !page.connection().equals(cookie))) {
      reply.put("error", "unknown_page").put("message", "no such page");
      return 404;
    }
    switch (method + " " + path) {
      case "POST /api/pages" -> {
        String id = "p" + UUID.randomUUID();
        pages.put(id, new Page(cookie, new long[1], new ArrayList<>()));
        reply.put("page", id).put("worker", "fake");
        return 200;
      }
      case "POST /api/counter" -> {
        User served = servedCopy(user);
        served.counter++;
        page.counter()[0]++;
        reply.put("user", name).put("counter", served.counter)
            .put("pageCounter", page.counter()[0]).put("worker", "fake");
        return 200;
      }
      case "POST /api/notes" -> {
        page.notes().add(request.path("text").asText());
        if (page.notes().size() > 100) {
          page.notes().remove(0);
        }
        notes(reply.putArray("notes"), page);
        return 200;
      }
      case "GET /api/state" -> {
        state(reply, name, servedCopy(user), page);
        return 200;
      }
      case "POST /api/login" -> {
        String identity = request.path("user").asText();
        if (!identity.equals(name)) {
          User existing = users.get(identity);
          if (existing == null) {
            users.put(identity, user);
          }
          connections.put(cookie, identity);
          if (name.startsWith("guest_")) {
            users.remove(name);
          }
          name = identity;
          user = users.get(identity);
        }
        state(reply, name, user, page);
        return 200;
      }
      case "POST /api/move" -> {
        if (fault == Fault.STALE_COPY && user.copy == null) {
          user.copy = new User();
          user.copy.counter = user.counter;
        } else if (fault == Fault.FORGET) {
          user.counter = user.atLastMove;
        }
        user.atLastMove = user.counter;
        reply.put("from", "fake").put("to", "fake");
        return 200;
      }
      default -> {
        reply.put("error", "not_found").put("message", "no such route");
        return 404;
      }
    }
  }

  private static User servedCopy(User user) {
    return user.copy != null && (user.served++ % 2 == 1) ? user.copy : user;
  }

  private static void state(ObjectNode reply, String name, User user, Page page) {
    reply.put("user", name).put("counter", user.counter);
    if (page == null) {
      reply.putNull("pageCounter");
      reply.put("worker", "fake");
      reply.putNull("notes");
    } else {
      reply.put("pageCounter", page.counter()[0]).put("worker", "fake");
      notes(reply.putArray("notes"), page);
    }
  }

  private static void notes(ArrayNode list, Page page) {
    page.notes().forEach(list::add);
  }

  private static String cookie(HttpExchange exchange) {
    String header = exchange.getRequestHeaders().getFirst("Cookie");
    if (header == null) {
      return null;
    }
    for (String part : header.split(";")) {
      String[] pair = part.trim().split("=", 2);
      if (pair.length == 2 && pair[0].equals(DemoClient.COOKIE)) {
        return pair[1];
      }
    }
    return null;
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
