package dev.cryo.register;

/**
 * The row of a page (a browser tab, or a page another page opened) in {@code page_items}: the
 * bottom of the ownership chain, keyed by the page id.
 *
 * <p>Its fields the core gives meaning to: {@value #CONNECTION_ID} (the upward edge, written once,
 * at birth), {@value #ROOT_PAGE_ID} and {@value #PARENT_PAGE_ID} (the page forest: a root has no
 * parent and is its own root), {@value #AVATAR_KEY}, {@value #DATA}, {@value #STORE} and
 * {@value #LAST_REFRESH_TS}. Every other field is the caller's, kept verbatim. A page stores no
 * user: its owner is derived by walking up ({@link RegisterRegistry#pageUser}).
 *
 * <p>A consumer pairs its own fields with the row by subclassing this class and overriding
 * {@link RegisterRegistry#newPageRow(String)}. Thread-safety as for every {@link Row}.
 */
public class PageRow extends ChainRow {

  /** The upward edge: the id of the connection the page hangs from. Indexed. */
  public static final String CONNECTION_ID = "connection_id";

  /** The id of the root of the page's tree; a root's is its own id. Indexed. */
  public static final String ROOT_PAGE_ID = "root_page_id";

  /** The id of the page that opened this one; null for a root. */
  public static final String PARENT_PAGE_ID = "parent_page_id";

  /** The page's avatar; {@value #ROOT_AVATAR_KEY} unless given. */
  public static final String AVATAR_KEY = "avatar_key";

  /** The avatar key of a page that names none. */
  public static final String ROOT_AVATAR_KEY = "root";

  /** The page's payload, uninterpreted; null unless given. */
  public static final String DATA = "data";

  private String connectionId; // a copy of the field, written once, before the row is published

  /**
   * Creates an unregistered row; only the registry's row factory calls this.
   *
   * @param pageId the page's id, the row's key
   */
  protected PageRow(String pageId) {
    super(pageId);
  }

  /** The page id: the key of the row. */
  public final String pageId() {
    return key();
  }

  /** The id of the connection the page hangs from. */
  public final String connectionId() {
    return connectionId;
  }

  /** The id of the root of the page's tree (its own id for a root). */
  public final String rootPageId() {
    return (String) find(ROOT_PAGE_ID);
  }

  /** The id of the page that opened this one, or null for a root. */
  public final String parentPageId() {
    return (String) find(PARENT_PAGE_ID);
  }

  /** Whether the page is the root of its tree (it has no parent). */
  public final boolean isRoot() {
    return parentPageId() == null;
  }

  /** The page's avatar key. */
  public final String avatarKey() {
    return (String) find(AVATAR_KEY);
  }

  /** The page's payload, as given. */
  public final Object data() {
    return find(DATA);
  }

  @Override
  final void check(String field, Object value) {
    switch (field) {
      case CONNECTION_ID, AVATAR_KEY -> requireType(field, value, String.class, false);
      case ROOT_PAGE_ID, PARENT_PAGE_ID -> requireType(field, value, String.class, true);
      case ConnectionRow.USER -> throw new RegisterException(RegisterException.Reason.CHAIN_FIELD,
          registerName(), key(), "page '" + key() + "' cannot store a '" + ConnectionRow.USER
              + "': a page's owner is derived by walking up to its connection; nothing was "
              + "changed: drop the field (read the owner with pageUser)");
      default -> super.check(field, value);
    }
  }

  @Override
  final boolean isChainField(String field) {
    return field.equals(CONNECTION_ID);
  }

  @Override
  final void cache() {
    connectionId = (String) find(CONNECTION_ID);
  }

  @Override
  final int lockRank() {
    return RowLock.PAGE;
  }
}
