package dev.cryo.bench.lock;

import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.store.FSLockFactory;
import org.apache.lucene.store.Lock;

/** A negative control for the stress run: every obtain succeeds, so exclusion is violated. */
public final class BrokenLockFactory extends FSLockFactory {

  /** The instance Lucene's stress client picks up. */
  public static final BrokenLockFactory INSTANCE = new BrokenLockFactory();

  @Override
  protected Lock obtainFSLock(FSDirectory dir, String lockName) {
    return new Lock() {
      @Override
      public void close() {}

      @Override
      public void ensureValid() {}
    };
  }
}
