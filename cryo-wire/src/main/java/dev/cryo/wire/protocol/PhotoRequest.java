package dev.cryo.wire.protocol;

/**
 * The payload of a heartbeat {@code ping}: which page of the worker's users the commander asks
 * for. A worker's photo lists its users in pages in the order of their names, each page small
 * enough for a frame ({@link PhotoMessage#usersAfter()}); the commander asks for the page after
 * the last one it read, and starts again from the first once a page reached the last user.
 *
 * <p>{@code {}} (the heartbeat's payload before pages) reads as the first page.
 *
 * @param after the name of the last user of the previous page: the page begins with the first user
 *     whose name sorts after it ({@link String#compareTo}); null for the first page
 */
public record PhotoRequest(String after) {

  /** The first page. */
  public static final PhotoRequest FIRST = new PhotoRequest(null);
}
