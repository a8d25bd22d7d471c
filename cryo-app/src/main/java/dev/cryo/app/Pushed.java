package dev.cryo.app;

/**
 * What a push reached: how many pages its target named, and to how many of them it was written on
 * a browser's socket. "Written" means handed to an open socket of the page, nothing more: a page
 * whose tab is closed, or has no socket open, is counted in {@link #pages()} only. A push is never
 * queued for later: the application sends the state again on the page's next call if it must.
 *
 * @param pages the pages named (for a frozen user too: his sockets stay open in the front)
 * @param written the pages it was written to, at most {@code pages}
 */
public record Pushed(int pages, int written) {

  /** Nothing reached: no page. */
  public static final Pushed NOTHING = new Pushed(0, 0);

  /** Checks the counts. */
  public Pushed {
    if (pages < 0 || written < 0 || written > pages) {
      throw new IllegalArgumentException("a push is written to 0 to " + pages + " pages, not "
          + written);
    }
  }

  /** Whether it was written to at least one socket. */
  public boolean delivered() {
    return written > 0;
  }
}
