package dev.cryo.freezer;

import java.util.Objects;

/**
 * A complete parcel read back from disk: its header and its payload, still encoded. Only a parcel
 * whose lengths and checksums all agree becomes a {@code Parcel}.
 *
 * @param header the diagnostic header
 * @param payload the encoded payload, for the codec named in the header (not copied: do not modify)
 */
public record Parcel(ParcelHeader header, byte[] payload) {

  /** Checks that no field is null. */
  public Parcel {
    Objects.requireNonNull(header, "header");
    Objects.requireNonNull(payload, "payload");
  }
}
