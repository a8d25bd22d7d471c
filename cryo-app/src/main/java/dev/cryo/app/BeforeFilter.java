package dev.cryo.app;

/**
 * A step before the handler of every route ({@link Routes#before}): a check that refuses the call,
 * or work that must precede every handler, written once instead of around each route.
 *
 * <pre>{@code
 * routes.before(call -> call.isGuest() && call.request().path().startsWith("/api/account")
 *     ? Response.json(401, Map.of("error", "login_required")) : null);
 * }</pre>
 *
 * <p>It runs in the user's turn, on the handler's thread, with the {@link Call} the handler gets:
 * what it reads and writes is the handler's state, and after the call everything of it throws as
 * the call's does. Before filters run in the order they were declared, after the route was found
 * and before its request body is read; the first that answers ends the run: the later before
 * filters and the handler do not run, and the {@link AfterFilter}s do.
 */
@FunctionalInterface
public interface BeforeFilter {

  /**
   * Looks at one call before its handler.
   *
   * @param call the call the handler would get
   * @return null to let the call go on (to the next before filter, then the handler); anything
   *     else answers the call instead of the handler, read as a handler's return is (a
   *     {@link Response} as it is, another object as JSON with status 200)
   * @throws Exception as a handler's: a {@link Refusal} answers its status and error and is not a
   *     failure; anything else answers 500 with a generic body and is logged; either way the
   *     handler does not run
   */
  Object before(Call call) throws Exception;
}
