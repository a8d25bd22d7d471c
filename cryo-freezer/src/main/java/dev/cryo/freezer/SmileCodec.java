package dev.cryo.freezer;

import com.fasterxml.jackson.dataformat.smile.SmileFactory;
import java.io.IOException;

/**
 * The default codec: Jackson's Smile for plain data, written and read as {@link PlainTree} says,
 * never instantiating a class named by the bytes. Chosen by measurement (docs/benchmarks.md, "The
 * codec alone"): on the realistic user it encodes and decodes about 1.5 times as fast as CBOR and
 * is about a fifth smaller, because a key met again (every page store repeats its field names) is
 * written as a back-reference. Thread-safe.
 */
public final class SmileCodec implements ParcelCodec {

  /** The name written in parcel headers. */
  public static final String NAME = "smile";

  /** One instance to share (the codec is thread-safe), for {@link ParcelCodec#builtIn}. */
  static final SmileCodec SHARED = new SmileCodec();

  private final SmileFactory factory = new SmileFactory();

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public byte[] encode(Object payload) {
    return PlainTree.encode(factory, NAME, payload);
  }

  @Override
  public Object decode(byte[] bytes) throws IOException {
    return PlainTree.decode(factory, bytes, 0, bytes.length);
  }

  @Override
  public Object decode(byte[] bytes, int offset, int length) throws IOException {
    return PlainTree.decode(factory, bytes, offset, length);
  }
}
