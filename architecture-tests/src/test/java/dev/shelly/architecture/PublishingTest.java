package dev.shelly.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * What Maven Central asks of every pom Shelly publishes, read from the poms themselves: the
 * metadata (name, description, url, licenses, developers, scm, issue tracker) as each pom's
 * effective model has it, sources and javadoc jars in the normal build with Javadoc warnings
 * failing it, a release profile that signs, pinned plugin versions, and the API check against a
 * released baseline.
 *
 * <p>Published are the parent pom, the BOM and every library the BOM lists; every other module
 * (examples, benchmarks, the shelly command, these tests) is marked {@code maven.deploy.skip}.
 */
class PublishingTest {

    /** The project's one address: every published pom, and its scm, name it. */
    private static final String PROJECT_URL = "https://github.com/shelly-dev/shelly-java";
    private static final String PARENT = "shelly-parent";

    @Test
    void everyPublishedPomCarriesTheMetadataMavenCentralRequires() {
        Path root = Poms.root();
        Element parent = Poms.project(root.resolve("pom.xml"));
        List<String> missing = new ArrayList<>();
        for (Map.Entry<String, Element> pom : published(root).entrySet()) {
            String where = pom.getKey();
            Element project = pom.getValue();
            Optional<Element> inherited = inheritsFromParent(project) ? Optional.of(parent) : Optional.empty();
            String artifactId = Poms.findText(project, "artifactId").orElseThrow();

            // Maven does not inherit <name>; a description inherited from the parent would describe the
            // whole project, not this artifact: each pom states both itself.
            Poms.findText(project, "name").ifPresentOrElse(n -> {}, () -> missing.add(where + ": no <name>"));
            Poms.findText(project, "description").ifPresentOrElse(d -> {},
                    () -> missing.add(where + ": no <description> of its own"));

            String url = effectiveUrl(project, inherited, artifactId, "url");
            if (!PROJECT_URL.equals(url)) {
                missing.add(where + ": <url> is " + url + " in the effective pom, not " + PROJECT_URL);
            }

            List<Element> licenses = listOf(project, inherited, "licenses", "license");
            if (licenses.isEmpty()) {
                missing.add(where + ": no <licenses>");
            }
            for (Element license : licenses) {
                if (Poms.findText(license, "name").isEmpty() || Poms.findText(license, "url").isEmpty()) {
                    missing.add(where + ": a <license> without <name> and <url>");
                }
            }

            List<Element> developers = listOf(project, inherited, "developers", "developer");
            if (developers.isEmpty()) {
                missing.add(where + ": no <developers>");
            }
            for (Element developer : developers) {
                if (Poms.findText(developer, "name").isEmpty()) {
                    missing.add(where + ": a <developer> without <name>");
                }
            }

            for (String part : List.of("connection", "developerConnection", "url", "tag")) {
                String value = effectiveUrl(project, inherited, artifactId, "scm", part);
                if (value == null) {
                    missing.add(where + ": no <scm><" + part + ">");
                } else if (part.equals("url") && !value.equals(PROJECT_URL)) {
                    missing.add(where + ": <scm><url> is " + value + " in the effective pom, not " + PROJECT_URL);
                } else if (part.endsWith("onnection") && !value.startsWith("scm:git:")) {
                    missing.add(where + ": <scm><" + part + "> " + value + " is not a scm:git: address");
                } else if (part.endsWith("onnection") && !value.endsWith("/shelly-java.git")
                        && !value.endsWith(":shelly-dev/shelly-java.git")) {
                    missing.add(where + ": <scm><" + part + "> " + value + " has the module's name appended");
                }
            }

            Optional<String> issues = Poms.findText(project, "issueManagement", "url")
                    .or(() -> inherited.flatMap(p -> Poms.findText(p, "issueManagement", "url")));
            if (issues.isEmpty()) {
                missing.add(where + ": no <issueManagement><url>");
            }
        }
        assertThat(missing).as("metadata Maven Central requires, missing or wrong in a published pom").isEmpty();
    }

