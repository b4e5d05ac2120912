package io.fairway.daemon.admin;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;

/**
 * The one Jackson mapper: records in, records out, snake_case field names (times are ISO-8601
 * strings).
 */
public final class Json {
  private static final ObjectMapper MAPPER =
      new ObjectMapper()
          .setPropertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
          .setSerializationInclusion(JsonInclude.Include.ALWAYS)
          .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
          .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

  private Json() {}

  public static ObjectMapper mapper() {
    return MAPPER;
  }

  public static byte[] bytes(Object value) {
    try {
      return MAPPER.writeValueAsBytes(value);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(
          "cannot encode " + value.getClass().getSimpleName() + ": " + e.getMessage(), e);
    }
  }

  public static String string(Object value) {
    try {
      return MAPPER.writeValueAsString(value);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(
          "cannot encode " + value.getClass().getSimpleName() + ": " + e.getMessage(), e);
    }
  }

  /**
   * Decodes a body into a record.
   *
   * @throws IllegalArgumentException not JSON, or not this shape (one line saying what)
   */
  public static <T> T read(byte[] body, Class<T> type) {
    try {
      T t = MAPPER.readValue(body, type);
      if (t == null) {
        throw new IllegalArgumentException("expected a JSON object");
      }
      return t;
    } catch (IOException e) {
      String m = e.getMessage() == null ? e.toString() : e.getMessage();
      throw new IllegalArgumentException("bad JSON body: " + m.lines().findFirst().orElse(m));
    }
  }
}
