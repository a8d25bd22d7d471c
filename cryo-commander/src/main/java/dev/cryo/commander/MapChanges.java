package dev.cryo.commander;

/**
 * What {@link Routing} tells of each change of its maps, in the order they happen, under its lock:
 * the journal's input. Implementations must be quick and must not call back into the maps.
 */
interface MapChanges {

  /** Nothing is told. */
  MapChanges NONE = new MapChanges() {
    @Override
    public void linked(String connection, String user) {}

    @Override
    public void unlinked(String connection) {}

    @Override
    public void paged(String page, String connection) {}

    @Override
    public void unpaged(String page) {}

    @Override
    public void located(String user, boolean frozen, long generation) {}

    @Override
    public void forgotten(String user) {}
  };

  /** {@code connection} belongs to {@code user} now. */
  void linked(String connection, String user);

  /** {@code connection} is gone (its pages with it). */
  void unlinked(String connection);

  /** {@code page} belongs to {@code connection} now. */
  void paged(String page, String connection);

  /** {@code page} is gone. */
  void unpaged(String page);

  /**
   * {@code user} is frozen, or lives on a worker (awake); {@code generation} is the generation he
   * was frozen at, or lives at (0 when not known). Told again when that generation changes.
   */
  void located(String user, boolean frozen, long generation);

  /** {@code user} is gone from the maps. */
  void forgotten(String user);
}
