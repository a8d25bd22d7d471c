package dev.cryo.front;

import dev.cryo.commander.Reply;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What a client sees of a reply of the run's own ({@link Reply#runtimeReply()}: a 503, 502, 504
 * or 500 the commander wrote, not the application): the same status, {@code Retry-After} and
 * {@code Cryo-Reason}, and a sentence of the front's own instead of the commander's text, which is
 * written for the operator and may name a worker, a user's freezer folder or an internal call.
 * The commander's text is logged (debug) here and, where it matters, by the commander itself.
 * Any client may be anybody: the sentence names nothing of the run. Stateless and thread-safe.
 */
final class RuntimeReplies {

  private static final System.Logger LOG = System.getLogger(RuntimeReplies.class.getName());

  private RuntimeReplies() {}

  /**
   * {@code reply} as a client may see it, in plain text: unchanged unless it is a reply of the
   * run's own, or carries the runtime's word to the front about the cookie
   * ({@link Reply#ROTATED_HEADER}, read before and removed here).
   */
  static Reply forClient(Reply reply) {
    return forClient(reply, false, null);
  }

  /** As {@link #forClient(Reply)}, for the request the front numbered {@code requestId}. */
  static Reply forClient(Reply reply, String requestId) {
    return forClient(reply, false, requestId);
  }

  /**
   * {@code reply} as the client of a request with {@code requestHeaders} may see it: unchanged
   * unless it is a reply of the run's own; then JSON — {@code {"error": reason, "message":
   * sentence}}, the keys in that order, as the hosts write their errors — unless the client asked
   * for a page ({@code Accept} names {@code text/html} or {@code text/plain} and no JSON type),
   * which gets the sentence as plain text.
   */
  static Reply forClient(Reply reply, List<Map.Entry<String, String>> requestHeaders) {
    return forClient(reply, speaksJson(requestHeaders),
        RequestIds.in(requestHeaders));
  }

  /** Whether a request's client reads JSON: anything but one asking for a page. */
  static boolean speaksJson(List<Map.Entry<String, String>> requestHeaders) {
    for (Map.Entry<String, String> header : requestHeaders) {
      if (header.getKey().equalsIgnoreCase("Accept")) {
        String accept = header.getValue().toLowerCase(java.util.Locale.ROOT);
        if (!accept.contains("json")
            && (accept.contains("text/html") || accept.contains("text/plain"))) {
          return false;
        }
      }
    }
    return true;
  }

  private static Reply forClient(Reply reply, boolean json, String requestId) {
    if (!reply.runtimeReply()) {
      return reply.header(Reply.ROTATED_HEADER) == null ? reply : withoutRotation(reply);
    }
    LOG.log(System.Logger.Level.DEBUG, () -> (requestId == null ? "" : "request " + requestId
        + ": ") + "a reply of the run's own, " + reply.status() + ": " + reply.bodyText().strip());
    List<Map.Entry<String, String>> headers = new ArrayList<>();
    for (Map.Entry<String, String> header : reply.headers()) {
      if (!header.getKey().equalsIgnoreCase(Reply.RUNTIME_HEADER)
          && !header.getKey().equalsIgnoreCase(Reply.FORGOTTEN_HEADER)) {
        headers.add(header);
      }
    }
    if (json) {
      headers.removeIf(header -> header.getKey().equalsIgnoreCase("Content-Type"));
      headers.add(Map.entry("Content-Type", "application/json; charset=utf-8"));
      com.fasterxml.jackson.databind.node.ObjectNode body = JSON.createObjectNode();
      String reason = reply.header("Cryo-Reason");
      body.put("error", reason != null ? reason : codeOf(reply.status()));
      body.put("message", message(reply.status(), reason, reply.header("Retry-After")));
      return new Reply(reply.status(), headers, body.toString().getBytes(StandardCharsets.UTF_8));
    }
    String sentence = sentence(reply.status(), reply.header("Cryo-Reason"),
        reply.header("Retry-After"));
    return new Reply(reply.status(), headers, (sentence + "\n").getBytes(StandardCharsets.UTF_8));
  }

