package dev.cryo.front;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * The front's own refusals of an HTTP request, in one shape: a status and the JSON body
 * {@code {"error": CODE, "message": TEXT}}, where the code is machine-readable and the text says
 * what happened, what was kept and what to do. They name no path, worker or internal API of the
 * run: whoever receives them may be anybody. Thread-safe.
 */
final class Refusals {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final System.Logger LOG = System.getLogger(Refusals.class.getName());

  private Refusals() {}

  /**
   * Writes the refusal and completes {@code callback}.
   *
   * @param retryAfterSeconds the {@code Retry-After} to send, or a negative number for none
   */
  static void write(Response response, Callback callback, int status, String code,
      String message, long retryAfterSeconds) {
    response.setStatus(status);
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
    if (retryAfterSeconds >= 0) {
      response.getHeaders().put(HttpHeader.RETRY_AFTER, Long.toString(retryAfterSeconds));
    }
    response.write(true, ByteBuffer.wrap(body(code, message)), callback);
  }

  /** The body of a refusal. */
  static byte[] body(String code, String message) {
    var node = JSON.createObjectNode().put("error", code).put("message", message);
    return node.toString().getBytes(StandardCharsets.UTF_8);
  }

  /** Tells {@code listener} of one answered request; a throw is logged and ignored. */
  static void answered(RequestListener listener, int status, long nanos) {
    try {
      listener.answered(status, nanos);
    } catch (RuntimeException e) {
      LOG.log(System.Logger.Level.WARNING, "a request listener failed: " + e);
    }
  }
}
