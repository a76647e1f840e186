package dev.shelly.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Builds a user's project that imports {@code shelly-bom} and depends on Shelly libraries without
 * a version, and checks its dependency tree with the enforcer: with every library, that it
 * converges ({@code dependencyConvergence}: the BOM must give users the third-party versions
 * Shelly is built and tested with, the MCP SDK's Jackson lifted to Shelly's, and so on); with
 * {@code shelly-agent} or {@code shelly-engine} alone, that it carries none of the heavy jars that
 * only MCP or the HTTP provider base need ({@code bannedDependencies}).
 *
 * <p>The consumer resolves Shelly's artifacts from a local repository of its own, filled with the
 * poms (and jars, when built) of this checkout, chained in front of the build's local repository
 * ({@code maven.repo.local.tail}, Maven 3.9) for the third-party artifacts, so nothing is installed
 * into the shared local repository. It runs the Maven that runs the build, offline when the build
 * is.
 */
class BomConsumerTest {
    /** The groups whose jars only MCP (the SDK, Reactor, the networknt validator) brings. */
    private static final List<String> MCP_GROUPS = List.of("io.modelcontextprotocol.sdk", "io.projectreactor",
            "org.reactivestreams", "com.networknt");
    /** The groups whose jars only the HTTP provider base (OkHttp, Okio, Kotlin) brings. */
    private static final List<String> HTTP_GROUPS = List.of("com.squareup.okhttp3", "com.squareup.okio",
            "org.jetbrains.kotlin", "org.jetbrains");

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void aProjectThatImportsTheBomGetsAConvergingDependencyTree(@TempDir Path tmp) throws Exception {
        List<String> libraries = shellyLibraries();
        assertThat(libraries).as("the BOM lists the modules cut by dependency weight")
                .contains("shelly-mcp", "shelly-provider-spi", "shelly-testing");
        String output = consumer(tmp, libraries, "<dependencyConvergence/>").passes();
        assertThat(output).contains("Rule 0: org.apache.maven.enforcer.rules.dependency.DependencyConvergence passed");
    }

    /**
     * What a user of {@code shelly-agent} alone downloads, as Maven resolves it: no MCP SDK,
     * Reactor, networknt validator, OkHttp, Okio or Kotlin jar, in any scope.
     */
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void shellyAgentAloneBringsNeitherMcpNorOkHttp(@TempDir Path tmp) throws Exception {
        List<String> banned = new ArrayList<>(MCP_GROUPS);
        banned.addAll(HTTP_GROUPS);
        String output = consumer(tmp, List.of("shelly-agent"), banned(banned)).passes();
        assertThat(output).contains("Rule 0: org.apache.maven.enforcer.rules.dependency.BannedDependencies passed");
    }

    /** An application picks a logging binding without a version: the BOM gives the one the project tests with. */
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void theBomManagesTheSlf4jBindings(@TempDir Path tmp) throws Exception {
        String output = consumer(tmp, List.of("shelly-agent", "org.slf4j:slf4j-simple"), "<dependencyConvergence/>")
                .passes();
        assertThat(output).contains("Rule 0: org.apache.maven.enforcer.rules.dependency.DependencyConvergence passed");
        assertThat(Poms.module(Poms.root(), "shelly-bom").managed()).extracting(Poms.Dependency::artifactId)
                .contains("slf4j-api", "slf4j-simple");
    }

    /** The engine has shelly-mcp as an optional dependency: a user of the engine gets no MCP jar. */
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void shellyEngineAloneBringsNoMcp(@TempDir Path tmp) throws Exception {
        String output = consumer(tmp, List.of("shelly-engine"), banned(MCP_GROUPS)).passes();
        assertThat(output).contains("Rule 0: org.apache.maven.enforcer.rules.dependency.BannedDependencies passed");
    }

    /** The rule of the two tests above does see a banned jar: shelly-mcp brings the MCP SDK. */
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void theWeightRuleFailsOnAModuleThatBringsMcp(@TempDir Path tmp) throws Exception {
        String output = consumer(tmp, List.of("shelly-mcp"), banned(MCP_GROUPS)).fails();
        assertThat(output).contains("io.modelcontextprotocol.sdk:mcp:jar", "banned via the exclude/include list");
    }

    private static String banned(List<String> groups) {
        StringBuilder excludes = new StringBuilder();
        for (String group : groups) {
            excludes.append("<exclude>").append(group).append("</exclude>");
        }
        return "<bannedDependencies><excludes>" + excludes + "</excludes></bannedDependencies>";
    }

    static List<String> shellyLibraries() {
        List<String> libraries = new ArrayList<>();
        for (Poms.Dependency d : Poms.module(Poms.root(), "shelly-bom").managed()) {
            if (d.groupId().equals("dev.shelly")) {
                libraries.add(d.artifactId());
            }
        }
        return libraries;
    }

