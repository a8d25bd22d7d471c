package dev.cryo.front;

/**
 * Sees each application request the front answered, for metrics. Called on the request's virtual
 * thread once its reply is known (before its body is written); must return quickly and must not
 * block. A throw is logged and ignored: the reply goes out as it was.
 */
@FunctionalInterface
public interface RequestListener {

  /** A listener that does nothing. */
  RequestListener NONE = (status, nanos) -> { };

  /**
   * One request answered.
   *
   * @param status the reply's HTTP status (the front's own 413 included)
   * @param nanos from the request's arrival at the handler to its reply
   */
  void answered(int status, long nanos);
}
