package dev.shelly.architecture;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

/** Reads what the architecture checks need from the project's pom files. */
final class Poms {
    private Poms() {}

    /** A dependency as a pom declares it. */
    record Dependency(String groupId, String artifactId, String scope, boolean optional) {}

    /** One module's pom. */
    record Module(String folder, String artifactId, String packaging, Optional<String> moduleName,
            List<Dependency> dependencies, List<Dependency> managed) {}

    static Path root() {
        return Path.of(System.getProperty("shelly.root", "..")).toAbsolutePath().normalize();
    }

    static List<String> moduleFolders(Path root) {
        Element project = read(root.resolve("pom.xml"));
        List<String> folders = new ArrayList<>();
        for (Element modules : children(project, "modules")) {
            for (Element module : children(modules, "module")) {
                folders.add(module.getTextContent().strip());
            }
        }
        return folders;
    }

    static Module module(Path root, String folder) {
        Element project = read(root.resolve(folder).resolve("pom.xml"));
        String packaging = text(project, "packaging").orElse("jar");
        Optional<String> moduleName = children(project, "properties").stream()
                .flatMap(p -> children(p, "module.name").stream())
                .map(e -> e.getTextContent().strip())
                .findFirst();
        List<Dependency> deps = new ArrayList<>();
        for (Element dependencies : children(project, "dependencies")) {
            deps.addAll(dependencies(dependencies));
        }
        List<Dependency> managed = new ArrayList<>();
        for (Element dm : children(project, "dependencyManagement")) {
            for (Element dependencies : children(dm, "dependencies")) {
                managed.addAll(dependencies(dependencies));
            }
        }
        return new Module(folder, text(project, "artifactId").orElseThrow(), packaging, moduleName, deps, managed);
    }

    /** The project's version, as the root pom declares it. */
    static String version(Path root) {
        return text(read(root.resolve("pom.xml")), "version").orElseThrow();
    }

    /** A property of a pom, or empty when it has none by that name. */
    static Optional<String> property(Path pom, String name) {
        return children(read(pom), "properties").stream()
                .flatMap(p -> children(p, name).stream())
                .map(e -> e.getTextContent().strip())
                .findFirst();
    }

    /** The version the root pom's plugin management gives a plugin. */
    static String pluginVersion(Path root, String artifactId) {
        Element project = read(root.resolve("pom.xml"));
        for (Element build : children(project, "build")) {
            for (Element pm : children(build, "pluginManagement")) {
                for (Element plugins : children(pm, "plugins")) {
                    for (Element plugin : children(plugins, "plugin")) {
                        if (text(plugin, "artifactId").orElse("").equals(artifactId)) {
                            return text(plugin, "version").orElseThrow();
                        }
                    }
                }
            }
        }
        throw new IllegalStateException("the root pom manages no plugin " + artifactId);
    }

    /** The root element of a pom. */
    static Element project(Path pom) {
        return read(pom);
    }

    /** The first element down a path of child names ({@code "scm", "url"}), or empty when one is missing. */
    static Optional<Element> find(Element from, String... path) {
        Element at = from;
        for (String name : path) {
            List<Element> next = children(at, name);
            if (next.isEmpty()) {
                return Optional.empty();
            }
            at = next.getFirst();
        }
        return Optional.of(at);
    }

    /** The stripped text down a path of child names, or empty when an element is missing or blank. */
    static Optional<String> findText(Element from, String... path) {
        return find(from, path).map(e -> e.getTextContent().strip()).filter(t -> !t.isEmpty());
    }

    private static List<Dependency> dependencies(Element dependencies) {
        List<Dependency> deps = new ArrayList<>();
        for (Element d : children(dependencies, "dependency")) {
            deps.add(new Dependency(
                    text(d, "groupId").orElse(""),
                    text(d, "artifactId").orElse(""),
                    text(d, "scope").orElse("compile"),
                    text(d, "optional").orElse("false").equals("true")));
        }
        return deps;
    }

    private static Element read(Path pom) {
        try (InputStream in = Files.newInputStream(pom)) {
            DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
            factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
            Document doc = factory.newDocumentBuilder().parse(in);
            return doc.getDocumentElement();
        } catch (IOException | javax.xml.parsers.ParserConfigurationException | org.xml.sax.SAXException e) {
            throw new IllegalStateException("cannot read " + pom + ": " + e.getMessage(), e);
        }
    }

    /** The child elements of one name, in document order. */
    static List<Element> children(Element parent, String name) {
        List<Element> found = new ArrayList<>();
        NodeList nodes = parent.getChildNodes();
        for (int i = 0; i < nodes.getLength(); i++) {
            Node n = nodes.item(i);
            if (n instanceof Element e && e.getTagName().equals(name)) {
                found.add(e);
            }
        }
        return found;
    }

    private static Optional<String> text(Element parent, String name) {
        return children(parent, name).stream().map(e -> e.getTextContent().strip()).findFirst();
    }
}