    /** A user's project importing the BOM, depending on some Shelly libraries, with enforcer rules. */
    private static Consumer consumer(Path tmp, List<String> dependencies, String rules) throws IOException {
        Path root = Poms.root();
        String version = Poms.version(root);
        Path repo = Files.createDirectories(tmp.resolve("repo"));
        publish(repo, "shelly-parent", version, root.resolve("pom.xml"), null);
        for (String artifactId : shellyLibraries()) {
            Path folder = root.resolve(artifactId);
            publish(repo, artifactId, version, folder.resolve("pom.xml"),
                    folder.resolve("target").resolve(artifactId + "-" + version + ".jar"));
        }
        publish(repo, "shelly-bom", version, root.resolve("shelly-bom").resolve("pom.xml"), null);
        Path project = Files.createDirectories(tmp.resolve("consumer"));
        Files.writeString(project.resolve("pom.xml"), consumerPom(version, dependencies,
                Poms.pluginVersion(root, "maven-enforcer-plugin"), rules), StandardCharsets.UTF_8);
        return new Consumer(root, repo, project, tmp.resolve("consumer.log"));
    }

    /** Runs {@code validate} on a consumer project with the Maven of this build. */
    private record Consumer(Path root, Path repo, Path project, Path log) {
        String passes() throws IOException, InterruptedException {
            Run run = run();
            assertThat(run.exit()).as("the consumer build passed its enforcer rules:%n%s", run.output()).isZero();
            return run.output();
        }

        String fails() throws IOException, InterruptedException {
            Run run = run();
            assertThat(run.exit()).as("the consumer build failed its enforcer rules:%n%s", run.output()).isNotZero();
            return run.output();
        }

        private record Run(int exit, String output) {}

        private Run run() throws IOException, InterruptedException {
            List<String> command = new ArrayList<>(List.of(maven(root), "-B", "-f", project.resolve("pom.xml").toString(),
                    "-Dmaven.repo.local=" + repo, "-Dstyle.color=never"));
            String userRepo = System.getProperty("shelly.localRepository", "");
            if (!userRepo.isBlank() && !userRepo.startsWith("${")) {
                command.add("-Dmaven.repo.local.tail=" + userRepo);
            }
            if (System.getProperty("shelly.offline", "").equals("offline:true")) {
                command.add("-o");
            }
            command.add("validate");
            Process process = new ProcessBuilder(command).directory(project.toFile())
                    .redirectErrorStream(true).redirectOutput(log.toFile()).start();
            boolean ended = process.waitFor(100, TimeUnit.SECONDS);
            if (!ended) {
                process.destroyForcibly();
            }
            String output = Files.readString(log);
            assertThat(ended).as("the consumer build ended in time:%n%s", output).isTrue();
            return new Run(process.exitValue(), output);
        }
    }

    /** Places a pom (and its jar, when there is one) where a local repository keeps it. */
    static void publish(Path repo, String artifactId, String version, Path pom, Path jar) throws IOException {
        Path dir = Files.createDirectories(repo.resolve("dev/shelly").resolve(artifactId).resolve(version));
        Files.copy(pom, dir.resolve(artifactId + "-" + version + ".pom"), StandardCopyOption.REPLACE_EXISTING);
        if (jar != null && Files.isRegularFile(jar)) {
            Files.copy(jar, dir.resolve(artifactId + "-" + version + ".jar"), StandardCopyOption.REPLACE_EXISTING);
        }
    }

    /** The Maven running this build, else the project's wrapper. */
    static String maven(Path root) {
        boolean windows = System.getProperty("os.name", "").toLowerCase(Locale.ROOT).startsWith("windows");
        String home = System.getProperty("shelly.mavenHome", "");
        if (!home.isBlank() && !home.startsWith("${")) {
            Path mvn = Path.of(home, "bin", windows ? "mvn.cmd" : "mvn");
            if (Files.isRegularFile(mvn)) {
                return mvn.toString();
            }
        }
        return root.resolve(windows ? "mvnw.cmd" : "mvnw").toString();
    }

    private static String consumerPom(String version, List<String> libraries, String enforcerVersion, String rules) {
        StringBuilder deps = new StringBuilder();
        for (String library : libraries) {
            // A Shelly artifactId, or group:artifact of a third-party jar the BOM manages; never a version.
            int colon = library.indexOf(':');
            deps.append("""
                        <dependency>
                          <groupId>%s</groupId>
                          <artifactId>%s</artifactId>
                        </dependency>
                    """.formatted(colon < 0 ? "dev.shelly" : library.substring(0, colon), library.substring(colon + 1)));
        }
        return """
                <?xml version="1.0" encoding="UTF-8"?>
                <project xmlns="http://maven.apache.org/POM/4.0.0">
                  <modelVersion>4.0.0</modelVersion>
                  <groupId>example</groupId>
                  <artifactId>bom-consumer</artifactId>
                  <version>1</version>
                  <packaging>pom</packaging>
                  <dependencyManagement>
                    <dependencies>
                      <dependency>
                        <groupId>dev.shelly</groupId>
                        <artifactId>shelly-bom</artifactId>
                        <version>%s</version>
                        <type>pom</type>
                        <scope>import</scope>
                      </dependency>
                    </dependencies>
                  </dependencyManagement>
                  <dependencies>
                %s  </dependencies>
                  <build>
                    <plugins>
                      <plugin>
                        <groupId>org.apache.maven.plugins</groupId>
                        <artifactId>maven-enforcer-plugin</artifactId>
                        <version>%s</version>
                        <executions>
                          <execution>
                            <id>converge</id>
                            <goals><goal>enforce</goal></goals>
                            <configuration>
                              <rules>%s</rules>
                            </configuration>
                          </execution>
                        </executions>
                      </plugin>
                    </plugins>
                  </build>
                </project>
                """.formatted(version, deps, enforcerVersion, rules);
    }
}
