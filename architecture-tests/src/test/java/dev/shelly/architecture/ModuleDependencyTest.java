package dev.shelly.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * Encodes the arrows of the design: which Shelly module may depend on which. A module that
 * depends upward or sideways, in any scope, fails the build here.
 */
class ModuleDependencyTest {

    static final Set<String> LIBRARIES = Set.of(
            "shelly-chats", "shelly-modeladapter", "shelly-provider-spi", "shelly-providers", "shelly-tools",
            "shelly-mcp", "shelly-skills", "shelly-agent", "shelly-coding", "shelly-state", "shelly-storage", "shelly-engine",
            "shelly-redis", "shelly-console",
            "shelly-testing", "shelly-otel");

    /** Each module and the Shelly modules it may use. */
    static final Map<String, Set<String>> ALLOWED = Map.ofEntries(
            Map.entry("shelly-chats", Set.of()),
            // The Completer contract: the chat model and nothing else.
            Map.entry("shelly-modeladapter", Set.of("shelly-chats")),
            // Test utilities: a scripted Completer; used by other libraries in test scope only.
            Map.entry("shelly-testing", Set.of("shelly-modeladapter", "shelly-chats")),
            // The libraries below that list shelly-testing use it in test scope only (see
            // librariesUseShellyTestingInTestScopeOnly): the scripted model, or LogCapture as the
            // tests' logging back end.
            // The HTTP base providers build on (OkHttp lives here and above, never below).
            Map.entry("shelly-provider-spi", Set.of("shelly-modeladapter", "shelly-chats", "shelly-testing")),
            Map.entry("shelly-providers", Set.of("shelly-provider-spi", "shelly-modeladapter", "shelly-chats",
                    "shelly-testing")),
            // The tool model: no MCP, Reactor or validator.
            Map.entry("shelly-tools", Set.of("shelly-chats")),
            Map.entry("shelly-mcp", Set.of("shelly-tools", "shelly-chats", "shelly-testing")),
            Map.entry("shelly-skills", Set.of("shelly-chats")),
            Map.entry("shelly-agent", Set.of("shelly-chats", "shelly-modeladapter", "shelly-tools", "shelly-skills",
                    "shelly-testing")),
            // shelly-testing for LogCapture, in tests only.
            Map.entry("shelly-coding", Set.of("shelly-agent", "shelly-tools", "shelly-chats", "shelly-testing")),
            // shelly-testing for LogCapture, in tests only.
            Map.entry("shelly-state", Set.of("shelly-tools", "shelly-chats", "shelly-testing")),
            // Below the engine: the session store SPI, the session codec and the shared-backends SPI,
            // so that a storage backend (shelly-redis) implements them without seeing the engine.
            Map.entry("shelly-storage", Set.of("shelly-agent", "shelly-state", "shelly-modeladapter", "shelly-chats",
                    "shelly-testing")),
            // OpenTelemetry on the agent's RunObserver seam; MCP only to test trace propagation
            // (see otelUsesMcpInTestsOnly): the core carries no OpenTelemetry dependency.
            Map.entry("shelly-otel", Set.of("shelly-agent", "shelly-modeladapter", "shelly-tools", "shelly-chats",
                    "shelly-mcp", "shelly-testing")),
            // shelly-mcp, shelly-coding and shelly-otel only as optional dependencies
            // (see engineUsesMcpOnlyAsAnOptionalDependency).
            Map.entry("shelly-engine", Set.of("shelly-chats", "shelly-modeladapter", "shelly-providers",
                    "shelly-tools", "shelly-mcp", "shelly-skills", "shelly-agent", "shelly-coding", "shelly-state",
                    "shelly-storage", "shelly-testing", "shelly-otel")),
            // Redis backends for the storage, state and model adapter SPIs. Never the engine, in any
            // scope: the engine finds them with ServiceLoader (dev.shelly.storage.spi).
            Map.entry("shelly-redis", Set.of("shelly-storage", "shelly-state", "shelly-modeladapter", "shelly-testing")),
            // The browser console: an application of the engine's public API (sessions, events,
            // prices). Never the engine, in any scope: the engine finds it with ServiceLoader
            // (Engine.Extension) when the configuration has a console: section.
            Map.entry("shelly-console", Set.of("shelly-engine", "shelly-testing")),
            Map.entry("examples", LIBRARIES),
            // The shelly command: an application over the engine's public API (and the types it
            // hands out: agents, chats, models), shipping what a config.yaml may ask for (provider
            // kinds, MCP, coding, telemetry, Redis) for the engine to find; scripted models in tests.
            Map.entry("shelly-cli", Set.of("shelly-engine", "shelly-agent", "shelly-chats", "shelly-modeladapter",
                    "shelly-providers", "shelly-mcp", "shelly-coding", "shelly-otel", "shelly-redis", "shelly-testing")),
            Map.entry("benchmarks", LIBRARIES),
            Map.entry("shelly-bom", Set.of()),
            Map.entry("shelly-architecture-tests", Set.of("shelly-testing")));

