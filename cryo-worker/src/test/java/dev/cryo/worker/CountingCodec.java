package dev.cryo.worker;

import dev.cryo.freezer.CborCodec;
import dev.cryo.freezer.ParcelCodec;
import java.io.IOException;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/** The default codec, counting the parcels it decodes: each decode is one parcel read from disk. */
final class CountingCodec implements ParcelCodec {

  private final CborCodec codec = new CborCodec();
  final AtomicInteger userReads = new AtomicInteger();
  final AtomicInteger connectionReads = new AtomicInteger();
  /** When set, decoding a user parcel waits for it: a wake held in the middle of its disk trip. */
  volatile java.util.concurrent.CountDownLatch holdUserReads;

  @Override
  public String name() {
    return codec.name();
  }

  /** When set, encoding a user parcel counts {@link #userWriting} down, then waits for it. */
  volatile java.util.concurrent.CountDownLatch holdUserWrites;
  final java.util.concurrent.CountDownLatch userWriting = new java.util.concurrent.CountDownLatch(1);

  @Override
  public byte[] encode(Object payload) {
    java.util.concurrent.CountDownLatch hold = holdUserWrites;
    if (hold != null && payload instanceof Map<?, ?> map && "user".equals(map.get("parcel"))) {
      userWriting.countDown();
      try {
        hold.await(20, java.util.concurrent.TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    return codec.encode(payload);
  }

  @Override
  public Object decode(byte[] bytes) throws IOException {
    Object payload = codec.decode(bytes);
    if (payload instanceof Map<?, ?> map) {
      if ("user".equals(map.get("parcel"))) {
        userReads.incrementAndGet();
        java.util.concurrent.CountDownLatch hold = holdUserReads;
        if (hold != null) {
          try {
            hold.await();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while held", e);
          }
        }
      } else if ("connection".equals(map.get("parcel"))) {
        connectionReads.incrementAndGet();
      }
    }
    return payload;
  }
}
