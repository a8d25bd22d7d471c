package dev.cryo.front;

import java.util.Locale;

/**
 * How many new visitors one client address may make on the public port: a token bucket per
 * address, refilled at {@code perSecond} and holding at most {@code burst} (docs/security.md). A
 * new visitor is a request that makes a new guest: one outside {@code /_cryo/} and the
 * application's static files whose connection cookie is missing or names no connection the run
 * knows (unknown, forged, expired, of a guest dropped for holding nothing). A request with a known
 * cookie is never counted nor refused by it. Past the budget the request is answered {@code 429
 * too_many_new_visitors} with {@code Retry-After} before anything is read, minted or asked of the
 * run ({@link NewVisitorGate}).
 *
 * <p>Why {@link #DEFAULT} is 20 a second with a burst of 100: a real browser's first visit makes
 * one guest for each cookie-less request it sends before the first reply's cookie is stored — a
 * page that loads with a handful of calls in parallel makes a handful — and an address shared by
 * many people (an office, a campus, a carrier's NAT) sees their first visits spread over time: a
 * hundred at once and then one every 50 ms (72,000 an hour) is far more than such an address
 * brings, while one client flooding cookie-less requests — each a new guest, each a user in a
 * worker's memory — is held to 20 a second, about 600 guests alive at once with the 30 s idle
 * drop of empty guests, instead of thousands a second. Behind a reverse proxy every client has the
 * proxy's address: raise it there, or turn it {@link #OFF} and limit per client in the proxy.
 *
 * @param perSecond the tokens added to an address's bucket each second (fractions allowed); 0
 *     only for {@link #OFF}
 * @param burst the most an address's bucket holds: how many new visitors it may make at once
 *     after being quiet; 0 only for {@link #OFF}
 */
public record NewVisitorBudget(double perSecond, int burst) {

  /** No budget: every new visitor is admitted (the front's own default; an embedder's choice). */
  public static final NewVisitorBudget OFF = new NewVisitorBudget(0, 0);

  /** 20 new visitors a second per address, 100 at once: {@code cryo serve}'s default. */
  public static final NewVisitorBudget DEFAULT = new NewVisitorBudget(20, 100);

  /** Checks the budget: both positive (the rate finite), or both zero ({@link #OFF}). */
  public NewVisitorBudget {
    boolean off = perSecond == 0 && burst == 0;
    if (!off && (!(perSecond > 0) || Double.isInfinite(perSecond) || burst < 1)) {
      throw new IllegalArgumentException("a budget of new visitors is a rate above 0 a second and"
          + " a burst of at least 1 (or off); got " + perSecond + "/" + burst);
    }
  }

  /** Whether this is {@link #OFF}. */
  public boolean off() {
    return burst == 0;
  }

  /**
   * Reads {@code RATE[/BURST]} or {@code off}: {@code 20/100}, {@code 5} (the burst then five
   * seconds' worth, at least 1), {@code 0.5/10}.
   *
   * @throws IllegalArgumentException naming what is wrong, for a text of another shape or a rate
   *     or burst out of range
   */
  public static NewVisitorBudget parse(String text) {
    String value = text == null ? "" : text.strip().toLowerCase(Locale.ROOT);
    if (value.equals("off")) {
      return OFF;
    }
    int slash = value.indexOf('/');
    try {
      double rate = Double.parseDouble(slash < 0 ? value : value.substring(0, slash));
      int burst = slash < 0 ? (int) Math.max(1, Math.min(Integer.MAX_VALUE, Math.ceil(rate * 5)))
          : Integer.parseInt(value.substring(slash + 1));
      if (Double.isNaN(rate) || rate <= 0) {
        throw new IllegalArgumentException("the rate must be above 0");
      }
      return new NewVisitorBudget(rate, burst);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("'" + text + "' is not RATE[/BURST] (such as 20/100: new"
          + " visitors a second per address, and how many at once) nor off");
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("'" + text + "': " + e.getMessage());
    }
  }

  /** {@code RATE/BURST}, or {@code off}: what {@link #parse} reads back. */
  @Override
  public String toString() {
    if (off()) {
      return "off";
    }
    String rate = perSecond == Math.rint(perSecond) ? Long.toString((long) perSecond)
        : Double.toString(perSecond);
    return rate + "/" + burst;
  }
}