    @Test
    void everyModuleIsInTheArchitectureMap() {
        for (Poms.Module module : modules()) {
            assertThat(ALLOWED)
                    .as("module %s (folder %s) has no arrows in the architecture map; add it to "
                            + "ModuleDependencyTest.ALLOWED and to the design doc", module.artifactId(), module.folder())
                    .containsKey(module.artifactId());
        }
    }

    @Test
    void noModuleDependsUpwardOrSideways() {
        List<String> violations = new ArrayList<>();
        for (Poms.Module module : modules()) {
            Set<String> allowed = ALLOWED.getOrDefault(module.artifactId(), Set.of());
            for (Poms.Dependency d : module.dependencies()) {
                if (d.groupId().equals("dev.shelly") || d.groupId().equals("${project.groupId}")) {
                    if (!allowed.contains(d.artifactId())) {
                        violations.add(module.artifactId() + " -> " + d.artifactId() + " (scope " + d.scope()
                                + "); allowed: " + new TreeSet<>(allowed));
                    }
                }
            }
        }
        assertThat(violations).as("dependencies against the arrows of the design").isEmpty();
    }

    @Test
    void librariesUseShellyTestingInTestScopeOnly() {
        List<String> violations = new ArrayList<>();
        for (Poms.Module module : modules()) {
            if (!LIBRARIES.contains(module.artifactId())) {
                continue;
            }
            for (Poms.Dependency d : module.dependencies()) {
                if (d.artifactId().equals("shelly-testing") && !d.scope().equals("test")) {
                    violations.add(module.artifactId() + " -> shelly-testing (scope " + d.scope() + ")");
                }
            }
        }
        assertThat(violations).as("the scripted model and the log capture are for tests; libraries must not ship them")
                .isEmpty();
    }

    @Test
    void engineUsesMcpOnlyAsAnOptionalDependency() {
        Poms.Module engine = Poms.module(Poms.root(), "shelly-engine");
        assertThat(engine.dependencies()).filteredOn(d -> d.artifactId().equals("shelly-mcp"))
                .as("shelly-engine -> shelly-mcp: optional, so an engine without MCP servers carries no MCP jars")
                .singleElement()
                .satisfies(d -> assertThat(d.optional()).isTrue(), d -> assertThat(d.scope()).isEqualTo("compile"));
    }

    @Test
    void engineUsesCodingOnlyAsAnOptionalDependency() {
        Poms.Module engine = Poms.module(Poms.root(), "shelly-engine");
        assertThat(engine.dependencies()).filteredOn(d -> d.artifactId().equals("shelly-coding"))
                .as("shelly-engine -> shelly-coding: optional, so agents without a coding toolbox do not carry it")
                .singleElement()
                .satisfies(d -> assertThat(d.optional()).isTrue(), d -> assertThat(d.scope()).isEqualTo("compile"));
    }

