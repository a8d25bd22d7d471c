package dev.cryo.front;

import java.net.URI;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.util.HostPort;

/**
 * Which origins a browser's request may come from: the page's own — the scheme-less host and port
 * of the {@code Host} header the request was sent to — and the origins the operator allowed
 * ({@code --allowed-origin https://app.example}), compared exactly (case and a trailing slash
 * aside). Used by the cross-site gate of state-changing requests ({@link CrossSiteGate}) and by
 * the page socket's handshake ({@link SocketGate}). Immutable and thread-safe.
 *
 * <p>The page's own origin is compared by host and port only, not by scheme: behind a proxy that
 * ends TLS, the browser's {@code Origin: https://app.example} reaches cryo over plain HTTP with
 * {@code Host: app.example}, and a port missing from {@code Host} is the default port of the
 * origin's scheme (as a browser leaves it out). No other site can make a browser send a Host and
 * an Origin that agree, short of owning the name.
 */
final class OriginPolicy {

  private final Set<String> allowed;

  OriginPolicy(List<String> allowedOrigins) {
    this.allowed = Set.copyOf(allowedOrigins.stream().map(OriginPolicy::normalize).toList());
  }

  /** Whether {@code origin} is the request's own origin or one of the allowed origins. */
  boolean allows(String origin, Request request) {
    return allowed.contains(normalize(origin)) || sameOrigin(origin, request);
  }

  /** Whether {@code origin} names the host and port the request was sent to. */
  static boolean sameOrigin(String origin, Request request) {
    try {
      URI uri = URI.create(origin.trim());
      if (uri.getHost() == null || uri.getScheme() == null) {
        return false;
      }
      int schemePort = uri.getScheme().equalsIgnoreCase("https") ? 443 : 80;
      int originPort = uri.getPort() != -1 ? uri.getPort() : schemePort;
      String host = request.getHeaders().get(HttpHeader.HOST);
      if (host == null) {
        return uri.getHost().equalsIgnoreCase(Request.getServerName(request))
            && originPort == Request.getServerPort(request);
      }
      HostPort sent = new HostPort(host.trim());
      int sentPort = sent.getPort() > 0 ? sent.getPort() : schemePort;
      return hostOf(uri.getHost()).equalsIgnoreCase(hostOf(sent.getHost()))
          && originPort == sentPort;
    } catch (IllegalArgumentException e) {
      return false; // "null" (a sandboxed page, a file) or garbage: not this origin
    }
  }

  /** A host without the brackets of an IPv6 literal. */
  private static String hostOf(String host) {
    return host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1)
        : host;
  }

  static String normalize(String origin) {
    String trimmed = origin.trim().toLowerCase(Locale.ROOT);
    return trimmed.endsWith("/") ? trimmed.substring(0, trimmed.length() - 1) : trimmed;
  }
}
