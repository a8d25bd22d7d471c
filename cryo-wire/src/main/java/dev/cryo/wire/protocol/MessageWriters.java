package dev.cryo.wire.protocol;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.io.SerializedString;
import com.fasterxml.jackson.core.util.BufferRecycler;
import com.fasterxml.jackson.core.util.ByteArrayBuilder;
import java.io.IOException;
import java.util.List;

/**
 * The hand-written writers of the messages on a request's and a move's path, with Jackson's
 * streaming generator from {@link ProtocolCodec#FACTORY}. Each writes exactly the bytes data binding
 * writes for the same value: the record's components in their declared order, every component
 * written (a null one as {@code null}), {@code byte[]} as base64 in {@link ProtocolCodec#BASE64},
 * a list's null elements as {@code null}. {@code HandWrittenCodecPropertiesTest} holds them to it.
 * Stateless and thread-safe.
 */
final class MessageWriters {

  private static final SerializedString USER = new SerializedString("user");
  private static final SerializedString CONNECTION = new SerializedString("connection");
  private static final SerializedString ADMIT = new SerializedString("admit");
  private static final SerializedString GENERATION = new SerializedString("generation");
  private static final SerializedString PARCEL_GENERATION =
      new SerializedString("parcelGeneration");
  private static final SerializedString METHOD = new SerializedString("method");
  private static final SerializedString PATH = new SerializedString("path");
  private static final SerializedString QUERY = new SerializedString("query");
  private static final SerializedString HEADERS = new SerializedString("headers");
  private static final SerializedString BODY = new SerializedString("body");
  private static final SerializedString MOVE = new SerializedString("move");
  private static final SerializedString SOCKETLESS = new SerializedString("socketless");
  private static final SerializedString CREDENTIAL = new SerializedString("credential");
  private static final SerializedString SUCCESSOR = new SerializedString("successor");
  private static final SerializedString FROM = new SerializedString("from");
  private static final SerializedString TO = new SerializedString("to");
  private static final SerializedString REFUSED = new SerializedString("refused");
  private static final SerializedString STATUS = new SerializedString("status");
  private static final SerializedString WATERMARK = new SerializedString("watermark");
  private static final SerializedString SEQ = new SerializedString("seq");
  private static final SerializedString KIND = new SerializedString("kind");
  private static final SerializedString KEYS = new SerializedString("keys");
  private static final SerializedString DETAIL = new SerializedString("detail");
  private static final SerializedString REQUEST = new SerializedString("request");
  private static final SerializedString OF_QUIT = new SerializedString("ofQuit");
  private static final SerializedString OUTCOME = new SerializedString("outcome");
  private static final SerializedString MESSAGE = new SerializedString("message");
  private static final SerializedString TARGET = new SerializedString("target");
  private static final SerializedString KEY = new SerializedString("key");
  private static final SerializedString DATA = new SerializedString("data");
  private static final SerializedString PAGES = new SerializedString("pages");
  private static final SerializedString WRITTEN = new SerializedString("written");

  private MessageWriters() {}

  /** The message's JSON bytes, or null when its type is not written by hand. */
  static byte[] write(Object message) throws IOException {
    return switch (message) {
      case HttpCall call -> write(call, MessageWriters::httpCall);
      case HttpResult result -> write(result, MessageWriters::httpResult);
      case AnnouncementMessage announcement -> write(announcement, MessageWriters::announcement);
      case UserOrder order -> write(order, MessageWriters::userOrder);
      case FreezeResult result -> write(result, MessageWriters::freezeResult);
      case PushMessage push -> write(push, MessageWriters::pushMessage);
      case PushResult result -> write(result, MessageWriters::pushResult);
      case null, default -> null;
    };
  }

  /** How one type's fields are written, between nothing and nothing (the object included). */
  @FunctionalInterface
  private interface Body<T> {
    void write(JsonGenerator json, T message) throws IOException;
  }

  /** Writes {@code message} as {@code ObjectMapper.writeValueAsBytes} does, buffers included. */
  private static <T> byte[] write(T message, Body<T> body) throws IOException {
    BufferRecycler recycler = ProtocolCodec.FACTORY._getBufferRecycler();
    try (ByteArrayBuilder bytes = new ByteArrayBuilder(recycler)) {
      try (JsonGenerator json = ProtocolCodec.FACTORY.createGenerator(bytes, JsonEncoding.UTF8)) {
        body.write(json, message);
      }
      byte[] written = bytes.toByteArray();
      bytes.release();
      return written;
    } finally {
      recycler.releaseToPool();
    }
  }

