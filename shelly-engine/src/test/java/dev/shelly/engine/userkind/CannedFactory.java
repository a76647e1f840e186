package dev.shelly.engine.userkind;

import dev.shelly.chats.Message;
import dev.shelly.chats.Role;
import dev.shelly.modeladapter.Completer;
import dev.shelly.modeladapter.ModelRequest;
import dev.shelly.modeladapter.ModelResponse;
import dev.shelly.modeladapter.StopReason;
import dev.shelly.modeladapter.Usage;
import dev.shelly.modeladapter.spi.CompleterFactory;
import dev.shelly.modeladapter.spi.InvalidSettingException;
import dev.shelly.modeladapter.spi.ProviderSettings;

/**
 * A user's own provider kind, {@code canned}, as an application would write it outside Shelly:
 * it answers every request with its configured {@code reply}, {@code repeat} times over. Found
 * through this test module's {@code META-INF/services}.
 */
public final class CannedFactory implements CompleterFactory {
    /** For ServiceLoader. */
    public CannedFactory() {}

    @Override
    public String kind() {
        return "canned";
    }

    @Override
    public Completer create(ProviderSettings settings) {
        String model = settings.string("model");
        String reply = settings.string("reply");
        int repeat = settings.optionalInteger("repeat", 1).orElse(1);
        String separator = settings.optionalString("separator").orElse(" ");
        String token = settings.optionalSecret("token").orElse("");
        if (reply.contains(token) && !token.isEmpty()) {
            throw new InvalidSettingException("token", "must not appear in the reply");
        }
        String text = String.join(separator, java.util.Collections.nCopies(repeat, reply));
        return new Completer() {
            @Override
            public ModelResponse complete(ModelRequest request) {
                return new ModelResponse(Message.text(settings.provider(), Role.ASSISTANT, text), Usage.of(1, 1), StopReason.END_TURN,
                        null, model, "canned-1", "canned");
            }

            @Override
            public String toString() {
                return "Canned[" + settings.provider() + "]";
            }
        };
    }
}
