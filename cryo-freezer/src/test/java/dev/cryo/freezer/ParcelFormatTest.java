package dev.cryo.freezer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class ParcelFormatTest {

  static final Path FILE = Path.of("/freezer/alice/user.parcel");
  static final ParcelHeader HEADER = new ParcelHeader("worker-3", Instant.ofEpochMilli(1_780_000_000_123L),
      "freeze", "g1", "cbor");
  static final byte[] PAYLOAD = "{\"cart\":[1,2,3],\"name\":\"alice\"}".getBytes(StandardCharsets.UTF_8);

  @Test
  void aParcelReadsBackItsHeaderAndPayload() throws Exception {
    byte[] bytes = ParcelFormat.encode(HEADER, PAYLOAD);
    Parcel parcel = ParcelFormat.decode(FILE, bytes);
    assertThat(parcel.header()).isEqualTo(HEADER);
    assertThat(parcel.payload()).isEqualTo(PAYLOAD);
    assertThat(ParcelFormat.decode(FILE, ParcelFormat.encode(HEADER, new byte[0])).payload()).isEmpty();
  }

  @Test
  void theHeaderIsReadableWithoutThePayload() throws Exception {
    byte[] bytes = ParcelFormat.encode(HEADER, new byte[100_000]);
    byte[] prefix = Arrays.copyOf(bytes, ParcelFormat.HEADER_PREFIX_LENGTH);
    assertThat(ParcelFormat.decodeHeader(FILE, prefix)).isEqualTo(HEADER);
  }

  @Test
  void longAndIllFormedHeaderTextsAreCutAndReplacedNotRefused() throws Exception {
    ParcelHeader header = new ParcelHeader("é".repeat(2000), HEADER.writtenAt(), "\uD800", "", "cbor");
    ParcelHeader read = ParcelFormat.decode(FILE, ParcelFormat.encode(header, PAYLOAD)).header();
    assertThat(read.writer()).isEqualTo("é".repeat(ParcelFormat.MAX_HEADER_TEXT / 2));
    assertThat(read.cause()).isEqualTo("?");
  }

  @Test
  void aParcelTruncatedAtEveryBytePositionIsCorrupt() {
    byte[] bytes = ParcelFormat.encode(HEADER, PAYLOAD);
    for (int length = 0; length < bytes.length; length++) {
      byte[] torn = Arrays.copyOf(bytes, length);
      assertCorrupt(torn, "truncated to " + length);
    }
  }

  @Test
  void aParcelWithAnySingleByteChangedInAnyWayIsCorrupt() {
    byte[] bytes = ParcelFormat.encode(HEADER, PAYLOAD);
    for (int position = 0; position < bytes.length; position++) {
      for (int flip = 1; flip < 256; flip++) {
        byte[] altered = bytes.clone();
        altered[position] ^= (byte) flip;
        assertCorrupt(altered, "byte " + position + " xor " + flip);
      }
    }
  }

  @Test
  void aParcelWithBytesAppendedIsCorrupt() {
    byte[] bytes = ParcelFormat.encode(HEADER, PAYLOAD);
    assertCorrupt(Arrays.copyOf(bytes, bytes.length + 1), "one zero byte appended");
    byte[] twice = Arrays.copyOf(bytes, bytes.length * 2);
    System.arraycopy(bytes, 0, twice, bytes.length, bytes.length);
    assertCorrupt(twice, "written twice");
  }

  @Test
  void aParcelAtTheStartOfALongerBufferIsReadFromItsLengthAloneAndNotCopied() throws Exception {
    byte[] bytes = ParcelFormat.encode(HEADER, PAYLOAD);
    byte[] buffer = Arrays.copyOf(bytes, bytes.length + 9);
    Arrays.fill(buffer, bytes.length, buffer.length, (byte) 0x5A); // what lies past the read
    ParcelFormat.Span span = ParcelFormat.decodeInPlace(FILE, buffer, bytes.length);
    assertThat(span.header()).isEqualTo(HEADER);
    assertThat(Arrays.copyOfRange(buffer, span.offset(), span.offset() + span.length()))
        .isEqualTo(PAYLOAD);
    assertThat(ParcelFormat.decode(FILE, buffer, bytes.length).payload()).isEqualTo(PAYLOAD);
    assertThat(ParcelFormat.decodeHeader(FILE, buffer, bytes.length)).isEqualTo(HEADER);
  }

  @Test
  void aLengthShortOfTheParcelIsCorruptWhateverTheBufferHoldsPastIt() {
    byte[] bytes = ParcelFormat.encode(HEADER, PAYLOAD);
    for (int length = 0; length < bytes.length; length++) {
      int cut = length;
      // The whole parcel is in the buffer, but only the first `cut` bytes were read: nothing past
      // them may count.
      assertThatThrownBy(() -> ParcelFormat.decode(FILE, bytes, cut)).as("read %d bytes", cut)
          .isInstanceOfSatisfying(FreezerException.class, e ->
              assertThat(e.reason()).isEqualTo(FreezerException.Reason.CORRUPT_PARCEL));
    }
    byte[] longer = Arrays.copyOf(bytes, bytes.length + 1);
    assertThatThrownBy(() -> ParcelFormat.decode(FILE, longer, longer.length))
        .isInstanceOf(FreezerException.class);
  }

  @Test
  void aNewerVersionShowsNothingButIsRefusedAsUnsupported() {
    byte[] bytes = ParcelFormat.encode(HEADER, PAYLOAD);
    bytes[8] = 2;
    // Rewrite the header checksum as a newer writer would.
    int headerEnd = 13 + java.nio.ByteBuffer.wrap(bytes, 9, 4).getInt();
    java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
    crc.update(bytes, 0, headerEnd);
    java.nio.ByteBuffer.wrap(bytes, headerEnd, 4).putInt((int) crc.getValue());
    assertThatThrownBy(() -> ParcelFormat.decode(FILE, bytes))
        .isInstanceOfSatisfying(FreezerException.class,
            e -> assertThat(e.reason()).isEqualTo(FreezerException.Reason.UNSUPPORTED_VERSION))
        .hasMessageContaining(FILE.toString());
  }

  private static void assertCorrupt(byte[] bytes, String what) {
    assertThatThrownBy(() -> ParcelFormat.decode(FILE, bytes)).as(what)
        .isInstanceOfSatisfying(FreezerException.class, e -> {
          assertThat(e.reason()).as(what).isEqualTo(FreezerException.Reason.CORRUPT_PARCEL);
          assertThat(e.file()).isEqualTo(FILE);
        })
        .hasMessageContaining(FILE.toString())
        .hasMessageContaining("drop it");
  }
}
