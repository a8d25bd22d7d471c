package dev.cryo.app;

/**
 * Serves the requests of one route whose JSON body is read into a {@code B} by Jackson
 * ({@link Routes#post(String, Class, BodyHandler)}). A body that is missing or does not read as a
 * {@code B} is answered {@code 400} before the handler runs; unknown fields are ignored.
 *
 * @param <B> the body's class
 */
@FunctionalInterface
public interface BodyHandler<B> {

  /**
   * Serves one request, in its user's turn; as {@link Handler#handle}.
   *
   * @param call the call
   * @param body the request's body, read
   * @return as {@link Handler#handle}
   * @throws Exception as {@link Handler#handle}
   */
  Object handle(Call call, B body) throws Exception;
}
