package dev.cryo.register;

import java.util.Objects;
import java.util.function.Consumer;

/**
 * The two seams of a page's life in a {@link RegisterRegistry}, said explicitly: what attaches a
 * capture to a page's store after its birth ({@link #subscribe}), and what stops it before the
 * page leaves ({@link #detach}). A registry knows from its seams whether it has either: a registry
 * with no detach seam drops a tree in one step and never locks its pages; one with a detach seam
 * claims the rows, runs the seam on each page under the page's lock, then removes them.
 *
 * <pre>{@code
 * PageSeams seams = PageSeams.none()
 *     .withSubscribe(page -> capture.attach(page))
 *     .withDetach(page -> capture.stop(page));
 * RegisterRegistry registry = new RegisterRegistry(clock, seams);
 * registry.seams().detaches();   // true: its drops lock each page they take
 * }</pre>
 *
 * <p>Immutable and thread-safe; the seams themselves run on the thread of the lifecycle call, with
 * no structure lock held, under the contracts of {@link RegisterRegistry#subscribePageStore} and
 * {@link RegisterRegistry#detachPage}.
 */
public final class PageSeams {

  private static final PageSeams NONE = new PageSeams(null, null);

  private final Consumer<? super PageRow> subscribe;
  private final Consumer<? super PageRow> detach;

  private PageSeams(Consumer<? super PageRow> subscribe, Consumer<? super PageRow> detach) {
    this.subscribe = subscribe;
    this.detach = detach;
  }

  /** No seam at all: the registry's drops are single steps that lock no page. */
  public static PageSeams none() {
    return NONE;
  }

  /**
   * Both seams at once.
   *
   * @param subscribe the subscribe seam, or null for none
   * @param detach the detach seam, or null for none
   */
  public static PageSeams of(Consumer<? super PageRow> subscribe,
      Consumer<? super PageRow> detach) {
    return subscribe == null && detach == null ? NONE : new PageSeams(subscribe, detach);
  }

  /** These seams with {@code seam} as the subscribe seam, run after every page's birth. */
  public PageSeams withSubscribe(Consumer<? super PageRow> seam) {
    return new PageSeams(Objects.requireNonNull(seam, "seam"), detach);
  }

  /** These seams with {@code seam} as the detach seam, run before every page leaves. */
  public PageSeams withDetach(Consumer<? super PageRow> seam) {
    return new PageSeams(subscribe, Objects.requireNonNull(seam, "seam"));
  }

  /** Whether there is a subscribe seam: a page birth then locks the new page until it has run. */
  public boolean subscribes() {
    return subscribe != null;
  }

  /**
   * Whether there is a detach seam: every drop then locks each page it takes while the seam runs,
   * and a caller that must not wait for those locks tries them first.
   */
  public boolean detaches() {
    return detach != null;
  }

  /**
   * Runs the subscribe seam on {@code page}, if there is one. The registry calls it after a birth;
   * a consumer calls it holding the page's lock.
   */
  public void subscribe(PageRow page) {
    Objects.requireNonNull(page, "page");
    if (subscribe != null) {
      subscribe.accept(page);
    }
  }

  /**
   * Runs the detach seam on {@code page}, if there is one. The registry calls it before a page
   * leaves; a consumer calls it itself, holding the page's lock, before copying the page's store
   * for a parcel.
   */
  public void detach(PageRow page) {
    Objects.requireNonNull(page, "page");
    if (detach != null) {
      detach.accept(page);
    }
  }

  /** Which seams there are. */
  @Override
  public String toString() {
    if (this == NONE) {
      return "PageSeams[none]";
    }
    return "PageSeams[" + (subscribes() ? "subscribe" : "")
        + (subscribes() && detaches() ? ", " : "") + (detaches() ? "detach" : "") + "]";
  }
}
