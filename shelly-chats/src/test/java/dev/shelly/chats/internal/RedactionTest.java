package dev.shelly.chats.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class RedactionTest {

    @ParameterizedTest
    @CsvSource(delimiter = '|', nullValues = "NULL", value = {
        "https://api.openai.com/v1|https://api.openai.com/v1",
        "https://host/v1?key=abc|https://host/v1?key=***",
        "https://host/v1?key=abc#frag|https://host/v1?key=***#***",
        "https://host/v1#token=abc|https://host/v1#***",
        "https://bob:pw@host/v1|https://***@host/v1",
        "https://bob:pw@host:8443/v1?key=abc|https://***@host:8443/v1?key=***",
        "https://bob@host|https://***@host",
        "http://host/path/with@sign|http://host/path/with@sign",
        "https://bob:p@ss@host/v1|https://***@host/v1",
        "https://bob:pw@host?x=1|https://***@host?x=***",
        "https://hooks.example.com/mcp/sk_live_4eC39HqLyjWDarjtT1zdp7dc/tools|https://hooks.example.com/mcp/***/tools",
        "http://localhost/servers/filesystem-and-more|http://localhost/servers/filesystem-and-more",
        "not a url?secret=1|not a url?***",
        "host/v1|host/v1",
        "''|''",
        "NULL|NULL"
    })
    void masksUserInfoQueryValuesFragmentAndTokenLikeSegments(String url, String masked) {
        assertThat(Redaction.maskUrl(url)).isEqualTo(masked);
    }
}