    @Test
    void theArrowsThemselvesHaveNoCycle() {
        for (String start : ALLOWED.keySet()) {
            Set<String> seen = new HashSet<>();
            List<String> todo = new ArrayList<>(ALLOWED.get(start));
            while (!todo.isEmpty()) {
                String next = todo.removeLast();
                assertThat(next).as("cycle through %s", start).isNotEqualTo(start);
                if (seen.add(next)) {
                    todo.addAll(ALLOWED.getOrDefault(next, Set.of()));
                }
            }
        }
    }

    @Test
    void everyJarDeclaresAnAutomaticModuleName() {
        Set<String> names = new HashSet<>();
        for (Poms.Module module : modules()) {
            if (!module.packaging().equals("jar")) {
                continue;
            }
            assertThat(module.moduleName())
                    .as("module %s must set the property module.name (its Automatic-Module-Name)", module.folder())
                    .isPresent();
            String name = module.moduleName().orElseThrow();
            assertThat(name).as("module.name of %s", module.folder()).matches("dev\\.shelly(\\.[a-z][a-z0-9]*)+");
            assertThat(names.add(name)).as("module.name %s is used twice", name).isTrue();
        }
    }

    @Test
    void theBomListsEveryLibraryInTheBuild() {
        Path root = Poms.root();
        Poms.Module bom = Poms.module(root, "shelly-bom");
        Set<String> inBom = new TreeSet<>();
        for (Poms.Dependency d : bom.managed()) {
            if (d.groupId().equals("dev.shelly")) {
                inBom.add(d.artifactId());
            }
        }
        Set<String> libraries = new TreeSet<>();
        for (Poms.Module module : modules()) {
            if (LIBRARIES.contains(module.artifactId())) {
                libraries.add(module.artifactId());
            }
        }
        assertThat(inBom).as("shelly-bom lists exactly the library modules of the build").isEqualTo(libraries);
    }

    @Test
    void theBomManagesTheThirdPartyVersionsTheBuildUses() {
        Path root = Poms.root();
        for (String version : List.of("jackson.version", "okhttp.version", "mcp.version", "slf4j.version",
                "snakeyaml-engine.version", "opentelemetry.version")) {
            assertThat(Poms.property(root.resolve("shelly-bom/pom.xml"), version))
                    .as("shelly-bom's %s, as the build's", version)
                    .isEqualTo(Poms.property(root.resolve("pom.xml"), version))
                    .isPresent();
        }
    }

    @Test
    void otelUsesMcpInTestsOnly() {
        Poms.Module otel = Poms.module(Poms.root(), "shelly-otel");
        assertThat(otel.dependencies()).filteredOn(d -> d.artifactId().equals("shelly-mcp"))
                .as("shelly-otel's shelly-mcp dependency").singleElement()
                .satisfies(d -> assertThat(d.scope()).isEqualTo("test"));
    }

    @Test
    void everyModuleFolderIsNamedAfterItsArtifact() {
        for (Poms.Module module : modules()) {
            if (!module.artifactId().equals("shelly-architecture-tests")) {
                assertThat(module.artifactId()).as("artifactId of folder %s", module.folder()).isEqualTo(module.folder());
            }
        }
    }

    @Test
    void everyLibraryHasAReadme() {
        for (Poms.Module module : modules()) {
            if (LIBRARIES.contains(module.artifactId())) {
                assertThat(Files.isRegularFile(Poms.root().resolve(module.folder()).resolve("README.md")))
                        .as("%s/README.md", module.folder())
                        .isTrue();
            }
        }
    }

    private static List<Poms.Module> modules() {
        Path root = Poms.root();
        List<Poms.Module> modules = new ArrayList<>();
        for (String folder : Poms.moduleFolders(root)) {
            modules.add(Poms.module(root, folder));
        }
        assertThat(modules).isNotEmpty();
        return modules;
    }
}
