package dev.shelly.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import dev.shelly.architecture.Boundary.Kind;
import dev.shelly.architecture.Boundary.ModuleView;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Each rule of {@link Boundary} fails on a planted violation, with a message that names the
 * offending package or type, and passes once the violation is gone. The planted violations are
 * the classes of {@code dev.shelly.architecture.fixture} and source trees written here.
 */
class BoundaryRulesTest {

    private static final String FIXTURE = "dev.shelly.architecture.fixture";
    private static final String API = FIXTURE + ".api";
    private static final String INTERNAL = FIXTURE + ".internal";
    private static final String UNDECLARED = FIXTURE + ".undeclared";
    private static final String OTHER_INTERNAL = FIXTURE + ".other.internal";
    private static final String UPPER = FIXTURE + ".upper";

    private static JavaClasses classes(String... packages) {
        return new ClassFileImporter().importPackages(packages);
    }

    // ---- (a) every package declares API, SPI or internal ----

    @Test
    void aPackageWithoutPackageInfoOrMarkerIsReported(@TempDir Path src) throws IOException {
        write(src, "dev/shelly/x/Plain.java", "package dev.shelly.x; public class Plain {}");
        write(src, "dev/shelly/x/vague/package-info.java", "/** Some helpers. */ package dev.shelly.x.vague;");
        write(src, "dev/shelly/x/vague/A.java", "package dev.shelly.x.vague; class A {}");
        write(src, "dev/shelly/x/ok/package-info.java", "/**\n * API: the good one.\n */\npackage dev.shelly.x.ok;");
        write(src, "dev/shelly/x/ok/B.java", "package dev.shelly.x.ok; public class B {}");

        Map<String, Optional<Kind>> kinds = Boundary.kinds(src);
        assertThat(kinds).containsEntry("dev.shelly.x.ok", Optional.of(Kind.API))
                .containsEntry("dev.shelly.x", Optional.empty())
                .containsEntry("dev.shelly.x.vague", Optional.empty());
        ModuleView module = new ModuleView("shelly-x", "dev.shelly.x", kinds,
                Map.of("dev.shelly.x.ok", Set.of()), classes());

        assertThat(Boundary.everyPackageDeclaresItsKind(module)).containsExactly(
                "shelly-x: package dev.shelly.x has no package-info.java whose Javadoc begins with API:, SPI: or Internal:",
                "shelly-x: package dev.shelly.x.vague has no package-info.java whose Javadoc begins with API:, SPI: or Internal:");
    }

    @Test
    void internalMustBeNamedInternalAndApiMustBeExported(@TempDir Path src) throws IOException {
        write(src, "dev/shelly/x/impl/package-info.java", "/** Internal: helpers. */ package dev.shelly.x.impl;");
        write(src, "dev/shelly/x/impl/A.java", "package dev.shelly.x.impl; class A {}");
        write(src, "dev/shelly/x/internal/package-info.java", "/** API: oops. */ package dev.shelly.x.internal;");
        write(src, "dev/shelly/x/internal/B.java", "package dev.shelly.x.internal; class B {}");
        write(src, "dev/shelly/x/spi/package-info.java", "/** SPI: plug-ins. */ package dev.shelly.x.spi;");
        write(src, "dev/shelly/x/spi/C.java", "package dev.shelly.x.spi; public interface C {}");

        ModuleView module = new ModuleView("shelly-x", "dev.shelly.x", Boundary.kinds(src),
                Map.of("dev.shelly.x.internal", Set.of()), classes());

        assertThat(Boundary.everyPackageDeclaresItsKind(module)).containsExactly(
                "shelly-x: package dev.shelly.x.impl says Internal: but is not named *.internal; rename it "
                        + "dev.shelly.x.impl.internal or declare it API/SPI",
                "shelly-x: package dev.shelly.x.internal is named internal but its package-info says API:",
                "shelly-x: SPI package dev.shelly.x.spi is not exported; add 'exports dev.shelly.x.spi;' to module dev.shelly.x");
    }

    // ---- (b) public types only in API/SPI packages or unexported/qualified internal ones ----

