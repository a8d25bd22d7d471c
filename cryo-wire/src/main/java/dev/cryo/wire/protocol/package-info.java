/**
 * The messages of cryo's runtime on the wire: what a worker presents, announces and replies, and
 * what the commander asks of it. Each is a record written as one compact JSON object (Jackson);
 * unknown fields are ignored, so a newer peer may add fields. docs/wire.md documents every shape.
 */
package dev.cryo.wire.protocol;
