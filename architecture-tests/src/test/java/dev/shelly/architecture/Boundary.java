package dev.shelly.architecture;

import com.tngtech.archunit.core.domain.Dependency;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaCodeUnit;
import com.tngtech.archunit.core.domain.JavaField;
import com.tngtech.archunit.core.domain.JavaGenericArrayType;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.domain.JavaParameterizedType;
import com.tngtech.archunit.core.domain.JavaType;
import com.tngtech.archunit.core.domain.JavaTypeVariable;
import com.tngtech.archunit.core.domain.JavaWildcardType;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import java.io.IOException;
import java.io.InputStream;
import java.lang.module.ModuleDescriptor;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The rules of the API boundary, each a function from what a module holds to the list of its
 * violations, every one naming the offending package or type and saying what to do. The tests
 * run them on the real modules ({@link ApiBoundaryTest}) and on small planted violations
 * ({@link BoundaryRulesTest}).
 *
 * <p>The convention: every package's {@code package-info.java} Javadoc begins with {@code API:},
 * {@code SPI:} or {@code Internal:}; internal packages are named {@code *.internal}; a module's
 * {@code module-info.java} exports every API and SPI package, and an internal package at most to
 * named Shelly modules ({@code exports x.internal to dev.shelly.y}).
 */
final class Boundary {
    private Boundary() {}

    /** What a package declares itself to be. */
    enum Kind {
        API, SPI, INTERNAL
    }

    /** Third-party libraries whose types must not appear in an exported signature, by package prefix. */
    static final Map<String, String> FOREIGN = foreign();

