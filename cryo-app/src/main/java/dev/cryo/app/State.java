package dev.cryo.app;

import java.util.function.UnaryOperator;

/**
 * One piece of typed state of a user, a connection or a page: a record (or a plain class) of the
 * application's, kept as plain data and read back into a fresh object at every {@link #get()}.
 *
 * <h2>What can be written</h2>
 *
 * <p>Whatever Jackson maps to plain data and back unchanged: records and classes of the
 * application's whose properties are strings, numbers, booleans, enums, {@code byte[]}, lists,
 * sets, maps, arrays, nested records, and {@code java.time} instants, durations and local dates and
 * times (as ISO-8601 text). A value that cannot be frozen — a field holding a thread, a lambda, a
 * socket, a cyclic graph, anything Jackson cannot read back as it was written — is refused by
 * {@link #set} at once with {@link StateException.Reason#NOT_FREEZABLE}, naming the field, and
 * nothing is written. Nulls in an object or a map are dropped (they read back as absent); a null
 * inside a list is refused.
 *
 * <h2>Versions</h2>
 *
 * <p>What one version of the application wrote, the next reads: fields it does not know are
 * ignored, fields it misses take their defaults (null, zero, false; an empty list, set or map).
 * Jackson's annotations ({@code @JsonAlias}, {@code @JsonCreator}, {@code @JsonIgnoreProperties})
 * say the rest; {@link StateKey} keeps the storage name of a renamed class. For a change those
 * rules do not cover, the application raises its {@link CryoApplication#stateVersion()} and brings
 * older state up in {@link CryoApplication#upgrade}, once per value when a user frozen by an older
 * version wakes; a user frozen by a newer version is not read (his parcels stay in the freezer).
 * A static factory annotated {@code @JsonCreator(mode = DELEGATING)} taking a
 * {@code Map<String, Object>} also works, per class: it receives what was stored, whatever
 * version wrote it.
 *
 * <h2>Concurrency</h2>
 *
 * <p>A state is valid during its call (or hook) only, on any thread the handler uses; the user's turn
 * makes {@link #update} atomic with respect to his other calls.
 *
 * @param <T> the state's class
 */
public interface State<T> {

  /**
   * The state, read into a fresh object: changing it changes nothing until {@link #set}. When
   * nothing was written yet, the class's default: what Jackson makes of an empty object.
   *
   * @return the state, never null
   * @throws StateException {@link StateException.Reason#UNREADABLE} when what is stored does not
   *     fit the class (left as stored), {@link StateException.Reason#UNKNOWN_PAGE} for a page that
   *     is not the call's connection's, {@link StateException.Reason#GONE} when its holder left
   */
  T get();

  /**
   * Writes the state.
   *
   * @param value the new state, not null
   * @throws StateException {@link StateException.Reason#NOT_FREEZABLE} when the value cannot be
   *     frozen, naming the field; nothing was written
   */
  void set(T value);

  /**
   * Reads, applies {@code change} and writes what it returned.
   *
   * @param change the change; receives {@link #get()}, returns the new state (not null)
   * @return the new state as written
   * @throws StateException as {@link #get()} and {@link #set} do; nothing was written
   */
  T update(UnaryOperator<T> change);

  /** Whether something was written (and not cleared). */
  boolean isPresent();

  /** Removes the state: the next {@link #get()} returns the default. */
  void clear();
}
