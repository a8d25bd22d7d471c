package dev.cryo.app;

/**
 * A step after every route's handler ({@link Routes#after}): it sees the reply about to be sent —
 * the handler's, a {@link BeforeFilter}'s, or the one made of a failure — and the failure behind
 * it, and returns the reply to send.
 *
 * <pre>{@code
 * routes.after((call, response, failure) -> response.withHeader("Cache-Control", "no-store"));
 * routes.after((call, response, failure) -> failure instanceof NoSuchElementException
 *     ? Response.json(404, Map.of("error", "no_such_item")) : response);
 * }</pre>
 *
 * <p>It runs in the user's turn, on the handler's thread, with the {@link Call} the handler got,
 * after the handler (or the before filter that answered) returned or threw — also when the
 * request's body could not be read. After filters run in the order they were declared, each
 * seeing what the one before it returned.
 */
@FunctionalInterface
public interface AfterFilter {

  /**
   * Looks at one call's reply before it is sent.
   *
   * @param call the call
   * @param response the reply so far: never null (a handler's null is its {@code 204})
   * @param failure the application's failure behind {@code response} when it is the generic
   *     {@code 500} made of one (a handler's or a filter's exception other than a
   *     {@link Refusal}), else null
   * @return the reply to send: {@code response} to keep it, or another; a reply for a failure
   *     whose status is not {@code 500} handles it — the call is then not a failure (not logged
   *     as one, not an error of the test kit); null is this filter's own failure
   * @throws Exception as a handler's: a {@link Refusal} answers its status and error; anything
   *     else answers 500 and is logged; the later after filters see that reply and this failure
   */
  Response after(Call call, Response response, Throwable failure) throws Exception;
}
