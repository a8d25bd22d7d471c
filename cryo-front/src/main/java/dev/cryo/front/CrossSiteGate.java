package dev.cryo.front;

import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * Refuses a state-changing request that a browser sent from another site (login CSRF: a page
 * elsewhere auto-submits a form to {@code /api/login} and the visitor's browser becomes the
 * attacker's user). A request whose method is not GET, HEAD or OPTIONS is refused with 403
 * {@code cross_site} before anything of it is read or reaches the commander when:
 * <ul>
 *   <li>it carries an {@code Origin} that is neither the page's own nor allowed
 *       ({@link OriginPolicy}; {@code Origin: null} included), or
 *   <li>it carries no {@code Origin} and its {@code Sec-Fetch-Site} says {@code cross-site} or
 *       {@code same-site} (a sibling subdomain is another origin).
 * </ul>
 * A request with neither header comes from no browser's page (a script, curl) and passes: the
 * connection cookie of a browser is what CSRF abuses, and a browser sends one of the two on every
 * such request. GET, HEAD and OPTIONS pass: they must not change state (the application's rule).
 *
 * <p>Thread-safe; never blocks.
 */
final class CrossSiteGate extends Handler.Wrapper {

  private static final Set<String> SAFE = Set.of("GET", "HEAD", "OPTIONS");

  private final OriginPolicy origins;
  private final RequestListener listener;

  CrossSiteGate(OriginPolicy origins, RequestListener listener, Handler next) {
    super(next);
    this.origins = Objects.requireNonNull(origins, "origins");
    this.listener = Objects.requireNonNull(listener, "listener");
  }

  @Override
  public boolean handle(Request request, Response response, Callback callback) throws Exception {
    String refusal = refusal(request);
    if (refusal == null) {
      return super.handle(request, response, callback);
    }
    long arrived = System.nanoTime();
    Refusals.write(response, callback, 403, "cross_site", refusal, -1);
    Refusals.answered(listener, 403, System.nanoTime() - arrived);
    return true;
  }

  /** Why {@code request} is refused, or null when it passes. */
  String refusal(Request request) {
    String method = request.getMethod();
    if (SAFE.contains(method)) {
      return null;
    }
    String origin = request.getHeaders().get(HttpHeader.ORIGIN);
    if (origin != null) {
      if (origins.allows(origin, request)) {
        return null;
      }
      return "a " + method + " from another site (Origin " + clip(origin) + ") was refused:"
          + " only this site's own pages, and the origins listed with --allowed-origin, may send"
          + " one; nothing reached the application: if that origin is your application's own,"
          + " start cryo serve with --allowed-origin " + clip(origin);
    }
    String site = request.getHeaders().get("Sec-Fetch-Site");
    if (site != null) {
      String value = site.trim().toLowerCase(Locale.ROOT);
      if (value.equals("cross-site") || value.equals("same-site")) {
        return "a " + method + " from another site (Sec-Fetch-Site: " + clip(value) + ", no"
            + " Origin) was refused: only this site's own pages may send one; nothing reached"
            + " the application: send it from a page of this site";
      }
    }
    return null;
  }

  private static String clip(String text) {
    return text.length() <= 100 ? text : text.substring(0, 100) + "…";
  }
}
