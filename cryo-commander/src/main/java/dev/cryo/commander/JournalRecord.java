package dev.cryo.commander;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32C;

/**
 * One record of the commander's journal: one change of its maps. On disk a record is its frame,
 * {@code [length: 4 bytes][CRC-32C of the body: 4 bytes][body]}, big-endian, and its body is
 * {@code [kind: 1 byte]} followed by one or two strings, each {@code [length: 4 bytes][UTF-8]}.
 * Immutable.
 *
 * @param kind what changed
 * @param key the connection, page or user
 * @param value the user of a link, the connection of a page; null otherwise
 */
record JournalRecord(Kind kind, String key, String value) {

  /** The largest body a record may have; a longer length field is read as damage. */
  static final int MAX_BODY = 1 << 20;
  /** The bytes of a frame before its body. */
  static final int FRAME = 8;

  /** What a record tells. */
  enum Kind {
    /** {@code key} is a connection of user {@code value}. */
    LINK(1, true),
    /** Connection {@code key} is gone, with its pages. */
    UNLINK(2, false),
    /** {@code key} is a page of connection {@code value}. */
    PAGE(3, true),
    /** Page {@code key} is gone. */
    UNPAGE(4, false),
    /** User {@code key} is frozen. */
    FROZEN(5, false),
    /** User {@code key} lives on a worker. */
    AWAKE(6, false),
    /** User {@code key} is gone. */
    GONE(7, false),
    /**
     * User {@code key} is frozen at generation {@code value} (decimal): his wake reads a parcel of
     * that generation or newer. {@link #FROZEN} is a freeze whose generation is not known.
     */
    FROZEN_AT(8, true),
    /**
     * User {@code key} lives on a worker at generation {@code value} (decimal): a parcel older than
     * that stay is residue of an earlier one, never him. {@link #AWAKE} is a stay whose generation
     * is not known.
     */
    AWAKE_AT(9, true),
    /**
     * The run that writes the journal hands out generations from {@code key} (decimal) on: a
     * parcel at or above it was written by a stay of this run ({@link Generations#first}). The
     * first record of every compaction; absent in journals written before it.
     */
    RUN(10, false);

    final byte code;
    final boolean paired;

    Kind(int code, boolean paired) {
      this.code = (byte) code;
      this.paired = paired;
    }

    static Kind of(byte code) {
      for (Kind kind : values()) {
        if (kind.code == code) {
          return kind;
        }
      }
      throw new IllegalArgumentException("no journal record has kind " + code);
    }
  }

  /** The record of {@code user} frozen at {@code generation} (0: not known). */
  static JournalRecord frozen(String user, long generation) {
    return generation > 0 ? new JournalRecord(Kind.FROZEN_AT, user, Long.toString(generation))
        : new JournalRecord(Kind.FROZEN, user, null);
  }

  /** The record of {@code user} living on a worker at {@code generation} (0: not known). */
  static JournalRecord awake(String user, long generation) {
    return generation > 0 ? new JournalRecord(Kind.AWAKE_AT, user, Long.toString(generation))
        : new JournalRecord(Kind.AWAKE, user, null);
  }

  /** The record framed for the file. */
  byte[] frame() {
    ByteArrayOutputStream body = new ByteArrayOutputStream(16 + key.length()
        + (value == null ? 0 : value.length()));
    try (DataOutputStream out = new DataOutputStream(body)) {
      out.writeByte(kind.code);
      writeString(out, key);
      if (kind.paired) {
        writeString(out, value);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e); // a byte array does not fail
    }
    byte[] bytes = body.toByteArray();
    ByteBuffer frame = ByteBuffer.allocate(FRAME + bytes.length);
    frame.putInt(bytes.length).putInt(checksum(bytes, 0, bytes.length)).put(bytes);
    return frame.array();
  }

  /**
   * Reads the body of one record whose checksum was verified.
   *
   * @throws IllegalArgumentException when the body is not a record's
   */
  static JournalRecord read(ByteBuffer body) {
    try {
      Kind kind = Kind.of(body.get());
      String key = readString(body);
      String value = kind.paired ? readString(body) : null;
      if (body.hasRemaining()) {
        throw new IllegalArgumentException(body.remaining() + " bytes after the record");
      }
      return new JournalRecord(kind, key, value);
    } catch (java.nio.BufferUnderflowException e) {
      throw new IllegalArgumentException("the record ends early", e);
    }
  }

  static int checksum(byte[] bytes, int offset, int length) {
    CRC32C crc = new CRC32C();
    crc.update(bytes, offset, length);
    return (int) crc.getValue();
  }

  private static void writeString(DataOutputStream out, String text) throws IOException {
    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
    out.writeInt(bytes.length);
    out.write(bytes);
  }

  private static String readString(ByteBuffer body) {
    int length = body.getInt();
    if (length < 0 || length > body.remaining()) {
      throw new IllegalArgumentException("a string of " + length + " bytes where "
          + body.remaining() + " are left");
    }
    byte[] bytes = new byte[length];
    body.get(bytes);
    return new String(bytes, StandardCharsets.UTF_8);
  }
}
