/**
 * The messages of cryo's runtime on the wire: what a worker presents, announces and replies, and
 * what the commander asks of it. Each is a record written as one compact JSON object by
 * {@link dev.cryo.wire.protocol.ProtocolCodec}; unknown fields are ignored, so a newer peer may add
 * fields. The messages of a request's and a move's path are written and read by hand with
 * Jackson's streaming API, byte for byte as Jackson's data binding writes them, and read as it
 * reads them except for the scalar coercions {@code MessageReaders} lists; the others go through
 * data binding. docs/wire.md documents every shape.
 *
 * <p>A worker's refusals speak one vocabulary, {@link dev.cryo.wire.protocol.RefusalReason}: the
 * worker throws with it, the error reply carries its code, and the commander reads it to decide
 * whether to route the call again and, if not, which status the front answers. The application's
 * own refusals are replies, not this.
 */
package dev.cryo.wire.protocol;