    @Test
    void aPublicTypeInAnUndeclaredPackageOrAnInternalPackageExportedToEveryoneIsReported() {
        ModuleView module = new ModuleView("shelly-fixture", "dev.shelly.fixture",
                Map.of(API, Optional.of(Kind.API), INTERNAL, Optional.of(Kind.INTERNAL), UNDECLARED, Optional.empty()),
                Map.of(API, Set.of(), INTERNAL, Set.of()),
                classes(API, INTERNAL, UNDECLARED));

        assertThat(Boundary.publicTypesOnlyInDeclaredPackages(module)).containsExactlyInAnyOrder(
                "public type dev.shelly.architecture.fixture.internal.Helper is in internal package "
                        + "dev.shelly.architecture.fixture.internal, which module dev.shelly.fixture exports to everyone",
                "public type dev.shelly.architecture.fixture.undeclared.Loose is in package "
                        + "dev.shelly.architecture.fixture.undeclared, which declares neither API, SPI nor internal");
    }

    // ---- the size of the API ----

    @Test
    void theApiCountsPublicTopLevelTypesOfPackagesExportedToEveryoneOnly() {
        ModuleView qualified = new ModuleView("shelly-fixture", "dev.shelly.fixture",
                Map.of(API, Optional.of(Kind.API), INTERNAL, Optional.of(Kind.INTERNAL)),
                Map.of(API, Set.of(), INTERNAL, Set.of("dev.shelly.engine")),
                classes(API, INTERNAL));
        assertThat(Boundary.exportedTopLevelTypes(qualified)).containsExactly(
                API + ".Client", API + ".Uses");

        ModuleView everything = new ModuleView("shelly-fixture", "dev.shelly.fixture",
                Map.of(API, Optional.of(Kind.API), INTERNAL, Optional.of(Kind.API)),
                Map.of(API, Set.of(), INTERNAL, Set.of()),
                classes(API, INTERNAL));
        assertThat(Boundary.exportedTopLevelTypes(everything)).containsExactly(
                API + ".Client", API + ".Uses", INTERNAL + ".Helper");
    }

    @Test
    void aPublicTypeInAnInternalPackageExportedOnlyToAShellyModuleIsFine() {
        ModuleView qualified = new ModuleView("shelly-fixture", "dev.shelly.fixture",
                Map.of(API, Optional.of(Kind.API), INTERNAL, Optional.of(Kind.INTERNAL)),
                Map.of(API, Set.of(), INTERNAL, Set.of("dev.shelly.engine")),
                classes(API, INTERNAL));
        assertThat(Boundary.publicTypesOnlyInDeclaredPackages(qualified)).isEmpty();

        ModuleView toStranger = new ModuleView("shelly-fixture", "dev.shelly.fixture",
                Map.of(INTERNAL, Optional.of(Kind.INTERNAL)), Map.of(INTERNAL, Set.of("com.example.app")),
                classes(INTERNAL));
        assertThat(Boundary.publicTypesOnlyInDeclaredPackages(toStranger)).containsExactly(
                "public type dev.shelly.architecture.fixture.internal.Helper is in internal package "
                        + "dev.shelly.architecture.fixture.internal, which module dev.shelly.fixture exports to "
                        + "com.example.app, not a Shelly module");
    }

    // ---- (c) no OkHttp, Reactor, Kotlin or MCP SDK type in an exported signature ----

    @Test
    void anOkHttpTypeInAnExportedSignatureIsReportedWithTheMemberThatShowsIt() {
        ModuleView module = new ModuleView("shelly-fixture", "dev.shelly.fixture",
                Map.of(API, Optional.of(Kind.API)), Map.of(API, Set.of()), classes(API));

        assertThat(Boundary.noForeignTypesInExportedSignatures(module)).containsExactlyInAnyOrder(
                "dev.shelly.architecture.fixture.api.Client.client() returns okhttp3.OkHttpClient: OkHttp type "
                        + "okhttp3.OkHttpClient appears in the API of exported package dev.shelly.architecture.fixture.api",
                "dev.shelly.architecture.fixture.api.Client.clients() returns java.util.List<? extends okhttp3.OkHttpClient>: OkHttp type "
                        + "okhttp3.OkHttpClient appears in the API of exported package dev.shelly.architecture.fixture.api");
    }

