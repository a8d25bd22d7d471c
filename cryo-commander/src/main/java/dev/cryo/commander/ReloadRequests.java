package dev.cryo.commander;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cryo.control.ControlException;
import dev.cryo.control.RunHome;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.HexFormat;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.function.Function;

/**
 * Reload requests from another process: {@code cryo reload} publishes {@value #REQUEST} in the run
 * directory (written whole to a temporary, then linked: a reader sees all of it or nothing), bound
 * to the run's invocation id; the commander's tick reads it strictly, removes it, runs the reload
 * on a thread of its own, and answers in {@value #RESULT} (replaced atomically), which names the
 * request's id.
 *
 * <pre>{@code
 * reload.json         {"schema": "cryo.reload/1", "invocation": "<32 hex>", "id": "<16 hex>",
 *                      "appPath": "/abs/new.jar" | null, "requestedAt": "2026-12-01T11:00:00Z"}
 * reload-result.json  {"schema": "cryo.reload-result/1", "id": "<the request's>",
 *                      "state": "running" | "done" | "refused", "refusal": null | "busy" | ...,
 *                      "replaced": ["main_0001 -> main_0003", ...], "frozen": 12, "lost": [],
 *                      "appPath": ..., "millis": 3120, "message": "...", "at": "..."}
 * }</pre>
 *
 * <p>A request of another invocation (an earlier run's) is removed unread; one that does not parse
 * (not JSON, another schema, a missing field) is removed and answered {@code refused} with reason
 * {@code bad_request}, with the id when it could be read. A request that comes while a reload runs
 * is answered {@code busy}, as is one that comes while any other change of workers or a drain runs
 * (the run's {@link Lifecycle} says so, in the answer's message).
 *
 * <p>Both files are reached through the run's home ({@link RunHome}). A request the home's rule
 * refuses — another user's file, one its group or others may write, a link or special file — is
 * not read, not answered and left where it is; the refusal is logged once. (A workers' jar named
 * by whoever could write there would run as the server's user.)
 *
 * <p>Thread-safety: {@link #tick} runs on the commander's tick thread, one at a time.
 */
public final class ReloadRequests {

  /** The request's file name in the run directory. */
  public static final String REQUEST = "reload.json";
  /** The answer's file name in the run directory. */
  public static final String RESULT = "reload-result.json";
  /** The request's schema. */
  public static final String SCHEMA = "cryo.reload/1";
  /** The answer's schema. */
  public static final String RESULT_SCHEMA = "cryo.reload-result/1";
  /** The longest request read. */
  static final int MAX_LENGTH = 64 * 1024;

  private static final System.Logger LOG = System.getLogger(ReloadRequests.class.getName());
  private static final ObjectMapper JSON = new ObjectMapper()
      .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

  /**
   * One request.
   *
   * @param invocation the run it is meant for
   * @param id its id, which the answer names
   * @param appPath the new version's jar (absolute), or null to keep the current one
   * @param requestedAt when it was written
   * @param appConfig the application's configuration file from now on (absolute), or null to read
   *     the current one again
   * @param workerJvmOptions the new workers' JVM options beyond cryo's own, or null to keep the
   *     current ones
   */
  public record Request(String invocation, String id, String appPath, String requestedAt,
      String appConfig, java.util.List<String> workerJvmOptions) {

    /** A request that keeps the configuration file and the JVM options. */
    public Request(String invocation, String id, String appPath, String requestedAt) {
      this(invocation, id, appPath, requestedAt, null, null);
    }

    /** A new request for the run {@code invocation}, with a random id. */
    public static Request of(String invocation, Path appPath) {
      return of(invocation, appPath, null, null);
    }

    /**
     * A new request for the run {@code invocation}, with a random id, naming a configuration file
     * (null: read the current one again) and JVM options (null: keep the current ones).
     */
    public static Request of(String invocation, Path appPath, Path appConfig,
        java.util.List<String> workerJvmOptions) {
      byte[] random = new byte[8];
      new java.security.SecureRandom().nextBytes(random);
      return new Request(invocation, HexFormat.of().formatHex(random),
          appPath == null ? null : appPath.toAbsolutePath().normalize().toString(),
          Instant.now().toString(),
          appConfig == null ? null : appConfig.toAbsolutePath().normalize().toString(),
          workerJvmOptions == null ? null : java.util.List.copyOf(workerJvmOptions));
    }

    /** The request as its file's bytes. */
    public byte[] toJson() {
      ObjectNode node = JSON.createObjectNode();
      node.put("schema", SCHEMA);
      node.put("invocation", invocation);
      node.put("id", id);
      node.put("appPath", appPath);
      node.put("requestedAt", requestedAt);
      if (appConfig != null) {
        node.put("appConfig", appConfig);
      }
      if (workerJvmOptions != null) {
        node.set("workerJvmOptions", JSON.valueToTree(workerJvmOptions));
      }
      return (node.toString() + "\n").getBytes(StandardCharsets.UTF_8);
    }
  }

  private final RunHome home;
  private final String invocation;
  private final Function<Request, ReloadOutcome> reload;
  private final Supplier<Optional<String>> refusal;
  private String lastRefusal; // the tick's thread only: a refusal is logged once

