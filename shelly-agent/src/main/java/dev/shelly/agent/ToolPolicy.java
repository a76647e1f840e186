package dev.shelly.agent;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Which tools an agent may call without asking: every tool name is allowed, denied, or must be
 * asked about, by exact name or by a glob pattern ({@code *} for any run of characters,
 * {@code ?} for one).
 *
 * <pre>{@code
 * ToolPolicy policy = ToolPolicy.builder()
 *         .allow("fs_read*", "list_agents")
 *         .ask("fs_write*", "mcp_github_*", "delegate")
 *         .deny("shell_exec")
 *         .otherwise(ToolPolicy.Permission.ALLOW)
 *         .build();
 * }</pre>
 *
 * <p>A rule naming a tool exactly wins over every pattern; among patterns the first added that
 * matches wins; a tool no rule matches gets the {@linkplain Builder#otherwise default}
 * ({@link Permission#ALLOW} unless set). A policy applies to every kind of tool alike: Java
 * tools, MCP tools, the built-ins ({@code delegate}, {@code list_agents}, {@code load_skill}) and
 * {@link AskUser#NAME}. Policies take effect through {@link Approvals}.
 */
public final class ToolPolicy {
    /** Allows every tool. */
    public static final ToolPolicy ALLOW_ALL = builder().build();

    /** What a policy says about a tool. */
    public enum Permission {
        /** The call runs. */
        ALLOW,
        /** The call does not run; the model reads that the policy denied it. */
        DENY,
        /** The run pauses until a person decides. */
        ASK
    }

    /**
     * One rule.
     *
     * @param pattern an exact tool name, or a glob with {@code *} and {@code ?}
     * @param permission what the rule says
     */
    public record Rule(String pattern, Permission permission) {
        /** Validates the rule. */
        public Rule {
            checkPattern(pattern, "ToolPolicy rule pattern");
            if (permission == null) {
                throw new IllegalArgumentException("ToolPolicy rule '" + pattern + "' needs a permission");
            }
        }

        /**
         * Whether the pattern is an exact name (holds no {@code *} or {@code ?}).
         *
         * @return true for an exact name
         */
        public boolean exact() {
            return pattern.indexOf('*') < 0 && pattern.indexOf('?') < 0;
        }
    }

    private final List<Rule> rules;
    private final List<Pattern> globs;
    private final Permission otherwise;

    private ToolPolicy(List<Rule> rules, Permission otherwise) {
        this.rules = List.copyOf(rules);
        List<Pattern> g = new ArrayList<>(rules.size());
        for (Rule r : rules) {
            g.add(r.exact() ? null : glob(r.pattern()));
        }
        this.globs = g;
        this.otherwise = otherwise;
    }

    /**
     * Starts building a policy.
     *
     * @return a builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * What the policy says about a tool.
     *
     * @param tool the tool's name
     * @return the permission
     */
    public Permission decide(String tool) {
        for (Rule r : rules) {
            if (r.exact() && r.pattern().equals(tool)) {
                return r.permission();
            }
        }
        for (int i = 0; i < rules.size(); i++) {
            Pattern p = globs.get(i);
            if (p != null && p.matcher(tool).matches()) {
                return rules.get(i).permission();
            }
        }
        return otherwise;
    }

    /**
     * The rules, in the order they were added.
     *
     * @return the rules
     */
    public List<Rule> rules() {
        return rules;
    }

    /**
     * What a tool no rule matches gets.
     *
     * @return the default permission
     */
    public Permission otherwise() {
        return otherwise;
    }

    @Override
    public String toString() {
        return "ToolPolicy" + rules + ", otherwise " + otherwise;
    }

    static void checkPattern(String pattern, String where) {
        if (pattern == null || pattern.isBlank()) {
            throw new IllegalArgumentException(where + " must not be null or blank");
        }
        for (int i = 0; i < pattern.length(); i++) {
            char c = pattern.charAt(i);
            if (!(Character.isLetterOrDigit(c) || c == '_' || c == '-' || c == '.' || c == ':' || c == '*' || c == '?')) {
                throw new IllegalArgumentException(where + " '" + pattern + "' holds '" + c + "' at " + i
                        + "; a tool pattern holds letters, digits, '_', '-', '.', ':' and the wildcards '*' and '?'");
            }
        }
    }

    private static Pattern glob(String pattern) {
        StringBuilder re = new StringBuilder(pattern.length() + 8);
        for (int i = 0; i < pattern.length(); i++) {
            char c = pattern.charAt(i);
            switch (c) {
                case '*' -> re.append(".*");
                case '?' -> re.append('.');
                default -> re.append(Pattern.quote(String.valueOf(c)));
            }
        }
        return Pattern.compile(re.toString());
    }

    /** Collects a policy's rules. */
    public static final class Builder {
        private final List<Rule> rules = new ArrayList<>();
        private Permission otherwise = Permission.ALLOW;

        private Builder() {}

        /**
         * Tools that run without asking.
         *
         * @param patterns exact names or globs
         * @return this builder
         */
        public Builder allow(String... patterns) {
            return add(Permission.ALLOW, patterns, "allow");
        }

        /**
         * Tools that never run.
         *
         * @param patterns exact names or globs
         * @return this builder
         */
        public Builder deny(String... patterns) {
            return add(Permission.DENY, patterns, "deny");
        }

        /**
         * Tools that run only after a person approves the call.
         *
         * @param patterns exact names or globs
         * @return this builder
         */
        public Builder ask(String... patterns) {
            return add(Permission.ASK, patterns, "ask");
        }

        /**
         * Adds one rule.
         *
         * @param pattern an exact name or a glob
         * @param permission what it says
         * @return this builder
         */
        public Builder rule(String pattern, Permission permission) {
            rules.add(new Rule(pattern, permission));
            return this;
        }

        /**
         * What a tool no rule matches gets; {@link Permission#ALLOW} unless set.
         *
         * @param value the default
         * @return this builder
         */
        public Builder otherwise(Permission value) {
            if (value == null) {
                throw new IllegalArgumentException("ToolPolicy otherwise must not be null");
            }
            this.otherwise = value;
            return this;
        }

        private Builder add(Permission permission, String[] patterns, String what) {
            if (patterns == null) {
                throw new IllegalArgumentException("ToolPolicy " + what + " patterns must not be null");
            }
            for (int i = 0; i < patterns.length; i++) {
                checkPattern(patterns[i], "ToolPolicy " + what + " pattern [" + i + "]");
            }
            for (String p : patterns) {
                rules.add(new Rule(p, permission));
            }
            return this;
        }

        /**
         * Builds the policy.
         *
         * @return the policy
         */
        public ToolPolicy build() {
            return new ToolPolicy(rules, otherwise);
        }
    }
}
