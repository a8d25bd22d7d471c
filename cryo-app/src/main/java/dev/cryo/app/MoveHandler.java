package dev.cryo.app;

/**
 * Serves a move route ({@link Routes#move}): the runtime performs the move before the handler runs,
 * and tells how it went.
 */
@FunctionalInterface
public interface MoveHandler {

  /**
   * Serves one request, in its user's turn, on the worker that serves him after the move (or on
   * the one he stayed on when it was refused); as {@link Handler#handle}.
   *
   * @param call the call
   * @param move how the move went
   * @return as {@link Handler#handle}
   * @throws Exception as {@link Handler#handle}
   */
  Object handle(Call call, Move move) throws Exception;
}