  /**
   * @param reload runs a reload (the run's {@link Lifecycle} decides whether it may begin)
   * @param refusal why a reload would not begin now, or empty: asked before one is started, so
   *     that a request coming while another change of workers or a drain runs is answered at once
   */
  ReloadRequests(RunHome home, String invocation, Function<Request, ReloadOutcome> reload,
      Supplier<Optional<String>> refusal) {
    this.home = home;
    this.invocation = invocation;
    this.reload = reload;
    this.refusal = refusal;
  }

  /** Reads the request, if any, and acts on it; never throws for what the file holds. */
  void tick() throws IOException {
    byte[] bytes;
    Optional<byte[]> read;
    try {
      read = home.read(REQUEST, MAX_LENGTH);
    } catch (ControlException e) {
      if (!e.getMessage().equals(lastRefusal)) {
        LOG.log(Level.WARNING, "a reload request was not acted upon: " + e.getMessage());
      }
      lastRefusal = e.getMessage();
      return;
    }
    lastRefusal = null;
    if (read.isEmpty()) {
      return;
    }
    bytes = read.get();
    home.remove(REQUEST); // read once: a commander that dies mid-reload does not redo it
    JsonNode node;
    try {
      node = JSON.readTree(bytes);
    } catch (IOException e) {
      answer(null, "refused", "bad_request", null, "the reload request did not parse as JSON ("
          + e.getMessage() + "); it was removed and nothing was reloaded: run cryo"
          + " reload again");
      return;
    }
    String id = node.path("id").isTextual() ? node.path("id").asText() : null;
    if (!node.path("invocation").isTextual() || !invocation.equals(node.path("invocation")
        .asText())) {
      LOG.log(Level.INFO, "a reload request for another run was removed unread");
      return;
    }
    if (!SCHEMA.equals(node.path("schema").asText(null)) || id == null
        || !(node.path("appPath").isNull() || node.path("appPath").isTextual())) {
      answer(id, "refused", "bad_request", null, "the reload request is not a " + SCHEMA
          + " request (schema, id, appPath); it was removed and nothing was reloaded");
      return;
    }
    JsonNode options = node.path("workerJvmOptions");
    boolean optionsRead = options.isMissingNode() || options.isNull() || options.isArray();
    for (JsonNode option : options.isArray() ? options : JSON.createArrayNode()) {
      optionsRead &= option.isTextual();
    }
    JsonNode appConfig = node.path("appConfig");
    if (!optionsRead || !(appConfig.isMissingNode() || appConfig.isNull()
        || appConfig.isTextual())) {
      answer(id, "refused", "bad_request", null, "the reload request's appConfig (a path) or"
          + " workerJvmOptions (a list of strings) does not read; it was removed and nothing was"
          + " reloaded");
      return;
    }
    java.util.List<String> jvmOptions = null;
    if (options.isArray()) {
      jvmOptions = new java.util.ArrayList<>();
      for (JsonNode option : options) {
        jvmOptions.add(option.asText());
      }
    }
    Request request = new Request(invocation, id, node.path("appPath").isNull() ? null
        : node.path("appPath").asText(), node.path("requestedAt").asText(""),
        appConfig.isTextual() ? appConfig.asText() : null, jvmOptions);
    Optional<String> busy = refusal.get();
    if (busy.isPresent()) { // the reload itself asks again: a race is refused there, with a reason
      answer(id, "refused", ReloadOutcome.Refusal.BUSY.code(), null, busy.get());
      return;
    }
    answer(id, "running", null, null, "the reload runs");
    Thread.ofVirtual().name("cryo-reload-" + id).start(() -> {
      try {
        ReloadOutcome outcome = reload.apply(request);
        answer(id, outcome.done() ? "done" : "refused",
            outcome.refusal() == null ? null : outcome.refusal().code(), outcome,
            outcome.message());
      } catch (RuntimeException e) {
        LOG.log(Level.ERROR, "the reload " + id + " failed", e);
        answer(id, "refused", "internal", null, "the reload failed: " + e);
      }
    });
  }

  private void answer(String id, String state, String refusal, ReloadOutcome outcome,
      String message) {
    ObjectNode node = JSON.createObjectNode();
    node.put("schema", RESULT_SCHEMA);
    node.put("id", id);
    node.put("state", state);
    node.put("refusal", refusal);
    node.set("replaced", JSON.valueToTree(outcome == null ? java.util.List.of()
        : outcome.replaced()));
    node.put("frozen", outcome == null ? 0 : outcome.frozen());
    node.set("lost", JSON.valueToTree(outcome == null ? java.util.List.of() : outcome.lost()));
    node.put("appPath", outcome == null ? null : outcome.appPath());
    node.put("millis", outcome == null ? 0 : outcome.millis());
    node.put("message", message);
    node.put("at", Instant.now().toString());
    try {
      home.replace(RESULT, (node.toString() + "\n").getBytes(StandardCharsets.UTF_8));
    } catch (IOException | RuntimeException e) {
      LOG.log(Level.WARNING, "the answer to reload request " + id + " could not be written: " + e);
    }
  }
}