    @Test
    void anUnexportedPackageMayUseOkHttpInItsSignatures() {
        ModuleView module = new ModuleView("shelly-fixture", "dev.shelly.fixture",
                Map.of(API, Optional.of(Kind.API)), Map.of(), classes(API));

        assertThat(Boundary.noForeignTypesInExportedSignatures(module)).isEmpty();
    }

    // ---- (d) no upward dependency, no other module's internals ----

    @Test
    void anUpwardUseAndAUseOfAnotherModulesInternalPackageAreReported() {
        ModuleView lower = new ModuleView("shelly-lower", "dev.shelly.lower",
                Map.of(API, Optional.of(Kind.API)), Map.of(API, Set.of()), classes(API));
        ModuleView other = new ModuleView("shelly-other", "dev.shelly.other",
                Map.of(OTHER_INTERNAL, Optional.of(Kind.INTERNAL)), Map.of(), classes(OTHER_INTERNAL));
        ModuleView upper = new ModuleView("shelly-upper", "dev.shelly.upper",
                Map.of(UPPER, Optional.of(Kind.API)), Map.of(UPPER, Set.of()), classes(UPPER));
        Map<String, Set<String>> arrows = Map.of("shelly-lower", Set.of("shelly-other"),
                "shelly-upper", Set.of("shelly-lower"), "shelly-other", Set.of());

        assertThat(Boundary.noUpwardOrInternalDependencies(lower, List.of(lower, other, upper), arrows)).containsExactly(
                "dev.shelly.architecture.fixture.api.Uses uses dev.shelly.architecture.fixture.other.internal.Secret: "
                        + "package dev.shelly.architecture.fixture.other.internal is internal to dev.shelly.other and "
                        + "not exported to dev.shelly.lower",
                "dev.shelly.architecture.fixture.api.Uses uses dev.shelly.architecture.fixture.upper.Top: "
                        + "shelly-lower may not depend on shelly-upper (its arrows reach: [shelly-other])");
    }

    @Test
    void aQualifiedExportLetsTheNamedModuleUseAnInternalPackage() {
        ModuleView lower = new ModuleView("shelly-lower", "dev.shelly.lower",
                Map.of(API, Optional.of(Kind.API)), Map.of(API, Set.of()), classes(API));
        ModuleView other = new ModuleView("shelly-other", "dev.shelly.other",
                Map.of(OTHER_INTERNAL, Optional.of(Kind.INTERNAL)), Map.of(OTHER_INTERNAL, Set.of("dev.shelly.lower")),
                classes(OTHER_INTERNAL));
        ModuleView upper = new ModuleView("shelly-upper", "dev.shelly.upper",
                Map.of(UPPER, Optional.of(Kind.API)), Map.of(UPPER, Set.of()), classes(UPPER));
        Map<String, Set<String>> arrows = Map.of("shelly-lower", Set.of("shelly-other", "shelly-upper"));

        assertThat(Boundary.noUpwardOrInternalDependencies(lower, List.of(lower, other, upper), arrows)).isEmpty();
    }

    @Test
    void aModuleMayUseWhatItsArrowsReachTransitively() {
        ModuleView lower = new ModuleView("shelly-lower", "dev.shelly.lower",
                Map.of(API, Optional.of(Kind.API)), Map.of(API, Set.of()), classes(API));
        ModuleView other = new ModuleView("shelly-other", "dev.shelly.other",
                Map.of(OTHER_INTERNAL, Optional.of(Kind.INTERNAL)), Map.of(OTHER_INTERNAL, Set.of("dev.shelly.lower")),
                classes(OTHER_INTERNAL));
        ModuleView upper = new ModuleView("shelly-upper", "dev.shelly.upper",
                Map.of(UPPER, Optional.of(Kind.API)), Map.of(UPPER, Set.of()), classes(UPPER));
        Map<String, Set<String>> arrows = Map.of("shelly-lower", Set.of("shelly-other"), "shelly-other", Set.of("shelly-upper"));

        assertThat(Boundary.noUpwardOrInternalDependencies(lower, List.of(lower, other, upper), arrows)).isEmpty();
    }

    private static void write(Path root, String file, String text) throws IOException {
        Path path = root.resolve(file);
        Files.createDirectories(path.getParent());
        Files.writeString(path, text);
    }
}
