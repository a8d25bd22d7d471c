package dev.cryo.app;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.deser.std.StdScalarDeserializer;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.ser.std.ToStringSerializer;
import java.io.IOException;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.Period;
import java.time.ZonedDateTime;
import java.util.function.Function;

/**
 * The JSON of requests and replies, and the mapper configuration typed state shares with it:
 * unknown fields ignored, {@code java.time} values as ISO-8601 text. Thread-safe.
 */
final class Json {

  /** Bodies and replies: nulls are written, unknown fields ignored. */
  static final ObjectMapper MAPPER = configure(new ObjectMapper());

  private Json() {}

  /** Applies what every mapper of cryo-app shares. */
  static ObjectMapper configure(ObjectMapper mapper) {
    mapper.configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);
    mapper.registerModule(timeAsText());
    return mapper;
  }

  /** Writes {@code value} as JSON; an {@link IllegalArgumentException} names what failed. */
  static byte[] write(Object value) {
    try {
      return MAPPER.writeValueAsBytes(value);
    } catch (IOException e) {
      throw new IllegalArgumentException("the reply could not be written as JSON: "
          + e.getMessage() + "; return records, maps, lists, strings, numbers and booleans", e);
    }
  }

  /** The {@code java.time} values a state or a body commonly holds, as their ISO-8601 text. */
  private static SimpleModule timeAsText() {
    SimpleModule module = new SimpleModule("cryo-time-as-text");
    text(module, Instant.class, Instant::parse);
    text(module, Duration.class, Duration::parse);
    text(module, Period.class, Period::parse);
    text(module, LocalDate.class, LocalDate::parse);
    text(module, LocalTime.class, LocalTime::parse);
    text(module, LocalDateTime.class, LocalDateTime::parse);
    text(module, OffsetDateTime.class, OffsetDateTime::parse);
    text(module, ZonedDateTime.class, ZonedDateTime::parse);
    return module;
  }

  private static <T> void text(SimpleModule module, Class<T> type, Function<String, T> parse) {
    module.addSerializer(type, ToStringSerializer.instance);
    module.addDeserializer(type, new StdScalarDeserializer<T>(type) {
      @Override
      public T deserialize(JsonParser parser, DeserializationContext context) throws IOException {
        String text = parser.getValueAsString();
        if (text == null) {
          return type.cast(context.handleUnexpectedToken(type, parser));
        }
        try {
          return parse.apply(text.trim());
        } catch (DateTimeException e) {
          return type.cast(context.handleWeirdStringValue(type, text, "not an ISO-8601 "
              + type.getSimpleName() + ": " + e.getMessage()));
        }
      }
    });
  }
}
