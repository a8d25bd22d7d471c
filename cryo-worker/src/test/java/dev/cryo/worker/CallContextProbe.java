package dev.cryo.worker;

/** Runs a handler once on a worker's call, outside the worker's own application. */
final class CallContextProbe {

  private CallContextProbe() {}

  /** Opens a slot for {@code call}, runs {@code handler} in its context, closes the slot. */
  static Object run(Worker worker, Call call, Application handler) {
    try (RequestSlot slot = worker.openRequest(call)) {
      return handler.handle(new CallContext(worker, slot));
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