    @Test
    void theBomStatesTheSameMetadataAsTheParent() {
        Path root = Poms.root();
        Element parent = Poms.project(root.resolve("pom.xml"));
        Element bom = Poms.project(root.resolve("shelly-bom/pom.xml"));
        assertThat(Poms.find(bom, "parent")).as("shelly-bom has no parent, so it states its metadata itself").isEmpty();
        for (String part : List.of("url", "licenses", "developers", "scm", "issueManagement")) {
            assertThat(Poms.find(bom, part).map(PublishingTest::normalized))
                    .as("shelly-bom's <%s>, as the parent's", part)
                    .isPresent()
                    .isEqualTo(Poms.find(parent, part).map(PublishingTest::normalized));
        }
    }

    @Test
    void onlyTheLibrariesTheBomListsAreDeployed() {
        Path root = Poms.root();
        Set<String> inBom = new TreeSet<>();
        for (Poms.Dependency d : Poms.module(root, "shelly-bom").managed()) {
            if (d.groupId().equals("dev.shelly")) {
                inBom.add(d.artifactId());
            }
        }
        List<String> wrong = new ArrayList<>();
        for (String folder : Poms.moduleFolders(root)) {
            if (folder.equals("shelly-bom")) {
                continue;
            }
            Path pom = root.resolve(folder).resolve("pom.xml");
            String artifactId = Poms.module(root, folder).artifactId();
            boolean skipped = Poms.property(pom, "maven.deploy.skip").orElse("false").equals("true");
            if (inBom.contains(artifactId) && skipped) {
                wrong.add(artifactId + " is in the BOM but sets maven.deploy.skip");
            }
            if (!inBom.contains(artifactId) && !skipped) {
                wrong.add(artifactId + " is not in the BOM, so not published, but does not set maven.deploy.skip");
            }
            if (inBom.contains(artifactId)) {
                for (String skip : List.of("maven.source.skip", "maven.javadoc.skip", "gpg.skip")) {
                    if (Poms.property(pom, skip).isPresent()) {
                        wrong.add(artifactId + " is published but sets " + skip);
                    }
                }
            }
        }
        assertThat(wrong).isEmpty();
    }

    @Test
    void theNormalBuildAttachesSourcesAndJavadocAndAJavadocWarningFailsIt() {
        Element parent = Poms.project(Poms.root().resolve("pom.xml"));
        Element build = Poms.find(parent, "build").orElseThrow();
        assertThat(goals(buildPlugin(build, "maven-source-plugin")))
                .as("the root pom's build runs maven-source-plugin's jar-no-fork").contains("jar-no-fork");
        assertThat(goals(buildPlugin(build, "maven-javadoc-plugin")))
                .as("the root pom's build runs maven-javadoc-plugin's jar").contains("jar");
        Element javadoc = managedPlugin(parent, "maven-javadoc-plugin");
        assertThat(Poms.findText(javadoc, "configuration", "doclint")).as("javadoc's doclint").contains("all");
        assertThat(Poms.findText(javadoc, "configuration", "failOnWarnings"))
                .as("javadoc's failOnWarnings").contains("true");
        assertThat(buildPlugin(build, "maven-gpg-plugin"))
                .as("the normal build signs nothing, so it needs no gpg").isEmpty();
    }

    @Test
    void theReleaseProfileSignsEveryArtifactOfTheParentAndOfTheBom() {
        Path root = Poms.root();
        Element parent = Poms.project(root.resolve("pom.xml"));
        String gpgVersion = Poms.findText(managedPlugin(parent, "maven-gpg-plugin"), "version").orElseThrow();
        for (String pom : List.of("pom.xml", "shelly-bom/pom.xml")) {
            Element release = profile(Poms.project(root.resolve(pom)), "release")
                    .orElseThrow(() -> new AssertionError(pom + " has no profile release"));
            Optional<Element> gpg = buildPlugin(Poms.find(release, "build").orElseThrow(), "maven-gpg-plugin");
            assertThat(goals(gpg)).as("%s: the release profile runs maven-gpg-plugin's sign", pom).contains("sign");
            for (Element execution : executions(gpg)) {
                assertThat(Poms.findText(execution, "phase").orElse("verify"))
                        .as("%s: gpg signs in verify, before install and deploy", pom).isEqualTo("verify");
            }
            assertThat(Poms.findText(gpg.orElseThrow(), "version").orElse(gpgVersion))
                    .as("%s: maven-gpg-plugin's version, as the root pom manages it", pom).isEqualTo(gpgVersion);
        }
    }

