package dev.shelly.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A user's project with a {@code module-info.java}, built from the BOM alone on the module path:
 * it compiles and runs against Shelly's named modules, and it cannot compile against a package
 * Shelly does not export. {@link BomConsumerTest} keeps the class-path consumer; this class uses
 * its local repository of the checkout's poms and jars and its Maven.
 */
class ModulePathConsumerTest {

    /**
     * A consumer with a {@code module-info.java} that requires {@code dev.shelly.agent},
     * {@code dev.shelly.engine} and {@code dev.shelly.providers}, built from the BOM alone, compiles
     * on the module path and runs there: an agent calls a typed tool (Jackson binds the consumer's
     * record through the package it opens), a provider is built (OkHttp and Kotlin resolve as
     * modules), an engine reads a config.yaml (Jackson binds it onto the config records the engine
     * opens; the provider kind is found through the engine's {@code uses} and shelly-providers'
     * {@code provides}), and each Shelly type comes from a named module.
     */
    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void aModularConsumerCompilesAndRunsOnTheModulePath(@TempDir Path tmp) throws Exception {
        Path root = Poms.root();
        String version = Poms.version(root);
        Path repo = publishCheckout(root, version, tmp.resolve("repo"));
        Path consumer = modularConsumer(root, version, tmp.resolve("modular"), MAIN, OPENS);

        Build build = maven(root, repo, consumer, tmp.resolve("modular.log"), "compile", "exec:exec");
        assertThat(build.exitCode()).as("the modular consumer compiled and ran:%n%s", build.output()).isZero();
        assertThat(build.output())
                .contains("answer: the tool said 18°C and sunny in Paris")
                .contains("modules: dev.shelly.agent dev.shelly.engine dev.shelly.providers dev.shelly.provider.spi")
                .contains("provider: OpenAiCompleter")
                .contains("engine: opened, lead is registered");
    }

    /**
     * A consumer whose module-info forgets to open its records' package to Jackson learns it at
     * once, before any model call: making the typed tool and asking for a structured answer both
     * fail with the module, the package and the exact line to add.
     */
    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void aRecordJacksonCannotReachFailsAtOnceNamingTheOpensLine(@TempDir Path tmp) throws Exception {
        Path root = Poms.root();
        String version = Poms.version(root);
        Path repo = publishCheckout(root, version, tmp.resolve("repo"));
        Path consumer = modularConsumer(root, version, tmp.resolve("closed"), CLOSED, "");

        Build build = maven(root, repo, consumer, tmp.resolve("closed.log"), "compile", "exec:exec");
        assertThat(build.exitCode()).as("the consumer compiled and ran:%n%s", build.output()).isZero();
        String fix = "module example.consumer does not open package example.consumer to tools.jackson.databind; "
                + "add this line to its module-info.java: opens example.consumer to tools.jackson.databind;";
        assertThat(build.output())
                .contains("typed tool: Jackson cannot bind record example.consumer.Main$City: " + fix)
                .contains("structured answer: Jackson cannot bind record example.consumer.Main$City: " + fix)
                .contains("model calls: 0");
    }

    private static final String CLOSED = """
            package example.consumer;

            import dev.shelly.agent.Agent;
            import dev.shelly.chats.Message;
            import dev.shelly.chats.Role;
            import dev.shelly.modeladapter.Completer;
            import dev.shelly.modeladapter.ModelResponse;
            import dev.shelly.tools.Tool;
            import dev.shelly.tools.ToolOutput;
            import java.util.concurrent.atomic.AtomicInteger;

            public final class Main {
                public record City(String name) {}

                public static void main(String[] args) {
                    AtomicInteger calls = new AtomicInteger();
                    Completer model = request -> {
                        calls.incrementAndGet();
                        return ModelResponse.of(Message.text("model", Role.ASSISTANT, "{\\\"name\\\":\\\"Paris\\\"}"));
                    };
                    try {
                        Tool.typed("get_weather", "Current weather for a city", City.class, (city, ctx) -> ToolOutput.text("sunny"));
                        System.out.println("typed tool: made");
                    } catch (IllegalArgumentException e) {
                        System.out.println("typed tool: " + e.getMessage());
                    }
                    Agent agent = Agent.builder("assistant").description("Names cities").completer(model).build();
                    try {
                        System.out.println("structured answer: " + agent.run("Name a city", City.class));
                    } catch (IllegalArgumentException e) {
                        System.out.println("structured answer: " + e.getMessage());
                    }
                    System.out.println("model calls: " + calls.get());
                }
            }
            """;

