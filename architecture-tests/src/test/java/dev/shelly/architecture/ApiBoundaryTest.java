package dev.shelly.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shelly.architecture.Boundary.ModuleView;
import java.io.IOException;
import java.io.InputStream;
import java.lang.module.ModuleDescriptor;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The marked API boundary of every library module, read from its sources, its
 * {@code module-info.class} and its class files (see {@link Boundary} for the rules, and
 * {@link BoundaryRulesTest} for each rule failing on a planted violation).
 */
class ApiBoundaryTest {

    /** How many public top-level types all modules together may export to their users. */
    static final int API_BUDGET = 150;

    private static List<ModuleView> modules;

    @BeforeAll
    static void readTheLibraries() {
        Path root = Poms.root();
        modules = new ArrayList<>();
        for (String artifact : new TreeSet<>(ModuleDependencyTest.LIBRARIES)) {
            modules.add(Boundary.read(root, artifact));
        }
    }

    @Test
    void theExportedApiStaysWithinItsBudgetOfTopLevelTypes() {
        Map<String, List<String>> perModule = new TreeMap<>();
        modules.forEach(m -> perModule.put(m.artifact(), Boundary.exportedTopLevelTypes(m)));
        int total = perModule.values().stream().mapToInt(List::size).sum();
        StringBuilder report = new StringBuilder("Exported public top-level types: " + total + " (budget " + API_BUDGET + ")");
        perModule.forEach((artifact, names) -> report.append("\n  ").append(artifact).append(": ").append(names.size()));
        System.out.println(report);
        assertThat(total).as("%s\nall of them: %s", report, perModule).isLessThanOrEqualTo(API_BUDGET);
    }

    @Test
    void everyPackageSaysWhetherItIsApiSpiOrInternal() {
        List<String> violations = new ArrayList<>();
        modules.forEach(m -> violations.addAll(Boundary.everyPackageDeclaresItsKind(m)));
        assertThat(violations).as("packages without a clear API/SPI/internal declaration").isEmpty();
    }

    @Test
    void publicTypesLiveOnlyInApiOrSpiPackagesOrInInternalOnesExportedToShellyModulesAtMost() {
        List<String> violations = new ArrayList<>();
        modules.forEach(m -> violations.addAll(Boundary.publicTypesOnlyInDeclaredPackages(m)));
        assertThat(violations).as("public types outside the declared API").isEmpty();
    }

    @Test
    void noOkHttpReactorKotlinOrMcpSdkTypeAppearsInAnExportedSignature() {
        List<String> violations = new ArrayList<>();
        modules.forEach(m -> violations.addAll(Boundary.noForeignTypesInExportedSignatures(m)));
        assertThat(violations).as("third-party types in exported signatures").isEmpty();
    }

    @Test
    void noModuleUsesAModuleAboveItOrAnotherModulesInternals() {
        List<String> violations = new ArrayList<>();
        modules.forEach(m -> violations.addAll(Boundary.noUpwardOrInternalDependencies(m, modules, ModuleDependencyTest.ALLOWED)));
        assertThat(violations).as("uses against the arrows of the design or across an internal boundary").isEmpty();
    }

    @Test
    void everyModuleInfoCarriesTheModuleNameOfItsPom() {
        Path root = Poms.root();
        for (ModuleView module : modules) {
            assertThat(Poms.module(root, module.artifact()).moduleName())
                    .as("module-info.java of %s declares module %s; its pom's module.name must say the same",
                            module.artifact(), module.name())
                    .contains(module.name());
        }
    }

    @Test
    void everyServiceFileHasItsProvidesClause() throws IOException {
        Path root = Poms.root();
        List<String> violations = new ArrayList<>();
        for (ModuleView module : modules) {
            Path services = root.resolve(module.artifact()).resolve("src/main/resources/META-INF/services");
            Map<String, Set<String>> provides = new TreeMap<>();
            descriptor(root, module.artifact()).provides()
                    .forEach(p -> provides.put(p.service(), new TreeSet<>(p.providers())));
            if (!Files.isDirectory(services)) {
                continue;
            }
            try (Stream<Path> files = Files.list(services)) {
                for (Path file : files.toList()) {
                    String service = file.getFileName().toString();
                    for (String line : Files.readAllLines(file)) {
                        String impl = line.replaceFirst("#.*", "").strip();
                        if (!impl.isEmpty() && !provides.getOrDefault(service, Set.of()).contains(impl)) {
                            violations.add("%s lists %s in META-INF/services/%s, but module %s has no 'provides %s with %s;'"
                                    .formatted(module.artifact(), impl, service, module.name(), service, impl));
                        }
                    }
                }
            }
        }
        assertThat(violations).as("service implementations the module path would not find").isEmpty();
    }

    private static ModuleDescriptor descriptor(Path root, String artifact) throws IOException {
        try (InputStream in = Files.newInputStream(root.resolve(artifact).resolve("target/classes/module-info.class"))) {
            return ModuleDescriptor.read(in);
        }
    }
}