    @Test
    void everyPluginVersionIsPinned() {
        Path root = Poms.root();
        Element parent = Poms.project(root.resolve("pom.xml"));
        Set<String> managed = new TreeSet<>();
        for (Element plugin : Poms.children(Poms.find(parent, "build", "pluginManagement", "plugins").orElseThrow(),
                "plugin")) {
            managed.add(Poms.findText(plugin, "artifactId").orElseThrow());
        }
        List<String> poms = new ArrayList<>(List.of("pom.xml"));
        for (String folder : Poms.moduleFolders(root)) {
            poms.add(folder + "/pom.xml");
        }
        List<String> unpinned = new ArrayList<>();
        for (String pom : poms) {
            Element project = Poms.project(root.resolve(pom));
            boolean underParent = inheritsFromParent(project) || pom.equals("pom.xml");
            NodeList plugins = project.getElementsByTagName("plugin");
            for (int i = 0; i < plugins.getLength(); i++) {
                Element plugin = (Element) plugins.item(i);
                String artifactId = Poms.findText(plugin, "artifactId").orElse("?");
                Optional<String> version = Poms.findText(plugin, "version");
                if (version.isEmpty() && !(underParent && managed.contains(artifactId))) {
                    unpinned.add(pom + ": " + artifactId + " has no version (and the root pom manages none)");
                }
                version.filter(v -> v.contains("SNAPSHOT") || v.startsWith("[") || v.startsWith("(")
                                || v.equals("LATEST") || v.equals("RELEASE"))
                        .ifPresent(v -> unpinned.add(pom + ": " + artifactId + " " + v + " is not one release"));
            }
        }
        assertThat(unpinned).isEmpty();
    }

    @Test
    void theApiCheckIsSkippedUntilABaselineIsNamedAndThenFailsOnAnIncompatibleChange() {
        Element parent = Poms.project(Poms.root().resolve("pom.xml"));
        Path pom = Poms.root().resolve("pom.xml");
        assertThat(Poms.property(pom, "japicmp.skip")).as("japicmp is skipped by default").contains("true");
        assertThat(Poms.property(pom, "shelly.api.baseline"))
                .as("no released baseline before 0.1.0: shelly.api.baseline stays unset").isEmpty();

        Optional<Element> japicmp = buildPlugin(Poms.find(parent, "build").orElseThrow(), "japicmp-maven-plugin");
        assertThat(goals(japicmp)).as("japicmp's cmp runs in every build (and skips)").contains("cmp");
        Element configuration = executions(japicmp).stream()
                .flatMap(e -> Poms.find(e, "configuration").stream())
                .findFirst().orElseThrow();
        assertThat(Poms.findText(configuration, "oldVersion", "dependency", "version"))
                .as("the baseline japicmp compares with").contains("${shelly.api.baseline}");
        assertThat(Poms.findText(configuration, "parameter", "breakBuildOnBinaryIncompatibleModifications"))
                .contains("true");
        assertThat(Poms.findText(configuration, "parameter", "breakBuildOnSourceIncompatibleModifications"))
                .contains("true");

        Element baseline = profile(parent, "api-baseline").orElseThrow();
        assertThat(Poms.findText(baseline, "activation", "property", "name"))
                .as("the profile that turns the check on is active when a baseline is named")
                .contains("shelly.api.baseline");
        assertThat(Poms.findText(baseline, "properties", "japicmp.skip")).contains("false");
    }

