package io.fairway.daemon;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.cfg.CoercionAction;
import com.fasterxml.jackson.databind.cfg.CoercionInputShape;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.type.LogicalType;
import java.io.IOException;
import java.util.List;

/**
 * The one Jackson mapper: records in, records out, snake_case field names (times are ISO-8601
 * strings).
 */
public final class Json {
  private static final ObjectMapper MAPPER =
      new ObjectMapper()
          .setPropertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
          .setDefaultPropertyInclusion(JsonInclude.Include.ALWAYS)
          .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
          .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

  /**
   * Request bodies are read with no coercion of scalars: {@code 0.0001}, {@code 1.5}, {@code 1e3},
   * {@code "5"} or {@code true} for an integer are refused, not rounded (a weight of 0.0001 taken
   * as 0 would silently stop a server's traffic); likewise a string or number for a boolean.
   */
  private static final ObjectMapper STRICT = strict(MAPPER.copy());

  private Json() {}

  private static ObjectMapper strict(ObjectMapper m) {
    // {"weight":1,"weight":0}: whichever a reader keeps, another may keep the other; refused.
    m.enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);
    m.disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT);
    refuse(m, LogicalType.Integer, CoercionInputShape.Float, CoercionInputShape.Boolean);
    refuse(m, LogicalType.Boolean, CoercionInputShape.Integer, CoercionInputShape.Float);
    refuse(m, LogicalType.Float, CoercionInputShape.Boolean);
    refuse(
        m,
        LogicalType.Textual,
        CoercionInputShape.Integer,
        CoercionInputShape.Float,
        CoercionInputShape.Boolean);
    return m;
  }

  private static void refuse(ObjectMapper m, LogicalType type, CoercionInputShape... shapes) {
    var c = m.coercionConfigFor(type);
    for (CoercionInputShape s : shapes) {
      c.setCoercion(s, CoercionAction.Fail);
    }
    if (type != LogicalType.Textual) {
      c.setCoercion(CoercionInputShape.String, CoercionAction.Fail)
          .setCoercion(CoercionInputShape.EmptyString, CoercionAction.Fail);
    }
  }

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

  /** {@code 'weight' must be an integer, not 0.0001}, or Jackson's first line. */
  private static String mismatch(MismatchedInputException e) {
    List<JsonMappingException.Reference> path = e.getPath();
    String field = path.isEmpty() ? null : path.get(path.size() - 1).getFieldName();
    Class<?> type = e.getTargetType();
    if (field == null || type == null) {
      String m = e.getOriginalMessage() == null ? e.toString() : e.getOriginalMessage();
      return m.lines().findFirst().orElse(m);
    }
    String got = "";
    if (e.getProcessor() instanceof JsonParser p) {
      try {
        String t = p.getText();
        got = t == null ? "" : ", not " + (t.length() > 40 ? t.substring(0, 40) + "..." : t);
      } catch (IOException ignored) {
        // the offending value is only a nicety of the message
      }
    }
    String what =
        type == Integer.class || type == int.class || type == Long.class
            ? "an integer"
            : type == Boolean.class || type == boolean.class
                ? "true or false"
                : type == String.class ? "a string" : "a " + type.getSimpleName();
    return "'" + field + "' must be " + what + got;
  }

  /**
   * Decodes a body into a record.
   *
   * @throws IllegalArgumentException not JSON, or not this shape (one line saying what)
   */
  public static <T> T read(byte[] body, Class<T> type) {
    try {
      T t = STRICT.readValue(body, type);
      if (t == null) {
        throw new IllegalArgumentException("expected a JSON object");
      }
      return t;
    } catch (MismatchedInputException e) {
      throw new IllegalArgumentException("bad JSON body: " + mismatch(e));
    } catch (IOException e) {
      String m = e.getMessage() == null ? e.toString() : e.getMessage();
      throw new IllegalArgumentException("bad JSON body: " + m.lines().findFirst().orElse(m));
    }
  }
}