    /** The same consumer importing an internal package of dev.shelly.agent does not compile. */
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void aModularConsumerThatImportsAnInternalPackageFailsToCompile(@TempDir Path tmp) throws Exception {
        Path root = Poms.root();
        String version = Poms.version(root);
        Path repo = publishCheckout(root, version, tmp.resolve("repo"));
        Path consumer = modularConsumer(root, version, tmp.resolve("internal"), """
                package example.consumer;

                import dev.shelly.agent.internal.FanOut;

                public final class Main {
                    public static void main(String[] args) {
                        System.out.println(FanOut.class);
                    }
                }
                """, OPENS);

        Build build = maven(root, repo, consumer, tmp.resolve("internal.log"), "compile");
        assertThat(build.exitCode()).as("the consumer of an internal package must not compile:%n%s", build.output())
                .isNotZero();
        assertThat(build.output()).contains(
                "package dev.shelly.agent.internal is declared in module dev.shelly.agent, which does not export it");
    }

    private static final String MAIN = """
            package example.consumer;

            import dev.shelly.agent.Agent;
            import dev.shelly.chats.Message;
            import dev.shelly.chats.Role;
            import dev.shelly.chats.ToolCall;
            import dev.shelly.engine.Engine;
            import dev.shelly.modeladapter.Completer;
            import dev.shelly.modeladapter.ModelResponse;
            import dev.shelly.provider.spi.ProviderBuilder;
            import dev.shelly.providers.openai.OpenAiCompleter;
            import dev.shelly.tools.Tool;
            import dev.shelly.tools.ToolBox;
            import dev.shelly.tools.ToolOutput;
            import java.nio.file.Files;
            import java.nio.file.Path;

            public final class Main {
                public record City(String name) {}

                public static void main(String[] args) {
                    Completer model = request -> {
                        Message last = request.messages().getLast();
                        return ModelResponse.of(last.role() == Role.TOOL
                                ? Message.text("model", Role.ASSISTANT, "the tool said " + last.toolResults().getFirst().text())
                                : Message.of("model", Role.ASSISTANT, new ToolCall("call_1", "get_weather", "{\\\"name\\\":\\\"Paris\\\"}")));
                    };
                    Tool weather = Tool.typed("get_weather", "Current weather for a city", City.class,
                            (city, ctx) -> ToolOutput.text("18°C and sunny in " + city.name()));
                    Agent agent = Agent.builder("assistant").description("Answers weather questions")
                            .completer(model).toolboxes(ToolBox.of(weather)).build();
                    System.out.println("answer: " + agent.run("What's the weather in Paris?").text());
                    Completer provider = OpenAiCompleter.builder().apiKey("sk-not-a-real-key").model("gpt-test").build();
                    System.out.println("provider: " + provider.getClass().getSimpleName());
                    try {
                        Path dir = Files.createTempDirectory("modular-consumer");
                        Files.createDirectories(dir.resolve(".shelly"));
                        Files.writeString(dir.resolve(".shelly/config.yaml"), String.join(System.lineSeparator(),
                                "providers:",
                                "  - { name: local, kind: openai-compatible, base_url: 'http://127.0.0.1:9/v1', model: llama3.2 }",
                                "agents:",
                                "  - { name: lead, description: Answers questions, provider: local }",
                                ""));
                        try (Engine engine = Engine.open(dir)) {
                            System.out.println("engine: opened, lead is " + engine.registry().get("lead").map(r -> "registered").orElse("missing"));
                        }
                    } catch (java.io.IOException e) {
                        throw new java.io.UncheckedIOException(e);
                    }
                    System.out.println("modules: " + Agent.class.getModule().getName() + " " + Engine.class.getModule().getName()
                            + " " + OpenAiCompleter.class.getModule().getName() + " " + ProviderBuilder.class.getModule().getName());
                }
            }
            """;

    /** Every library of the BOM, and the checkout's poms and jars published into a local repository of the test's own. */
    private static Path publishCheckout(Path root, String version, Path repoDir) throws IOException {
        Path repo = Files.createDirectories(repoDir);
        BomConsumerTest.publish(repo, "shelly-parent", version, root.resolve("pom.xml"), null);
        for (String artifactId : BomConsumerTest.shellyLibraries()) {
            Path folder = root.resolve(artifactId);
            BomConsumerTest.publish(repo, artifactId, version, folder.resolve("pom.xml"),
                    folder.resolve("target").resolve(artifactId + "-" + version + ".jar"));
        }
        BomConsumerTest.publish(repo, "shelly-bom", version, root.resolve("shelly-bom").resolve("pom.xml"), null);
        return repo;
    }

    /** A Maven build's exit code and output. */
    private record Build(int exitCode, String output) {}

