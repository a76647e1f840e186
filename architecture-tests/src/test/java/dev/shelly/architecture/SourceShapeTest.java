package dev.shelly.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shape of every module's main sources: no file too long to read whole, and no loop of import
 * lines between the files of one module. Each rule is also shown failing on a planted tree.
 */
class SourceShapeTest {

    /** The longest a main source file may be. */
    static final int MAX_LINES = 600;

    @Test
    void noMainSourceFileIsLongerThan600Lines() {
        Path root = Poms.root();
        List<String> tooLong = new ArrayList<>();
        for (String folder : Poms.moduleFolders(root)) {
            tooLong.addAll(Sources.longerThan(root.resolve(folder).resolve("src/main/java"), MAX_LINES, root));
        }
        assertThat(tooLong).as("main source files over %d lines: split them along a real seam", MAX_LINES).isEmpty();
    }

    @Test
    void noModuleHasALoopOfImportLinesBetweenItsFiles() {
        Path root = Poms.root();
        List<String> loops = new ArrayList<>();
        for (String folder : Poms.moduleFolders(root)) {
            Map<String, Set<String>> imports = Sources.imports(root.resolve(folder).resolve("src/main/java"));
            Sources.cycles(imports).forEach(c -> loops.add(folder + ": " + c));
        }
        assertThat(loops).as("files that import each other in a loop").isEmpty();
    }

    @Test
    void aFileOverTheLimitIsNamedWithItsLength(@TempDir Path src) throws IOException {
        write(src, "dev/x/Short.java", "package dev.x;\nclass Short {}\n");
        write(src, "dev/x/Long.java", "package dev.x;\nclass Long {\n" + "\n".repeat(MAX_LINES) + "}\n");
        assertThat(Sources.longerThan(src, MAX_LINES, src)).containsExactly("dev/x/Long.java: " + (MAX_LINES + 3) + " lines");
    }

    @Test
    void aLoopOfImportsIsFoundAcrossPackagesThroughMemberAndStaticImports(@TempDir Path src) throws IOException {
        write(src, "dev/x/A.java", "package dev.x;\nimport dev.x.internal.B.Inner;\nimport java.util.List;\nclass A {}\n");
        write(src, "dev/x/internal/B.java", "package dev.x.internal;\nimport static dev.x.api.C.helper;\npublic class B {}\n");
        write(src, "dev/x/api/C.java", "package dev.x.api;\nimport dev.x.A;\nimport dev.x.internal.*;\npublic class C {}\n");
        write(src, "dev/x/api/D.java", "package dev.x.api;\nimport dev.x.A;\npublic class D {}\n");

        Map<String, Set<String>> imports = Sources.imports(src);
        assertThat(imports).containsEntry("dev/x/A.java", Set.of("dev/x/internal/B.java"))
                .containsEntry("dev/x/api/C.java", Set.of("dev/x/A.java"));
        assertThat(Sources.cycles(imports)).containsExactly(
                Set.of("dev/x/A.java", "dev/x/internal/B.java", "dev/x/api/C.java"));

        write(src, "dev/x/api/C.java", "package dev.x.api;\npublic class C {}\n");
        assertThat(Sources.cycles(Sources.imports(src))).isEmpty();
    }

    private static void write(Path root, String file, String text) throws IOException {
        Path p = root.resolve(file);
        Files.createDirectories(p.getParent());
        Files.writeString(p, text);
    }
}
