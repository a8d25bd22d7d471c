package dev.cryo.front;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpMethod;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * Serves cryo's browser client, {@value #PATH} (docs/client.md), from the front itself: the
 * script is a resource of this module, read once, and never reaches the commander, a worker or
 * the application (no user's turn is entered, no connection cookie is minted).
 *
 * <p>Caching: a strong {@code ETag} (a digest of the script) and {@code Cache-Control: public,
 * max-age=}{@value #MAX_AGE_SECONDS}: a browser keeps the script ten minutes and then asks again
 * with {@code If-None-Match}, answered 304 while the script is the same, so a new version of cryo
 * reaches pages within ten minutes. GET and HEAD only (anything else: 405 with {@code Allow}).
 *
 * <p>Thread-safe and non-blocking: the bytes are immutable once built.
 */
final class ClientScript extends Handler.Abstract.NonBlocking {

  /** Where the client is served on the public port. */
  static final String PATH = "/_cryo/cryo.js";

  /** How long a browser may use the script before it revalidates it. */
  static final long MAX_AGE_SECONDS = 600;

  private static final String RESOURCE = "cryo.js";

  private final byte[] script;
  private final String etag;

  /** Reads the script from this module's resources. */
  ClientScript() {
    try (InputStream in = ClientScript.class.getResourceAsStream(RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException("the browser client " + RESOURCE + " is missing from"
            + " cryo-front's jar; the front was not built: rebuild cryo-front");
      }
      this.script = in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException("the browser client could not be read from cryo-front's"
          + " jar; the front was not built: rebuild cryo-front", e);
    }
    this.etag = "\"" + digest(script) + "\"";
  }

  @Override
  public boolean handle(Request request, Response response, Callback callback) {
    if (!PATH.equals(request.getHttpURI().getDecodedPath())) {
      return false;
    }
    String method = request.getMethod();
    boolean head = HttpMethod.HEAD.is(method);
    if (!head && !HttpMethod.GET.is(method)) {
      response.getHeaders().put(HttpHeader.ALLOW, "GET, HEAD");
      Refusals.write(response, callback, HttpStatus.METHOD_NOT_ALLOWED_405, "bad_method",
          PATH + " is read with GET or HEAD; nothing was done", -1);
      return true;
    }
    response.getHeaders().put(HttpHeader.ETAG, etag);
    response.getHeaders().put(HttpHeader.CACHE_CONTROL, "public, max-age=" + MAX_AGE_SECONDS);
    response.getHeaders().put("X-Content-Type-Options", "nosniff");
    if (matches(request.getHeaders().get(HttpHeader.IF_NONE_MATCH))) {
      response.setStatus(HttpStatus.NOT_MODIFIED_304);
      callback.succeeded();
      return true;
    }
    response.setStatus(HttpStatus.OK_200);
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, "text/javascript; charset=utf-8");
    response.getHeaders().put(HttpHeader.CONTENT_LENGTH, script.length);
    if (head) {
      callback.succeeded();
    } else {
      response.write(true, ByteBuffer.wrap(script), callback);
    }
    return true;
  }

  /** Whether an {@code If-None-Match} names this script's tag (or is {@code *}). */
  private boolean matches(String ifNoneMatch) {
    if (ifNoneMatch == null) {
      return false;
    }
    for (String tag : ifNoneMatch.split(",")) {
      String trimmed = tag.trim();
      if (trimmed.startsWith("W/")) {
        trimmed = trimmed.substring(2);
      }
      if (trimmed.equals("*") || trimmed.equals(etag)) {
        return true;
      }
    }
    return false;
  }

  private static String digest(byte[] bytes) {
    try {
      byte[] hash = MessageDigest.getInstance("SHA-256").digest(bytes);
      return HexFormat.of().formatHex(hash, 0, 12);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is part of every JDK", e);
    }
  }
}
