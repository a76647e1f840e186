package dev.shelly.tools;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Tells the model what a field of a typed tool's input means; it becomes the field's
 * {@code "description"} in the generated JSON Schema.
 *
 * <p>On a record component it describes that field; on a record type it describes every field of
 * that type that has no description of its own.
 *
 * <pre>{@code
 * record Forecast(@Description("city name, e.g. Paris") String city,
 *                 @Description("days ahead, 1 to 7") int days) {}
 * }</pre>
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.RECORD_COMPONENT, ElementType.TYPE})
public @interface Description {

    /**
     * The description.
     *
     * @return what the field means, in words for a model
     */
    String value();
}
