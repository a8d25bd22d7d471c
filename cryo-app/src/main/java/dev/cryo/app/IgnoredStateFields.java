package dev.cryo.app;

import java.lang.System.Logger.Level;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * For hosts: the stored fields a state's class no longer has, met when state was read. What one
 * version of the application wrote, the next reads with unknown fields ignored ({@link State});
 * that is what lets a version add a field, but it also means that a field renamed without a new
 * {@link CryoApplication#stateVersion()} silently loses its value — read as the new field's
 * default, and gone from the store at the state's next write. So every such field is told: once
 * per state class (or class nested in a state) and field name, in the log — a
 * {@link Level#WARNING} of {@code dev.cryo.app.IgnoredStateFields} through
 * {@link System.Logger}, saying what was ignored, why, and what to do — and in {@link #count()},
 * which the worker reports in its photo and the admin listener exports as a metric
 * ({@code cryo_state_fields_ignored}, docs/admin.md).
 *
 * <p>Only reads of stored state count: a {@link State#get()} (and the reads of
 * {@link State#update}). Request bodies, and an upgrade's {@link StoredState#as} — which reads an
 * old shape on purpose — are not told. A class annotated
 * {@code @JsonIgnoreProperties(ignoreUnknown = true)} says it expects unknown fields, and is not
 * told either.
 *
 * <p>Thread-safe; a class and field is told once per process (per loaded class: a class loaded
 * again by another class loader is told again), however many users' state it was met in.
 */
public final class IgnoredStateFields {

  private static final System.Logger LOG = System.getLogger(IgnoredStateFields.class.getName());

  private static final ClassValue<Set<String>> TOLD = new ClassValue<>() {
    @Override
    protected Set<String> computeValue(Class<?> type) {
      return ConcurrentHashMap.newKeySet();
    }
  };

  private static final AtomicLong COUNT = new AtomicLong();

  private IgnoredStateFields() {}

  /**
   * How many distinct stored fields (a class and a field name) were ignored on read since this
   * process started; each counted once, however often it was met.
   */
  public static long count() {
    return COUNT.get();
  }

  /**
   * Tells that stored field {@code field} was ignored when state {@code key} was read into
   * {@code owner} (the state's class, or a class nested in it): logged and counted the first time
   * only.
   *
   * @return whether this was the first time
   */
  static boolean ignored(Class<?> owner, String field, String key) {
    if (!TOLD.get(owner).add(field)) {
      return false;
    }
    COUNT.incrementAndGet();
    LOG.log(Level.WARNING, () -> "stored state '" + key + "' holds a field '" + field + "' that"
        + " class " + owner.getName() + " does not have: its value was ignored when the state was"
        + " read (the field reads as its default), and it is gone from the store at the state's"
        + " next write. A field renamed or removed without a new state version does this. To keep"
        + " the value, give the field its old name back (or @JsonAlias(\"" + field + "\") on the"
        + " new one), or raise the application's stateVersion() and move the value in"
        + " upgrade(StoredState); if it is meant to go, nothing needs doing. Said once per class"
        + " and field.");
    return true;
  }
}
