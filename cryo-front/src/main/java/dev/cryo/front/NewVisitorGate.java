package dev.cryo.front;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * Keeps the {@link NewVisitorBudget}: one token bucket per client address, charged one token for
 * each new visitor, and a refusal — with the seconds until the bucket holds a token again — when it
 * holds none. An IPv6 address counts by its /64 (what one host is usually given), an IPv4 address
 * by itself.
 *
 * <p>Bounded: it remembers at most {@code maxAddresses} addresses (default
 * {@value #MAX_ADDRESSES}), the least recently charged first to go. When the table is full, the
 * least recently charged address is forgotten if its bucket has filled up again (forgetting it
 * loses nothing: it would start full anyway); otherwise the new address is charged to one bucket
 * shared by every address the table has no room for, so an attacker with more addresses than the
 * table holds gets one more address's budget, not a fresh burst for each. What a budget per address
 * cannot stop — a flood from more addresses than that — meets the run's own caps
 * ({@code --max-users-per-worker}, {@code --max-workers}: 503 {@code saturated}).
 *
 * <p>Thread-safe: one lock guards the table, held for a lookup and a few arithmetic steps; only
 * requests without a known cookie take it.
 */
final class NewVisitorGate {

  /** The most addresses remembered at once by default: about a megabyte at most. */
  static final int MAX_ADDRESSES = 10_000;

  private static final System.Logger LOG = System.getLogger(NewVisitorGate.class.getName());

  private final NewVisitorBudget budget;
  private final int maxAddresses;
  private final LongSupplier nanoTime;
  private final double tokensPerNano;
  /** Access-ordered: the first entry is the least recently charged address. */
  private final LinkedHashMap<String, Bucket> buckets = new LinkedHashMap<>(64, 0.75f, true);
  private final Bucket overflow;
  private final AtomicLong refused = new AtomicLong();
  private final AtomicLong lastLogged = new AtomicLong(System.nanoTime() - 120_000_000_000L);

  NewVisitorGate(NewVisitorBudget budget) {
    this(budget, MAX_ADDRESSES, System::nanoTime);
  }

  NewVisitorGate(NewVisitorBudget budget, int maxAddresses, LongSupplier nanoTime) {
    if (maxAddresses < 1) {
      throw new IllegalArgumentException("the gate remembers at least one address, not "
          + maxAddresses);
    }
    this.budget = budget;
    this.maxAddresses = maxAddresses;
    this.nanoTime = nanoTime;
    this.tokensPerNano = budget.perSecond() / 1e9;
    this.overflow = new Bucket(budget.burst(), nanoTime.getAsLong());
  }

  /** The budget kept. */
  NewVisitorBudget budget() {
    return budget;
  }

  /**
   * Charges one new visitor from {@code address}.
   *
   * @return 0 when he is admitted; else the whole seconds (at least 1) until the address's bucket
   *     holds a token again, for {@code Retry-After}, the refusal counted
   */
  long charge(InetAddress address) {
    if (budget.off()) {
      return 0;
    }
    String key = keyOf(address);
    long wait;
    synchronized (buckets) {
      long now = nanoTime.getAsLong();
      Bucket bucket = buckets.get(key);
      if (bucket == null) {
        bucket = roomFor(now) ? new Bucket(budget.burst(), now) : overflow;
        if (bucket != overflow) {
          buckets.put(key, bucket);
        }
      }
      wait = bucket.take(now);
    }
    if (wait > 0) {
      refused(address, wait);
    }
    return wait;
  }

  /** Whether the table has room for one more address, forgetting its eldest if he is full again. */
  private boolean roomFor(long now) {
    if (buckets.size() < maxAddresses) {
      return true;
    }
    Iterator<Map.Entry<String, Bucket>> eldest = buckets.entrySet().iterator();
    if (eldest.next().getValue().fullAt(now)) {
      eldest.remove();
      return true;
    }
    return false;
  }

  private void refused(InetAddress address, long wait) {
    refused.incrementAndGet();
    long now = System.nanoTime();
    long last = lastLogged.get();
    if (now - last > 60_000_000_000L && lastLogged.compareAndSet(last, now)) {
      LOG.log(System.Logger.Level.WARNING, address.getHostAddress() + " made new visitors"
          + " (requests without a known cookie) faster than " + budget + " a second; they are"
          + " answered 429 and nothing is made for them, requests with a known cookie are served"
          + " as before (this line comes at most once a minute; the metric"
          + " cryo_front_new_visitors_refused_total counts them all; the setting is"
          + " --new-visitors-per-address)");
    }
  }

  /** The new visitors refused since the front started. */
  long refused() {
    return refused.get();
  }

  /** The addresses remembered now (never more than the bound). */
  int addresses() {
    synchronized (buckets) {
      return buckets.size();
    }
  }

  /** The key an address is counted by: an IPv6 address's /64, an IPv4 address itself. */
  static String keyOf(InetAddress address) {
    byte[] bytes = address.getAddress();
    if (address instanceof Inet6Address && bytes.length == 16) {
      return HexFormat.of().formatHex(bytes, 0, 8) + "::/64";
    }
    return address.getHostAddress();
  }

  /** One address's tokens, as of {@code stamp}; guarded by the table's lock. */
  private final class Bucket {
    private double tokens;
    private long stamp;

    Bucket(double tokens, long stamp) {
      this.tokens = tokens;
      this.stamp = stamp;
    }

    private void refill(long now) {
      if (now > stamp) {
        tokens = Math.min(budget.burst(), tokens + (now - stamp) * tokensPerNano);
        stamp = now;
      }
    }

    /** Takes a token: 0, or the whole seconds until there is one. */
    long take(long now) {
      refill(now);
      if (tokens >= 1) {
        tokens -= 1;
        return 0;
      }
      return Math.max(1, (long) Math.ceil((1 - tokens) / budget.perSecond()));
    }

    boolean fullAt(long now) {
      refill(now);
      return tokens >= budget.burst();
    }
  }
}
