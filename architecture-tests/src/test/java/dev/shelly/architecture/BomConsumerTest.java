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
 * Builds a user's project that imports {@code shelly-bom} and depends on every Shelly library
 * without a version, and checks with the enforcer's {@code dependencyConvergence} that its
 * dependency tree converges: the BOM must give users the third-party versions Shelly is built and
 * tested with (the MCP SDK's Jackson lifted to Shelly's, and so on).
 *
 * <p>The consumer resolves Shelly's artifacts from a local repository of its own, filled with the
 * poms (and jars, when built) of this checkout, chained in front of the build's local repository
 * ({@code maven.repo.local.tail}, Maven 3.9) for the third-party artifacts, so nothing is installed
 * into the shared local repository. It runs the Maven that runs the build, offline when the build
 * is.
 */
class BomConsumerTest {

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void aProjectThatImportsTheBomGetsAConvergingDependencyTree(@TempDir Path tmp) throws Exception {
        Path root = Poms.root();
        String version = Poms.version(root);
        Path repo = Files.createDirectories(tmp.resolve("repo"));
        publish(repo, "shelly-parent", version, root.resolve("pom.xml"), null);
        List<String> libraries = new ArrayList<>();
        for (Poms.Dependency d : Poms.module(root, "shelly-bom").managed()) {
            if (d.groupId().equals("dev.shelly")) {
                libraries.add(d.artifactId());
                Path folder = root.resolve(d.artifactId());
                publish(repo, d.artifactId(), version, folder.resolve("pom.xml"),
                        folder.resolve("target").resolve(d.artifactId() + "-" + version + ".jar"));
            }
        }
        publish(repo, "shelly-bom", version, root.resolve("shelly-bom").resolve("pom.xml"), null);
        Path consumer = Files.createDirectories(tmp.resolve("consumer"));
        Files.writeString(consumer.resolve("pom.xml"), consumerPom(version, libraries,
                Poms.pluginVersion(root, "maven-enforcer-plugin")), StandardCharsets.UTF_8);

        List<String> command = new ArrayList<>(List.of(maven(root), "-B", "-f", consumer.resolve("pom.xml").toString(),
                "-Dmaven.repo.local=" + repo, "-Dstyle.color=never"));
        String userRepo = System.getProperty("shelly.localRepository", "");
        if (!userRepo.isBlank() && !userRepo.startsWith("${")) {
            command.add("-Dmaven.repo.local.tail=" + userRepo);
        }
        if (System.getProperty("shelly.offline", "").equals("offline:true")) {
            command.add("-o");
        }
        command.add("validate");
        Path log = tmp.resolve("consumer.log");
        Process process = new ProcessBuilder(command).directory(consumer.toFile())
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        boolean ended = process.waitFor(100, TimeUnit.SECONDS);
        if (!ended) {
            process.destroyForcibly();
        }
        String output = Files.readString(log);
        assertThat(ended).as("the consumer build ended in time:%n%s", output).isTrue();
        assertThat(process.exitValue()).as("the consumer build passed the convergence check:%n%s", output).isZero();
        assertThat(output).contains("Rule 0: org.apache.maven.enforcer.rules.dependency.DependencyConvergence passed");
    }

    /** Places a pom (and its jar, when there is one) where a local repository keeps it. */
    private static void publish(Path repo, String artifactId, String version, Path pom, Path jar) throws IOException {
        Path dir = Files.createDirectories(repo.resolve("dev/shelly").resolve(artifactId).resolve(version));
        Files.copy(pom, dir.resolve(artifactId + "-" + version + ".pom"), StandardCopyOption.REPLACE_EXISTING);
        if (jar != null && Files.isRegularFile(jar)) {
            Files.copy(jar, dir.resolve(artifactId + "-" + version + ".jar"), StandardCopyOption.REPLACE_EXISTING);
        }
    }

    /** The Maven running this build, else the project's wrapper. */
    private static String maven(Path root) {
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

    private static String consumerPom(String version, List<String> libraries, String enforcerVersion) {
        StringBuilder deps = new StringBuilder();
        for (String artifactId : libraries) {
            deps.append("""
                        <dependency>
                          <groupId>dev.shelly</groupId>
                          <artifactId>%s</artifactId>
                        </dependency>
                    """.formatted(artifactId));
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
                              <rules><dependencyConvergence/></rules>
                            </configuration>
                          </execution>
                        </executions>
                      </plugin>
                    </plugins>
                  </build>
                </project>
                """.formatted(version, deps, enforcerVersion);
    }
}
