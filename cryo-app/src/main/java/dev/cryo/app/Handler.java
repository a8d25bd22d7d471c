package dev.cryo.app;

/** Serves the requests of one route, without a request body class ({@link Routes#get}). */
@FunctionalInterface
public interface Handler {

  /**
   * Serves one request, in its user's turn.
   *
   * @param call the call: the request, the user and his state
   * @return a {@link Response} as it is; null for {@code 204 No Content}; a
   *     {@link java.util.concurrent.CompletionStage} or a {@link java.util.concurrent.Future} is
   *     the application's failure (a handler is synchronous: {@link Routes}); anything else is
   *     written as JSON with status 200
   * @throws Exception a {@link Refusal} answers its status and error; anything else answers 500
   *     with a generic body and is logged
   */
  Object handle(Call call) throws Exception;
}
