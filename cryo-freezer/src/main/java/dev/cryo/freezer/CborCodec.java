package dev.cryo.freezer;

import com.fasterxml.jackson.dataformat.cbor.CBORFactory;
import java.io.IOException;

/**
 * CBOR (RFC 8949) for plain data: the tree the registers hold, written and read as {@link PlainTree}
 * says, never instantiating a class named by the bytes. A standard format that any CBOR tool can
 * read; {@link SmileCodec}, the default, is faster and smaller. Thread-safe.
 */
public final class CborCodec implements ParcelCodec {

  /** The name written in parcel headers. */
  public static final String NAME = "cbor";

  /** One instance to share (the codec is thread-safe), for {@link ParcelCodec#builtIn}. */
  static final CborCodec SHARED = new CborCodec();

  private final CBORFactory factory = new CBORFactory();

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
