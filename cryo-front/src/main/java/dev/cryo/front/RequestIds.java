package dev.cryo.front;

import java.util.Base64;
import java.util.concurrent.ThreadLocalRandom;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * Gives every request the front receives an id of its own, minted here: the outermost handler. The
 * id is put on the request ({@link #of}) for the handlers below, and on the response as
 * {@value #HEADER} before anything else is written, so every answer carries it — the
 * application's, a refusal of the front's, Jetty's own error. A socket's calls get one each the
 * same way ({@link #mint}), carried in their reply's {@code headers}.
 *
 * <p>The id is never taken from the client: a client's {@value #HEADER} is removed before the
 * request goes on ({@link ApplicationHandler#headersOf}), and its {@code X-Request-Id} is an
 * ordinary header the application may read. An id a client chose could repeat another's, or carry
 * text into the log lines that name it; one minted here is unique and safe to print. It goes to
 * the worker as the request's {@value #HEADER} header, where the application reads it
 * ({@code call.requestId()}), and names the request in the front's, the worker's and the event
 * log's lines (docs/guide.md, "Logs").
 *
 * <p>Thread-safe; stateless.
 */
final class RequestIds extends Handler.Wrapper {

  /** The header that carries the id to the worker and back to the client. */
  static final String HEADER = "Cryo-Request-Id";

  /** {@link #HEADER}, lower case, as the headers sent to a worker spell it. */
  static final String HEADER_LOWER = "cryo-request-id";

  /** The request attribute that holds the id. */
  private static final String ATTRIBUTE = RequestIds.class.getName();

  RequestIds(Handler next) {
    super(next);
  }

  /**
   * A new id: 16 characters of the URL-safe base64 alphabet, 96 random bits, so that two requests
   * of a run share one only by a chance nobody meets.
   */
  static String mint() {
    byte[] bytes = new byte[12];
    ThreadLocalRandom.current().nextBytes(bytes);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
  }

  /** The id {@code request} was given, or a new one when it went round this handler. */
  static String of(Request request) {
    return request.getAttribute(ATTRIBUTE) instanceof String id ? id : mint();
  }

  /** The id among the headers the front sends a worker ({@link #HEADER}), or null. */
  static String in(java.util.List<java.util.Map.Entry<String, String>> headers) {
    for (java.util.Map.Entry<String, String> header : headers) {
      if (header.getKey().equalsIgnoreCase(HEADER)) {
        return header.getValue();
      }
    }
    return null;
  }

  @Override
  public boolean handle(Request request, Response response, Callback callback) throws Exception {
    String id = mint();
    request.setAttribute(ATTRIBUTE, id);
    response.getHeaders().put(HEADER, id);
    return super.handle(request, response, callback);
  }
}