  /** {@code reply} without {@link Reply#ROTATED_HEADER}, the runtime's word to the front. */
  private static Reply withoutRotation(Reply reply) {
    List<Map.Entry<String, String>> headers = new ArrayList<>();
    for (Map.Entry<String, String> header : reply.headers()) {
      if (!header.getKey().equalsIgnoreCase(Reply.ROTATED_HEADER)) {
        headers.add(header);
      }
    }
    return new Reply(reply.status(), headers, reply.body());
  }

  private static final com.fasterxml.jackson.databind.ObjectMapper JSON =
      new com.fasterxml.jackson.databind.ObjectMapper();

  /** The error code of a reply of the run's own without a reason. */
  private static String codeOf(int status) {
    return switch (status) {
      case 503 -> "unavailable";
      case 502 -> "bad_gateway";
      case 504 -> "gateway_timeout";
      default -> "internal_error";
    };
  }

  /**
   * The JSON error's message: the sentence without its reason (the error says it), in the hosts'
   * words where a host answers the same (a {@code 503 unreadable_parcel}).
   */
  private static String message(int status, String reason, String retryAfter) {
    String later = retryAfter == null ? " in a moment" : " in " + retryAfter + " s";
    if ("unreadable_parcel".equals(reason)) {
      return "your saved state could not be read by the version of the application running now;"
          + " it is kept as it was, nothing was lost: try again later";
    }
    if ("no_parcel".equals(reason)) {
      return "your saved state could not be found: the server has forgotten it, and your next"
          + " request starts afresh, as a new visitor";
    }
    if ("saturated".equals(reason)) {
      return "the server is at capacity and takes no more visitors right now; nothing was"
          + " changed: try again" + later;
    }
    if ("cookie_rotated".equals(reason)) {
      return "this request carried the cookie your browser had before a login or a logout in"
          + " another request or tab; it was not served, and nothing was changed: send it again,"
          + " your browser holds the new cookie now";
    }
    return switch (status) {
      case 503 -> "the server cannot serve this request right now: try again" + later;
      case 502 -> "the server failed while it served this request; it may have acted on it"
          + " before it failed: check before you send it again";
      case 504 -> "the server did not answer this request in time; it may have acted on it:"
          + " check before you send it again";
      default -> "the server failed to serve this request (" + status + ")";
    };
  }

  private static String sentence(int status, String reason, String retryAfter) {
    if ("unreadable_parcel".equals(reason)) {
      return "Your saved state could not be read by the version of the application running now."
          + " It is kept, untouched; nothing was lost. Try again later, or tell the operator."
          + " Reason: unreadable_parcel.";
    }
    if ("no_parcel".equals(reason)) {
      return "Your saved state could not be found: the server has forgotten it, and your next"
          + " request starts afresh, as a new visitor. Tell the operator if this keeps happening."
          + " Reason: no_parcel.";
    }
    if ("cookie_rotated".equals(reason)) {
      return "This request carried the cookie your browser had before a login or a logout in"
          + " another request or tab; it was not served, and nothing was changed. Send it again:"
          + " your browser holds the new cookie now. Reason: cookie_rotated.";
    }
    if ("saturated".equals(reason)) {
      return "The server is at capacity: it takes no more visitors right now. Nothing was changed;"
          + " try again" + (retryAfter == null ? " in a moment" : " in " + retryAfter + " s")
          + ". Reason: saturated.";
    }
    String reasonPart = reason == null ? "" : " Reason: " + reason + ".";
    return switch (status) {
      case 503 -> "The server cannot serve this request right now. Try"
          + " again" + (retryAfter == null ? " in a moment" : " in " + retryAfter + " s") + "."
          + reasonPart;
      case 502 -> "The server failed while it served this request: it may have acted on it"
          + " before it failed; check before you send it again." + reasonPart;
      case 504 -> "The server did not answer this request in time: it may have acted on it;"
          + " check before you send it again." + reasonPart;
      default -> "The server failed to serve this request (" + status + ")." + reasonPart;
    };
  }
}
