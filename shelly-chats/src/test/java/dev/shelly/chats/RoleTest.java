package dev.shelly.chats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class RoleTest {

    @Test
    void parsesWireNamesIgnoringCaseAndSpace() {
        assertThat(Role.parse("system")).isEqualTo(Role.SYSTEM);
        assertThat(Role.parse("User")).isEqualTo(Role.USER);
        assertThat(Role.parse(" ASSISTANT ")).isEqualTo(Role.ASSISTANT);
        assertThat(Role.parse("tool")).isEqualTo(Role.TOOL);
    }

    @Test
    void wireNameRoundTrips() {
        for (Role role : Role.values()) {
            assertThat(Role.parse(role.wireName())).isEqualTo(role);
            assertThat(role.toString()).isEqualTo(role.wireName());
        }
        assertThat(Role.ASSISTANT.wireName()).isEqualTo("assistant");
    }

    @Test
    void unknownNameListsTheKnownOnes() {
        assertThatThrownBy(() -> Role.parse("developer"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("unknown role 'developer'; expected one of system, user, assistant, tool");
        assertThatThrownBy(() -> Role.parse(null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Role.parse name (the role) must not be null; expected one of system, user, assistant, tool");
    }
}