    /** The parent, the BOM and every library the BOM lists, by where their pom is. */
    private static Map<String, Element> published(Path root) {
        Map<String, Element> poms = new LinkedHashMap<>();
        poms.put("pom.xml (" + PARENT + ")", Poms.project(root.resolve("pom.xml")));
        poms.put("shelly-bom/pom.xml", Poms.project(root.resolve("shelly-bom/pom.xml")));
        for (Poms.Dependency d : Poms.module(root, "shelly-bom").managed()) {
            if (d.groupId().equals("dev.shelly")) {
                poms.put(d.artifactId() + "/pom.xml", Poms.project(root.resolve(d.artifactId()).resolve("pom.xml")));
            }
        }
        assertThat(poms).hasSizeGreaterThan(2);
        return poms;
    }

    private static boolean inheritsFromParent(Element project) {
        return Poms.findText(project, "parent", "artifactId").filter(PARENT::equals).isPresent();
    }

    /**
     * A URL as the effective pom has it: the pom's own, else the parent's with the artifactId
     * appended, as Maven does unless the parent says {@code child.*.inherit.append.path="false"}.
     */
    private static String effectiveUrl(Element project, Optional<Element> parent, String artifactId, String... path) {
        Optional<String> own = Poms.findText(project, path);
        if (own.isPresent() || parent.isEmpty()) {
            return own.orElse(null);
        }
        Optional<String> inherited = Poms.findText(parent.get(), path);
        if (inherited.isEmpty()) {
            return null;
        }
        String attribute = path.length == 1
                ? "child.project." + path[0] + ".inherit.append.path"
                : "child." + path[0] + "." + path[1] + ".inherit.append.path";
        Element holder = path.length == 1 ? parent.get() : Poms.find(parent.get(), path[0]).orElseThrow();
        boolean appends = !holder.getAttribute(attribute).equals("false");
        return appends ? inherited.get() + "/" + artifactId : inherited.get();
    }

    /** A list element's entries, the pom's own or else inherited. */
    private static List<Element> listOf(Element project, Optional<Element> parent, String list, String entry) {
        List<Element> own = Poms.find(project, list).map(l -> Poms.children(l, entry)).orElse(List.of());
        if (!own.isEmpty() || parent.isEmpty()) {
            return own;
        }
        return Poms.find(parent.get(), list).map(l -> Poms.children(l, entry)).orElse(List.of());
    }

    private static Optional<Element> buildPlugin(Element build, String artifactId) {
        return Poms.find(build, "plugins").stream()
                .flatMap(plugins -> Poms.children(plugins, "plugin").stream())
                .filter(p -> Poms.findText(p, "artifactId").orElse("").equals(artifactId))
                .findFirst();
    }

    private static Element managedPlugin(Element project, String artifactId) {
        return buildPlugin(Poms.find(project, "build", "pluginManagement").orElseThrow(), artifactId)
                .orElseThrow(() -> new AssertionError("the root pom manages no plugin " + artifactId));
    }

    private static List<Element> executions(Optional<Element> plugin) {
        return plugin.flatMap(p -> Poms.find(p, "executions"))
                .map(e -> Poms.children(e, "execution")).orElse(List.of());
    }

    private static List<String> goals(Optional<Element> plugin) {
        List<String> goals = new ArrayList<>();
        for (Element execution : executions(plugin)) {
            Poms.find(execution, "goals").ifPresent(g -> Poms.children(g, "goal")
                    .forEach(goal -> goals.add(goal.getTextContent().strip())));
        }
        return goals;
    }

    private static Optional<Element> profile(Element project, String id) {
        return Poms.find(project, "profiles").stream()
                .flatMap(p -> Poms.children(p, "profile").stream())
                .filter(p -> Poms.findText(p, "id").orElse("").equals(id))
                .findFirst();
    }

    /** An element's text content with its whitespace collapsed, for comparing two poms' copies. */
    private static String normalized(Element element) {
        return element.getTextContent().replaceAll("\\s+", " ").strip();
    }
}
