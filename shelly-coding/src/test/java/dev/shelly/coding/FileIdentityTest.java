package dev.shelly.coding;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Sensitive files are known by what they are, not only by their name: a hard link to one is
 * refused by every tool that returns or copies content and left out of listings and search,
 * whatever {@code .gitignore} says. Names like secrets and credentials are sensitive too, and no
 * error names the workspace's absolute path.
 */
@Timeout(value = 20, unit = TimeUnit.SECONDS)
class FileIdentityTest {
    @TempDir
    static Path base;

    static Hostile h;

    /** Each hard link and the sensitive file it is another name of. */
    static final Map<String, String> LINKS = Map.of(
            "notes.txt", ".env",
            "src/env-copy.txt", ".env",
            "gitcfg.txt", ".git/config",
            "docs/key.txt", ".ssh/id_rsa",
            "k2", "keys/deploy.key",
            "y.yaml", "config/app-secret.yaml",
            "c.txt", "aws-credentials");

    @BeforeAll
    static void setUp() throws Exception {
        h = new Hostile(base);
        for (String dir : List.of(".git", ".ssh", "keys", "config", "src", "docs", "tls")) {
            Files.createDirectories(h.ws.resolve(dir));
        }
        for (String secret : List.of(".git/config", ".ssh/id_rsa", "keys/deploy.key", "config/app-secret.yaml",
                "aws-credentials", "tls/server.pem", "MY_SECRET.txt")) {
            Files.writeString(h.ws.resolve(secret), "a " + Hostile.CANARY + " in " + secret + "\n");
        }
        LINKS.forEach((link, target) -> {
            try {
                Files.createLink(h.ws.resolve(link), h.ws.resolve(target));
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        // Two names of one ordinary file: neither is sensitive, so both stay readable.
        Files.writeString(h.ws.resolve("src/a.txt"), "plain a\n");
        Files.createLink(h.ws.resolve("src/b.txt"), h.ws.resolve("src/a.txt"));
        Files.writeString(h.ws.resolve(".gitignore"), "*.txt\n");
    }

    static Stream<Arguments> linkAttempts() {
        List<Arguments> out = new ArrayList<>();
        for (String p : LINKS.keySet().stream().sorted().toList()) {
            out.add(Arguments.of(CodingTools.READ, new Object[] {"path", p}));
            out.add(Arguments.of(CodingTools.EDIT, new Object[] {"path", p, "old_text", "a ", "new_text", "b "}));
            out.add(Arguments.of(CodingTools.PATCH, new Object[] {"patch", "--- a/" + p + "\n+++ b/" + p
                + "\n@@ -1 +1 @@\n-x\n+y\n"}));
            out.add(Arguments.of(CodingTools.COPY, new Object[] {"from", p, "to", "copy.txt"}));
            out.add(Arguments.of(CodingTools.STAT, new Object[] {"path", p}));
            out.add(Arguments.of(CodingTools.SEARCH, new Object[] {"pattern", "CANARY", "path", p}));
        }
        return out.stream();
    }

    @ParameterizedTest(name = "[{index}] {0} {1}")
    @MethodSource("linkAttempts")
    void aHardLinkToASensitiveFileIsRefused(String tool, Object[] args) throws Exception {
        assertThat(h.refused(tool, args)).contains("is a hard link to the sensitive file '");
        h.assertNothingOutsideChanged();
        assertThat(h.ws.resolve("copy.txt")).doesNotExist();
    }

    static Stream<Arguments> namedAttempts() {
        List<Arguments> out = new ArrayList<>();
        for (String p : List.of("config/app-secret.yaml", "aws-credentials", "tls/server.pem", "MY_SECRET.txt",
                "docs/credentials.json")) {
            out.add(Arguments.of(CodingTools.READ, new Object[] {"path", p}));
            out.add(Arguments.of(CodingTools.WRITE, new Object[] {"path", p, "content", "x"}));
            out.add(Arguments.of(CodingTools.COPY, new Object[] {"from", "src/a.txt", "to", p}));
        }
        for (String p : List.of(".git/hooks/pre-commit", ".git/config", ".git/info/attributes")) {
            out.add(Arguments.of(CodingTools.WRITE, new Object[] {"path", p, "content", "#!/bin/sh\nid\n"}));
            out.add(Arguments.of(CodingTools.MOVE, new Object[] {"from", "src/a.txt", "to", p}));
            out.add(Arguments.of(CodingTools.MKDIR, new Object[] {"path", p + ".d"}));
        }
        return out.stream();
    }

    @ParameterizedTest(name = "[{index}] {0} {1}")
    @MethodSource("namedAttempts")
    void secretsCredentialsKeysAndGitAreRefusedByName(String tool, Object[] args) throws Exception {
        assertThat(h.refused(tool, args)).contains("is a sensitive file (pattern '");
        h.assertNothingOutsideChanged();
        assertThat(h.ws.resolve(".git/hooks")).doesNotExist();
        assertThat(h.ws.resolve("src/a.txt")).exists();
    }

    @Test
    void theRefusalNamesTheSensitiveFile() {
        assertThat(h.refused(CodingTools.READ, "path", "notes.txt"))
                .isEqualTo("path 'notes.txt' is a hard link to the sensitive file '.env'; the coding tools do not touch it");
        assertThat(h.refused(CodingTools.READ, "path", "MY_SECRET.txt"))
                .isEqualTo("path 'MY_SECRET.txt' is a sensitive file (pattern '*secret*'); the coding tools do not touch it");
    }

    @Test
    void listingsAndSearchLeaveLinksToSensitiveFilesOutWhateverGitignoreSays() throws Exception {
        for (String rules : List.of("*.txt\n", "", "!*\n!.env\n!.git/\n!notes.txt\n", "# nothing ignored\n")) {
            Files.writeString(h.ws.resolve(".gitignore"), rules);
            assertThat(h.call(CodingTools.LIST).text()).isEqualTo(".gitignore (" + rules.length() + " bytes)\n"
                    + "config/\ndocs/\nkeys/\nsrc/\ntls/");
            assertThat(h.call(CodingTools.LIST, "path", "src").text()).as(rules)
                    .isEqualTo("src/a.txt (8 bytes)\nsrc/b.txt (8 bytes)");
            assertThat(h.call(CodingTools.LIST, "glob", "**").text()).as(rules).doesNotContain("notes.txt", "gitcfg",
                    "key.txt", "k2", "y.yaml", "c.txt", "env-copy", "config", ".env", ".ssh", ".git/", "secret");
            String found = h.call(CodingTools.SEARCH, "pattern", "CANARY|OPENAI|plain").text();
            assertThat(found).as(rules).doesNotContain("notes", "gitcfg", "key", "k2", "yaml", "c.txt", "env");
        }
        assertThat(h.call(CodingTools.SEARCH, "pattern", "plain").text())
                .isEqualTo("src/a.txt:1: plain a\nsrc/b.txt:1: plain a\n2 matches in 2 files");
    }

    @Test
    void twoNamesOfAnOrdinaryFileStayReadable() {
        assertThat(h.call(CodingTools.READ, "path", "src/b.txt").text()).isEqualTo("     1\tplain a\n");
        assertThat(h.call(CodingTools.STAT, "path", "src/a.txt").text()).startsWith("path: src/a.txt\ntype: file\n");
    }

    @Test
    void aGitignoreThatIsAFifoDoesNotHangSearch() throws Exception {
        Files.writeString(h.ws.resolve(".gitignore"), "");
        Path gi = h.ws.resolve("docs/.gitignore");
        assertThat(new ProcessBuilder("mkfifo", gi.toString()).start().waitFor()).isZero();
        try {
            assertThat(h.call(CodingTools.SEARCH, "pattern", "plain a").text()).endsWith("2 matches in 2 files");
        } finally {
            Files.delete(gi);
        }
    }

    @Test
    void errorsNameNoAbsolutePath() throws Exception {
        String longName = "a".repeat(300);
        assertThat(h.refused(CodingTools.READ, "path", longName))
                .isEqualTo("cannot look at '" + "a".repeat(100) + "...': File name too long");
        for (String tool : List.of(CodingTools.WRITE, CodingTools.MKDIR, CodingTools.STAT, CodingTools.DELETE)) {
            h.refused(tool, "path", "src/" + longName + "/x", "content", "x");
            h.refused(tool, "path", longName, "content", "x");
        }
        h.refused(CodingTools.COPY, "from", "src/a.txt", "to", longName);
        h.refused(CodingTools.MOVE, "from", "src/a.txt", "to", "src/" + longName);
        assertThat(h.refused(CodingTools.READ, "path", "/etc/passwd")).isEqualTo("path '/etc/passwd' is outside the workspace");
        h.assertNothingOutsideChanged();
    }
}
