package dev.shelly.modeladapter.spi;

/**
 * A setting is missing or wrong: it names the setting by its field, as the configuration spells
 * it ({@code base_url}, {@code retry.max_attempts}), and says what is wrong, without the location;
 * whoever read the configuration adds the file, the line and the path of the enclosing section.
 *
 * <p>The reason never repeats a secret's value: {@link ProviderSettings} quotes no secret, and a
 * {@link CompleterFactory} that throws this exception itself must not either.
 */
public final class InvalidSettingException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    /** The setting's field, dotted for nested ones; empty for the whole section. */
    private final String field;
    /** What is wrong and what was expected. */
    private final String reason;

    /**
     * Creates the exception.
     *
     * @param field the setting's field, such as {@code api_key} or {@code retry.max_delay};
     *     empty when the problem is the section as a whole
     * @param reason what is wrong and what was expected, such as
     *     {@code expected a positive whole number, got 'lots'}
     */
    public InvalidSettingException(String field, String reason) {
        super(field == null || field.isEmpty() ? reason : field + ": " + reason);
        this.field = field == null ? "" : field;
        this.reason = reason;
    }

    /**
     * The setting's field, dotted for nested ones.
     *
     * @return the field, such as {@code retry.max_delay}; empty for the whole section
     */
    public String field() {
        return field;
    }

    /**
     * What is wrong and what was expected, without the field.
     *
     * @return the reason
     */
    public String reason() {
        return reason;
    }
}