  private static void httpCall(JsonGenerator json, HttpCall call) throws IOException {
    json.writeStartObject();
    string(json, USER, call.user());
    string(json, CONNECTION, call.connection());
    string(json, ADMIT, call.admit());
    json.writeFieldName(GENERATION);
    json.writeNumber(call.generation());
    json.writeFieldName(PARCEL_GENERATION);
    json.writeNumber(call.parcelGeneration());
    string(json, METHOD, call.method());
    string(json, PATH, call.path());
    string(json, QUERY, call.query());
    json.writeFieldName(HEADERS);
    stringLists(json, call.headers());
    bytes(json, BODY, call.body());
    json.writeFieldName(MOVE);
    MoveInfo move = call.move();
    if (move == null) {
      json.writeNull();
    } else {
      json.writeStartObject();
      string(json, FROM, move.from());
      string(json, TO, move.to());
      string(json, REFUSED, move.refused());
      json.writeEndObject();
    }
    json.writeFieldName(SOCKETLESS);
    Boolean socketless = call.socketless();
    if (socketless == null) {
      json.writeNull();
    } else {
      json.writeBoolean(socketless);
    }
    string(json, CREDENTIAL, call.credential());
    string(json, SUCCESSOR, call.successor());
    json.writeEndObject();
  }

  private static void httpResult(JsonGenerator json, HttpResult result) throws IOException {
    json.writeStartObject();
    json.writeFieldName(STATUS);
    json.writeNumber(result.status());
    json.writeFieldName(HEADERS);
    stringLists(json, result.headers());
    bytes(json, BODY, result.body());
    string(json, USER, result.user());
    json.writeFieldName(WATERMARK);
    json.writeNumber(result.watermark());
    json.writeEndObject();
  }

  private static void announcement(JsonGenerator json, AnnouncementMessage announcement)
      throws IOException {
    json.writeStartObject();
    json.writeFieldName(SEQ);
    json.writeNumber(announcement.seq());
    string(json, KIND, announcement.kind());
    string(json, USER, announcement.user());
    json.writeFieldName(KEYS);
    strings(json, announcement.keys());
    string(json, DETAIL, announcement.detail());
    json.writeFieldName(GENERATION);
    json.writeNumber(announcement.generation());
    string(json, REQUEST, announcement.request());
    json.writeEndObject();
  }

  private static void userOrder(JsonGenerator json, UserOrder order) throws IOException {
    json.writeStartObject();
    string(json, USER, order.user());
    json.writeFieldName(OF_QUIT);
    json.writeBoolean(order.ofQuit()); // never null: the constructor makes an absent one false
    json.writeFieldName(GENERATION);
    if (order.generation() == null) {
      json.writeNull();
    } else {
      json.writeNumber(order.generation());
    }
    json.writeEndObject();
  }

  private static void freezeResult(JsonGenerator json, FreezeResult result) throws IOException {
    json.writeStartObject();
    string(json, OUTCOME, result.outcome());
    string(json, MESSAGE, result.message());
    json.writeEndObject();
  }

  private static void pushMessage(JsonGenerator json, PushMessage push) throws IOException {
    json.writeStartObject();
    string(json, TARGET, push.target());
    string(json, KEY, push.key());
    bytes(json, DATA, push.data());
    json.writeEndObject();
  }

  private static void pushResult(JsonGenerator json, PushResult result) throws IOException {
    json.writeStartObject();
    json.writeFieldName(PAGES);
    json.writeNumber(result.pages());
    json.writeFieldName(WRITTEN);
    json.writeNumber(result.written());
    json.writeEndObject();
  }

  /** A string field; null is written as {@code null} ({@code writeString(null)} does so). */
  private static void string(JsonGenerator json, SerializedString name, String value)
      throws IOException {
    json.writeFieldName(name);
    json.writeString(value);
  }

  private static void bytes(JsonGenerator json, SerializedString name, byte[] value)
      throws IOException {
    json.writeFieldName(name);
    if (value == null) {
      json.writeNull();
    } else {
      json.writeBinary(ProtocolCodec.BASE64, value, 0, value.length);
    }
  }

  private static void strings(JsonGenerator json, List<String> values) throws IOException {
    if (values == null) {
      json.writeNull();
      return;
    }
    json.writeStartArray();
    for (String value : values) {
      json.writeString(value);
    }
    json.writeEndArray();
  }

  private static void stringLists(JsonGenerator json, List<List<String>> values)
      throws IOException {
    if (values == null) {
      json.writeNull();
      return;
    }
    json.writeStartArray();
    for (List<String> value : values) {
      strings(json, value);
    }
    json.writeEndArray();
  }
}
