package dev.shelly.cli;

import dev.shelly.engine.ShellyDir;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

/**
 * {@code shelly init [--provider KIND]}: creates {@code .shelly/} in the project with a commented
 * starter {@code config.yaml} (one provider of the kind, one coding assistant), {@code skills/},
 * {@code agents/} and a {@code .gitignore} for the local state. Never overwrites: when the folder
 * exists, it says what is in it and changes nothing.
 */
final class InitCommand extends Command {
    static final String PROVIDER = "--provider";

    /**
     * A provider kind the starter configuration can name.
     *
     * @param kind as {@code config.yaml} spells it
     * @param model the model it starts with
     * @param variable the environment variable it needs, or null
     * @param lines the provider's lines of {@code config.yaml} after {@code kind}
     */
    record Kind(String kind, String model, String variable, String lines) {}

    /** The kinds, in the order a set key chooses one when {@code --provider} is not given. */
    static final List<Kind> KINDS = List.of(
            new Kind("anthropic", "claude-sonnet-4-5", "ANTHROPIC_API_KEY",
                    "    # The key is read from ANTHROPIC_API_KEY (or: api_key: ${MY_VARIABLE}).\n"),
            new Kind("openai", "gpt-4o-mini", "OPENAI_API_KEY",
                    "    # The key is read from OPENAI_API_KEY (or: api_key: ${MY_VARIABLE}).\n"),
            new Kind("gemini", "gemini-2.5-flash", "GEMINI_API_KEY",
                    "    # The key is read from GEMINI_API_KEY or GOOGLE_API_KEY.\n"),
            new Kind("grok", "grok-4", "XAI_API_KEY",
                    "    # The key is read from XAI_API_KEY.\n"),
            new Kind("azure-openai", "gpt-4o-mini", "AZURE_OPENAI_API_KEY",
                    "    # model is the deployment's name. The key is read from AZURE_OPENAI_API_KEY, the\n"
                            + "    # endpoint (https://<resource>.openai.azure.com) from AZURE_OPENAI_ENDPOINT.\n"),
            new Kind("openai-compatible", "llama3.2", null,
                    "    # Any server speaking OpenAI's Chat Completions: Ollama, vLLM, llama.cpp, LM Studio.\n"
                            + "    base_url: ${OPENAI_BASE_URL:-http://localhost:11434/v1}\n"));

    InitCommand(Terminal terminal) {
        super("init", terminal);
    }

    @Override
    Set<String> options() {
        return Set.of(PROVIDER);
    }

    @Override
    int run(Args args, Project project) throws IOException {
        args.atMost(0);
        Kind kind = args.value(PROVIDER).map(InitCommand::kind).orElseGet(() -> detect(terminal.env()));
        ShellyDir dir = project.shellyDir();
        if (Files.exists(dir.root())) {
            throw CommandException.failed(dir.root() + " exists already" + contents(dir.root())
                    + "; shelly init does not overwrite it");
        }
        Files.createDirectories(dir.skillsDir());
        Path agents = Files.createDirectory(dir.root().resolve("agents"));
        String provider = "    kind: " + kind.kind() + "\n    model: " + kind.model() + "\n" + kind.lines();
        write(dir.configFile(), Cli.resource("init/config.yaml").replace("@PROVIDER@\n", provider));
        write(dir.skillsDir().resolve("README.md"), Cli.resource("init/skills.md"));
        write(agents.resolve("README.md"), Cli.resource("init/agents.md"));
        write(dir.root().resolve(".gitignore"), Cli.resource("init/gitignore"));
        var out = terminal.out();
        out.println("created " + dir.root());
        out.println("  config.yaml   an assistant agent on " + kind.kind() + " " + kind.model()
                + ", with the project's files and commands");
        out.println("  skills/       skills the agents can load (SKILL.md folders)");
        out.println("  agents/       agents written as markdown");
        out.println("  .gitignore    keeps sessions and other local state out of git");
        out.println(kind.variable() == null
                ? "next: start the server (or set OPENAI_BASE_URL), then run: shelly chat"
                : "next: set " + kind.variable() + ", then run: shelly chat");
        return 0;
    }

    static Kind kind(String name) {
        for (Kind k : KINDS) {
            if (k.kind().equals(name)) {
                return k;
            }
        }
        throw Args.usage("init", "unknown provider kind '" + name + "'; expected one of "
                + String.join(", ", KINDS.stream().map(Kind::kind).toList()));
    }

    /** The kind whose key is set, else an OpenAI-compatible server when its address is, else Anthropic. */
    static Kind detect(Map<String, String> env) {
        for (Kind k : KINDS) {
            if (k.variable() != null && !env.getOrDefault(k.variable(), "").isBlank()) {
                return k;
            }
        }
        return env.getOrDefault("OPENAI_BASE_URL", "").isBlank() ? KINDS.getFirst() : KINDS.getLast();
    }

    /** What an existing folder holds, for the refusal: {@code " (config.yaml, sessions/)"}. */
    private static String contents(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            return " (as a file)";
        }
        List<String> names = new ArrayList<>();
        try (Stream<Path> entries = Files.list(dir)) {
            entries.sorted().forEach(p -> names.add(p.getFileName() + (Files.isDirectory(p) ? "/" : "")));
        }
        return names.isEmpty() ? " (empty)" : " (" + String.join(", ", names) + ")";
    }

    private static void write(Path file, String text) throws IOException {
        Files.writeString(file, text, StandardCharsets.UTF_8, StandardOpenOption.CREATE_NEW);
    }
}