    private static Map<String, String> foreign() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("okhttp3.", "OkHttp");
        m.put("okio.", "Okio (OkHttp)");
        m.put("reactor.", "Reactor");
        m.put("org.reactivestreams.", "Reactive Streams (Reactor)");
        m.put("kotlin.", "Kotlin");
        m.put("kotlinx.", "Kotlin");
        m.put("io.modelcontextprotocol.", "the MCP SDK");
        return m;
    }

    private static final Pattern MARKER = Pattern.compile("[\\s*]*(API|SPI|Internal):");

    /**
     * One Shelly module as the rules see it.
     *
     * @param artifact the artifact id (shelly-tools)
     * @param name the JPMS module name (dev.shelly.tools)
     * @param kinds each package of the module and what its package-info declares (empty: nothing)
     * @param exportedTo each exported package and the modules it is exported to (empty: to everyone)
     * @param classes the module's compiled classes
     */
    record ModuleView(String artifact, String name, Map<String, Optional<Kind>> kinds,
            Map<String, Set<String>> exportedTo, JavaClasses classes) {

        boolean exportedToAll(String pkg) {
            return exportedTo.containsKey(pkg) && exportedTo.get(pkg).isEmpty();
        }

        boolean readableBy(String pkg, String module) {
            return exportedToAll(pkg) || exportedTo.getOrDefault(pkg, Set.of()).contains(module);
        }
    }

    /** Reads one library module of the build: its sources, its module-info.class and its classes. */
    static ModuleView read(Path root, String artifact) {
        Path folder = root.resolve(artifact);
        Path classes = folder.resolve("target/classes");
        Path moduleInfo = classes.resolve("module-info.class");
        if (!Files.isRegularFile(moduleInfo)) {
            throw new IllegalStateException(artifact + " has no compiled module-info (" + root.relativize(moduleInfo)
                    + "): add src/main/java/module-info.java, and build the module before architecture-tests");
        }
        ModuleDescriptor descriptor;
        try (InputStream in = Files.newInputStream(moduleInfo)) {
            descriptor = ModuleDescriptor.read(in);
        } catch (IOException e) {
            throw new IllegalStateException("cannot read " + moduleInfo + ": " + e.getMessage(), e);
        }
        Map<String, Set<String>> exported = new TreeMap<>();
        for (ModuleDescriptor.Exports e : descriptor.exports()) {
            exported.put(e.source(), e.isQualified() ? new TreeSet<>(e.targets()) : Set.of());
        }
        JavaClasses imported = new ClassFileImporter().importPath(classes);
        return new ModuleView(artifact, descriptor.name(), kinds(folder.resolve("src/main/java")), exported, imported);
    }

    /** Every package with a Java source under a source root, and what its package-info declares. */
    static Map<String, Optional<Kind>> kinds(Path sourceRoot) {
        Map<String, Optional<Kind>> kinds = new TreeMap<>();
        List<Path> dirs;
        try (Stream<Path> walk = Files.walk(sourceRoot)) {
            dirs = walk.filter(p -> p.toString().endsWith(".java") && !p.getFileName().toString().equals("module-info.java"))
                    .map(Path::getParent).distinct().toList();
        } catch (IOException e) {
            throw new IllegalStateException("cannot list " + sourceRoot + ": " + e.getMessage(), e);
        }
        for (Path dir : dirs) {
            String pkg = sourceRoot.relativize(dir).toString().replace('\\', '/').replace('/', '.');
            kinds.put(pkg, kind(dir.resolve("package-info.java")));
        }
        return kinds;
    }

    /** The kind a package-info's Javadoc opens with: API:, SPI: or Internal: as its first word. */
    static Optional<Kind> kind(Path packageInfo) {
        if (!Files.isRegularFile(packageInfo)) {
            return Optional.empty();
        }
        try {
            String text = Files.readString(packageInfo);
            int doc = text.indexOf("/**");
            if (doc < 0) {
                return Optional.empty();
            }
            Matcher m = MARKER.matcher(text.substring(doc + 3));
            return m.lookingAt() ? Optional.of(Kind.valueOf(m.group(1).toUpperCase(Locale.ROOT))) : Optional.empty();
        } catch (IOException e) {
            throw new IllegalStateException("cannot read " + packageInfo + ": " + e.getMessage(), e);
        }
    }

    // ---- rule (a) ----

    /**
     * Every package has a package-info that says API, SPI or internal; internal packages and only
     * they are named {@code *.internal}; an API or SPI package is exported to everyone; an internal
     * package is not.
     */
    static List<String> everyPackageDeclaresItsKind(ModuleView module) {
        List<String> violations = new ArrayList<>();
        module.kinds().forEach((pkg, kind) -> {
            boolean internalName = pkg.endsWith(".internal") || pkg.contains(".internal.");
            if (kind.isEmpty()) {
                violations.add("%s: package %s has no package-info.java whose Javadoc begins with API:, SPI: or Internal:"
                        .formatted(module.artifact(), pkg));
            } else if (kind.get() == Kind.INTERNAL && !internalName) {
                violations.add("%s: package %s says Internal: but is not named *.internal; rename it %s.internal or declare it API/SPI"
                        .formatted(module.artifact(), pkg, pkg));
            } else if (kind.get() != Kind.INTERNAL && internalName) {
                violations.add("%s: package %s is named internal but its package-info says %s:"
                        .formatted(module.artifact(), pkg, kind.get()));
            } else if (kind.get() != Kind.INTERNAL && !module.exportedToAll(pkg)) {
                violations.add("%s: %s package %s is not exported; add 'exports %s;' to module %s"
                        .formatted(module.artifact(), kind.get(), pkg, pkg, module.name()));
            }
        });
        return violations;
    }

    // ---- rule (b) ----

    /**
     * A public type lives only in an API or SPI package, or in an internal package that the
     * module does not export, or exports only to named Shelly modules.
     */
    static List<String> publicTypesOnlyInDeclaredPackages(ModuleView module) {
        List<String> violations = new ArrayList<>();
        for (JavaClass type : module.classes()) {
            if (!visibleOutsideItsPackage(type)) {
                continue;
            }
            String pkg = type.getPackageName();
            Optional<Kind> kind = module.kinds().getOrDefault(pkg, Optional.empty());
            if (kind.isEmpty()) {
                violations.add("public type %s is in package %s, which declares neither API, SPI nor internal"
                        .formatted(type.getName(), pkg));
            } else if (kind.get() == Kind.INTERNAL) {
                if (module.exportedToAll(pkg)) {
                    violations.add("public type %s is in internal package %s, which module %s exports to everyone"
                            .formatted(type.getName(), pkg, module.name()));
                } else {
                    for (String target : module.exportedTo().getOrDefault(pkg, Set.of())) {
                        if (!target.startsWith("dev.shelly.")) {
                            violations.add("public type %s is in internal package %s, which module %s exports to %s, not a Shelly module"
                                    .formatted(type.getName(), pkg, module.name(), target));
                        }
                    }
                }
            } else if (!module.exportedToAll(pkg)) {
                violations.add("public type %s is in %s package %s, which module %s does not export"
                        .formatted(type.getName(), kind.get(), pkg, module.name()));
            }
        }
        return violations;
    }

    /** A public top-level type, or a public/protected member type of one. */
    static boolean visibleOutsideItsPackage(JavaClass type) {
        if (type.isAnonymousClass() || type.isLocalClass()) {
            return false;
        }
        Set<JavaModifier> mods = type.getModifiers();
        boolean visible = mods.contains(JavaModifier.PUBLIC) || type.isNestedClass() && mods.contains(JavaModifier.PROTECTED);
        if (!visible) {
            return false;
        }
        Optional<JavaClass> outer = type.getEnclosingClass();
        return outer.isEmpty() || visibleOutsideItsPackage(outer.get());
    }

    // ---- rule (c) ----

    /**
     * No OkHttp, Okio, Reactor, Reactive Streams, Kotlin or MCP SDK type appears in a public or
     * protected signature of an exported package: supertypes, type parameters, fields, constructors,
     * methods (parameters, return types, thrown types), generic arguments included.
     */
    static List<String> noForeignTypesInExportedSignatures(ModuleView module) {
        List<String> violations = new ArrayList<>();
        for (JavaClass type : module.classes()) {
            String pkg = type.getPackageName();
            if (!module.exportedTo().containsKey(pkg) || !visibleOutsideItsPackage(type)) {
                continue;
            }
            String where = module.exportedToAll(pkg) ? "exported package " + pkg : "package " + pkg + " (exported to "
                    + String.join(", ", module.exportedTo().get(pkg)) + ")";
            type.getSuperclass().ifPresent(s -> check(violations, type.getName() + " extends", s, where));
            for (JavaType i : type.getInterfaces()) {
                check(violations, type.getName() + " implements", i, where);
            }
            for (JavaTypeVariable<?> v : type.getTypeParameters()) {
                check(violations, type.getName() + " type parameter " + v.getName(), v, where);
            }
            for (JavaField field : type.getFields()) {
                if (exposed(field.getModifiers())) {
                    check(violations, "field " + type.getName() + "." + field.getName(), field.getType(), where);
                }
            }
            for (JavaCodeUnit unit : type.getCodeUnits()) {
                if (!exposed(unit.getModifiers())) {
                    continue;
                }
                String name = type.getName() + "." + (unit.isConstructor() ? type.getSimpleName() : unit.getName())
                        + "(" + String.join(", ", unit.getRawParameterTypes().stream().map(JavaClass::getName).toList()) + ")";
                check(violations, name + " returns", unit.getReturnType(), where);
                for (JavaType p : unit.getParameterTypes()) {
                    check(violations, name + " takes", p, where);
                }
                for (JavaClass t : unit.getThrowsClause().getTypes()) {
                    check(violations, name + " throws", t, where);
                }
                for (JavaTypeVariable<?> v : unit.getTypeParameters()) {
                    check(violations, name + " type parameter " + v.getName(), v, where);
                }
            }
        }
        return violations;
    }

    private static boolean exposed(Set<JavaModifier> mods) {
        return mods.contains(JavaModifier.PUBLIC) || mods.contains(JavaModifier.PROTECTED);
    }

    private static void check(List<String> violations, String what, JavaType type, String where) {
        for (String name : mentioned(type, new HashSet<>())) {
            for (Map.Entry<String, String> f : FOREIGN.entrySet()) {
                if (name.startsWith(f.getKey())) {
                    violations.add("%s %s: %s type %s appears in the API of %s".formatted(what,
                            type.getName(), f.getValue(), name, where));
                }
            }
        }
    }

    /** Every class a type mentions: itself, its generic arguments, bounds and array components. */
    private static Set<String> mentioned(JavaType type, Set<JavaType> seen) {
        Set<String> names = new TreeSet<>();
        if (!seen.add(type)) {
            return names;
        }
        switch (type) {
            case JavaParameterizedType p -> {
                names.addAll(mentioned(p.toErasure(), seen));
                for (JavaType a : p.getActualTypeArguments()) {
                    names.addAll(mentioned(a, seen));
                }
            }
            case JavaWildcardType w -> {
                w.getUpperBounds().forEach(b -> names.addAll(mentioned(b, seen)));
                w.getLowerBounds().forEach(b -> names.addAll(mentioned(b, seen)));
            }
            case JavaTypeVariable<?> v -> v.getUpperBounds().forEach(b -> names.addAll(mentioned(b, seen)));
            case JavaGenericArrayType a -> names.addAll(mentioned(a.getComponentType(), seen));
            case JavaClass c -> names.add(c.isArray() ? c.getBaseComponentType().getName() : c.getName());
            default -> names.add(type.toErasure().getName());
        }
        return names;
    }

    // ---- rule (d) ----

    /**
     * A module's classes use only packages of the Shelly modules its arrows reach (those of
     * {@link ModuleDependencyTest#ALLOWED}, followed transitively, as Maven does), and another
     * module's package only when that module exports it to everyone or to this module by name.
     */
    static List<String> noUpwardOrInternalDependencies(ModuleView module, List<ModuleView> all,
            Map<String, Set<String>> allowed) {
        Map<String, ModuleView> owners = new TreeMap<>();
        for (ModuleView other : all) {
            for (String pkg : other.kinds().keySet()) {
                owners.put(pkg, other);
            }
        }
        Set<String> violations = new TreeSet<>();
        Set<String> mayUse = reach(module.artifact(), allowed);
        for (JavaClass type : module.classes()) {
            for (Dependency d : type.getDirectDependenciesFromSelf()) {
                JavaClass target = d.getTargetClass().isArray() ? d.getTargetClass().getBaseComponentType() : d.getTargetClass();
                ModuleView owner = owners.get(target.getPackageName());
                if (owner == null || owner.artifact().equals(module.artifact())) {
                    continue;
                }
                String user = d.getOriginClass().getName();
                if (!mayUse.contains(owner.artifact())) {
                    violations.add("%s uses %s: %s may not depend on %s (its arrows reach: %s)".formatted(user,
                            target.getName(), module.artifact(), owner.artifact(), mayUse));
                } else if (!owner.readableBy(target.getPackageName(), module.name())) {
                    violations.add("%s uses %s: package %s is internal to %s and not exported to %s".formatted(user,
                            target.getName(), target.getPackageName(), owner.name(), module.name()));
                }
            }
        }
        return new ArrayList<>(violations);
    }

    /** The modules an artifact's arrows reach, directly or through others. */
    private static Set<String> reach(String artifact, Map<String, Set<String>> allowed) {
        Set<String> reached = new TreeSet<>();
        List<String> todo = new ArrayList<>(allowed.getOrDefault(artifact, Set.of()));
        while (!todo.isEmpty()) {
            String next = todo.removeLast();
            if (reached.add(next)) {
                todo.addAll(allowed.getOrDefault(next, Set.of()));
            }
        }
        return reached;
    }

    // ---- the size of the API ----

    /**
     * The public top-level types of the packages a module exports to everyone: the names a user of
     * the module can write. Member types, package-private types and the types of internal packages
     * (exported to no one or to named Shelly modules only) do not count.
     */
    static List<String> exportedTopLevelTypes(ModuleView module) {
        List<String> names = new ArrayList<>();
        for (JavaClass type : module.classes()) {
            if (type.isTopLevelClass() && type.getModifiers().contains(JavaModifier.PUBLIC)
                    && !type.getSimpleName().equals("package-info") && !type.getSimpleName().equals("module-info")
                    && module.exportedToAll(type.getPackageName())) {
                names.add(type.getName());
            }
        }
        names.sort(null);
        return names;
    }
}
