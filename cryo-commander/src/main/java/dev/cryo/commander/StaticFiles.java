package dev.cryo.commander;

import dev.cryo.wire.RemoteFailure;
import dev.cryo.wire.WireClosedException;
import dev.cryo.wire.WireRefusedException;
import dev.cryo.wire.WireTimeoutException;
import dev.cryo.wire.protocol.HttpResult;
import dev.cryo.wire.protocol.Methods;
import dev.cryo.wire.protocol.ProtocolCodec;
import dev.cryo.wire.protocol.StaticCall;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The application's static files ({@code routes.staticResources}): which paths are theirs — the
 * prefixes the running workers presented — and their requests, sent to one of those workers in
 * turn as a {@link Methods#STATIC} call. Such a request belongs to no connection and no user: the
 * maps are neither read nor changed, no user is placed, born or woken, and the worker serves it
 * outside every user's turn.
 *
 * <p>A worker that dies or is too busy before the call reached it is passed over for the next;
 * when none is left the reply is a {@code 503} with {@code Retry-After}. Replies of the
 * commander's own carry {@link Reply#RUNTIME_HEADER}.
 *
 * <p>Thread-safe; {@link #serve} blocks its caller for at most the call timeout per worker tried.
 */
final class StaticFiles {

  private static final System.Logger LOG = System.getLogger(StaticFiles.class.getName());

  private final Supervisor supervisor;
  private final CommanderConfig config;
  private final AtomicLong turn = new AtomicLong();

  StaticFiles(Supervisor supervisor, CommanderConfig config) {
    this.supervisor = supervisor;
    this.config = config;
  }

  /** Whether a running worker presented a static prefix covering {@code path}. */
  boolean covers(String path) {
    for (WorkerHandle worker : supervisor.workers()) {
      if (worker.isRunning() && covers(worker.staticPrefixes(), path)) {
        return true;
      }
    }
    return false;
  }

  private static boolean covers(List<String> prefixes, String path) {
    for (String prefix : prefixes) {
      if (path.equals(prefix) || path.startsWith(prefix + "/")) {
        return true;
      }
    }
    return false;
  }

  /** Serves one request for a static file; never throws (a refusal is a reply). */
  Reply serve(String method, String path, String query, List<Map.Entry<String, String>> headers) {
    List<WorkerHandle> candidates = new ArrayList<>();
    for (WorkerHandle worker : supervisor.workers()) {
      if (worker.isRunning() && worker.wire() != null && worker.wire().isOpen()
          && covers(worker.staticPrefixes(), path)) {
        candidates.add(worker);
      }
    }
    List<List<String>> pairs = new ArrayList<>(headers.size());
    for (Map.Entry<String, String> header : headers) {
      pairs.add(List.of(header.getKey(), header.getValue()));
    }
    byte[] call = ProtocolCodec.write(new StaticCall(method, path, query, pairs));
    int first = candidates.isEmpty() ? 0
        : (int) Math.floorMod(turn.getAndIncrement(), (long) candidates.size());
    for (int i = 0; i < candidates.size(); i++) {
      WorkerHandle worker = candidates.get((first + i) % candidates.size());
      try {
        byte[] bytes = worker.wire().call(Methods.STATIC, call, config.callTimeout()).get();
        worker.heard();
        HttpResult result = ProtocolCodec.read(bytes, HttpResult.class);
        List<Map.Entry<String, String>> entries = new ArrayList<>(result.headers().size());
        for (List<String> header : result.headers()) {
          if (header.size() == 2 && header.get(0) != null && header.get(1) != null) {
            entries.add(Map.entry(header.get(0), header.get(1)));
          }
        }
        return new Reply(result.status(), entries, result.body());
      } catch (ExecutionException e) {
        Throwable cause = e.getCause();
        if (cause instanceof WireClosedException || cause instanceof WireRefusedException) {
          continue; // it died or was full: a static file may be read from any other
        }
        if (cause instanceof WireTimeoutException) {
          return Reply.text(504, "worker " + worker.name() + " did not send the static file "
              + path + " within " + config.callTimeout());
        }
        if (cause instanceof RemoteFailure failure) {
          return Reply.text(failure.code().equals("bad_request") ? 400 : 500, "worker "
              + worker.name() + " refused the static file " + path + " (" + failure.code() + ": "
              + failure.message() + ")");
        }
        LOG.log(Level.ERROR, "the static call to worker " + worker.name() + " failed", cause);
        return Reply.text(500, "internal error");
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return Reply.unavailable(1, "the server stopped during the request");
      }
    }
    return Reply.unavailable(1, "no running worker serves the static files under " + path
        + " right now (the workers are starting or being replaced)");
  }
}
