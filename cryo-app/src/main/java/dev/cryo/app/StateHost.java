package dev.cryo.app;

/**
 * For hosts (the worker's application host, the test kit): where a {@link Dispatcher} keeps plain
 * data during one call or hook. Applications never see it.
 *
 * <p>A host keeps, per user, per connection and per page, one plain-data value under each key (a
 * state class's storage name). Values handed to {@link #write} are plain data as
 * {@link State} describes it (maps with non-empty keys free of {@code '.'}, lists, strings, numbers,
 * booleans, {@code byte[]}; never null inside); what {@link #read} returns may be an immutable copy
 * and may bring integers back in a narrower type. Used on the call's (or hook's) threads, one at a
 * time per user.
 */
public interface StateHost {

  /** The user served. */
  String user();

  /** The name of the worker serving him. */
  String worker();

  /**
   * The plain value under {@code key}, or null.
   *
   * @param scope whose state
   * @param pageId the page, for {@link Scope#PAGE}; else null
   * @param key the state's storage name
   * @throws StateException {@link StateException.Reason#UNKNOWN_PAGE} for a page that is not the
   *     call's connection's, {@link StateException.Reason#GONE} when the holder left
   */
  Object read(Scope scope, String pageId, String key);

  /**
   * Writes {@code plain} under {@code key}, or removes it when {@code plain} is null; as
   * {@link #read}.
   */
  void write(Scope scope, String pageId, String key, Object plain);
}
