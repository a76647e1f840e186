package dev.shelly.tools;

import tools.jackson.databind.json.JsonMapper;

/** The one JSON mapper of this module: immutable and safe to share between threads. */
final class Json {
    /** Parses tool arguments, binds typed input and writes schemas. */
    static final JsonMapper MAPPER = JsonMapper.builder().build();

    private Json() {}
}
