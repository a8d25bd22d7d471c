package dev.cryo.front;

import java.util.Map;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.util.Callback;

/**
 * The server's error pages as the front's {@link Refusals}: what Jetty itself refuses before any
 * handler runs (an ambiguous or malformed URI — {@code %2F}, a {@code ..} that leaves the root —,
 * headers too large, …) and the {@code 404} of a path no handler took are answered with the JSON
 * body {@code {"error": CODE, "message": TEXT}} instead of Jetty's HTML page. Stateless and
 * thread-safe.
 */
final class JsonErrors implements Request.Handler {

  private static final Map<Integer, String> CODES = Map.of(400, "bad_request", 404, "not_found",
      405, "method_not_allowed", 413, "body_too_large", 414, "uri_too_long",
      431, "headers_too_large", 500, "internal_error", 503, "unavailable");

  @Override
  public boolean handle(Request request, Response response, Callback callback) {
    int status = request.getAttribute(ErrorHandler.ERROR_STATUS) instanceof Integer code ? code
        : response.getStatus();
    Object why = request.getAttribute(ErrorHandler.ERROR_MESSAGE);
    String code = CODES.getOrDefault(status, "http_" + status);
    String message = status == 404
        ? "nothing is served at this path; nothing was done: check the address"
        : "the request was refused before it reached the application"
            + (why == null ? "" : " (" + why + ")") + "; nothing was done: send a well-formed"
            + " request (a path without encoded slashes or dot segments, headers of a usual size)";
    response.getHeaders().remove(HttpHeader.CONTENT_TYPE);
    Refusals.write(response, callback, status, code, message, -1);
    return true;
  }
}