    /** Runs Maven on a consumer, offline when this build is, with the given goals. */
    private static Build maven(Path root, Path repo, Path consumer, Path log, String... goals) throws Exception {
        List<String> command = new ArrayList<>(List.of(BomConsumerTest.maven(root), "-B", "-f", consumer.resolve("pom.xml").toString(),
                "-Dmaven.repo.local=" + repo, "-Dstyle.color=never"));
        String userRepo = System.getProperty("shelly.localRepository", "");
        if (!userRepo.isBlank() && !userRepo.startsWith("${")) {
            command.add("-Dmaven.repo.local.tail=" + userRepo);
        }
        if (System.getProperty("shelly.offline", "").equals("offline:true")) {
            command.add("-o");
        }
        command.addAll(List.of(goals));
        Process process = new ProcessBuilder(command).directory(consumer.toFile())
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        boolean ended = process.waitFor(150, TimeUnit.SECONDS);
        if (!ended) {
            process.destroyForcibly();
        }
        String output = Files.readString(log);
        assertThat(ended).as("the consumer build ended in time:%n%s", output).isTrue();
        return new Build(process.exitValue(), output);
    }

    /**
     * A jar project with a module-info that requires dev.shelly.agent, dev.shelly.engine and
     * dev.shelly.providers, from the BOM, with the given main class; exec:exec runs it on the module path.
     */
    private static final String OPENS = """

                // Jackson binds the tool input onto this package's record.
                opens example.consumer to tools.jackson.databind;
            """;

    private static Path modularConsumer(Path root, String version, Path dir, String main, String opens) throws IOException {
        for (String artifactId : List.of("shelly-agent", "shelly-engine", "shelly-providers")) {
            Path jar = root.resolve(artifactId).resolve("target").resolve(artifactId + "-" + version + ".jar");
            assertThat(jar).as("the modular consumer needs the built jars; package %s first", artifactId).isRegularFile();
        }
        Path sources = Files.createDirectories(dir.resolve("src/main/java/example/consumer"));
        Files.writeString(dir.resolve("src/main/java/module-info.java"), """
                module example.consumer {
                    requires dev.shelly.agent;
                    requires dev.shelly.engine;
                    requires dev.shelly.providers;
                %s}
                """.formatted(opens.indent(4)), StandardCharsets.UTF_8);
        Files.writeString(sources.resolve("Main.java"), main, StandardCharsets.UTF_8);
        Files.writeString(dir.resolve("pom.xml"), """
                <?xml version="1.0" encoding="UTF-8"?>
                <project xmlns="http://maven.apache.org/POM/4.0.0">
                  <modelVersion>4.0.0</modelVersion>
                  <groupId>example</groupId>
                  <artifactId>modular-consumer</artifactId>
                  <version>1</version>
                  <properties>
                    <maven.compiler.release>21</maven.compiler.release>
                    <project.build.sourceEncoding>UTF-8</project.build.sourceEncoding>
                  </properties>
                  <dependencyManagement>
                    <dependencies>
                      <dependency>
                        <groupId>dev.shelly</groupId>
                        <artifactId>shelly-bom</artifactId>
                        <version>%1$s</version>
                        <type>pom</type>
                        <scope>import</scope>
                      </dependency>
                    </dependencies>
                  </dependencyManagement>
                  <dependencies>
                    <dependency><groupId>dev.shelly</groupId><artifactId>shelly-agent</artifactId></dependency>
                    <dependency><groupId>dev.shelly</groupId><artifactId>shelly-engine</artifactId></dependency>
                    <dependency><groupId>dev.shelly</groupId><artifactId>shelly-providers</artifactId></dependency>
                  </dependencies>
                  <build>
                    <plugins>
                      <plugin>
                        <groupId>org.apache.maven.plugins</groupId>
                        <artifactId>maven-resources-plugin</artifactId>
                        <version>%2$s</version>
                      </plugin>
                      <plugin>
                        <groupId>org.apache.maven.plugins</groupId>
                        <artifactId>maven-compiler-plugin</artifactId>
                        <version>%3$s</version>
                      </plugin>
                      <plugin>
                        <groupId>org.codehaus.mojo</groupId>
                        <artifactId>exec-maven-plugin</artifactId>
                        <version>%4$s</version>
                        <configuration>
                          <executable>java</executable>
                          <arguments>
                            <argument>--module-path</argument>
                            <modulepath/>
                            <argument>--module</argument>
                            <argument>example.consumer/example.consumer.Main</argument>
                          </arguments>
                        </configuration>
                      </plugin>
                    </plugins>
                  </build>
                </project>
                """.formatted(version, Poms.pluginVersion(root, "maven-resources-plugin"),
                Poms.pluginVersion(root, "maven-compiler-plugin"), Poms.pluginVersion(root, "exec-maven-plugin")),
                StandardCharsets.UTF_8);
        return dir;
    }
}
