package dev.shelly.engine.config;

import dev.shelly.agent.context.ContextStrategy;
import dev.shelly.agent.Agent;
import dev.shelly.agent.Approvals;
import dev.shelly.agent.ToolPolicy;
import dev.shelly.modeladapter.RateLimit;
import dev.shelly.modeladapter.RetryPolicy;
import dev.shelly.modeladapter.spi.InvalidSettingException;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;
import tools.jackson.core.JsonParser;
import tools.jackson.databind.DeserializationContext;
import tools.jackson.databind.ValueDeserializer;
import tools.jackson.databind.module.SimpleModule;
import tools.jackson.databind.util.StdConverter;

/**
 * How a section of {@code config.yaml} becomes the runtime value it configures: a section is read
 * into one of the records here (its fields, each checked with the message and the field name the
 * file spells), which then makes the runtime value ({@link RetryPolicy}, {@link RateLimit},
 * {@link ToolPolicy}, the context strategies, ...). The config records hold those runtime values
 * themselves, so what the file says reaches the agent or the provider as it is, and the same value
 * may be given in code.
 */
final class Bindings {
    private Bindings() {}

    /** Registers every binding: a section of each shape is read into its record, then converted. */
    static SimpleModule register(SimpleModule module) {
        bind(module, Retry.class, RetryPolicy.class, Retry::policy);
        bind(module, Rate.class, RateLimit.class, Rate::limit);
        bind(module, Approval.class, AgentConfig.Approval.class, Approval::approval);
        bind(module, ApprovalsSection.class, EngineConfig.ApprovalSettings.class, ApprovalsSection::settings);
        bind(module, OffloadSection.class, AgentConfig.Offloading.class, OffloadSection::settings);
        bind(module, OAuthSection.class, McpServerConfig.OAuth.class, OAuthSection::oauth);
        return module;
    }

    private static <S, T> void bind(SimpleModule module, Class<S> section, Class<T> target, Function<S, T> make) {
        module.addDeserializer(target, new ValueDeserializer<T>() {
            @Override
            public T deserialize(JsonParser p, DeserializationContext ctxt) {
                return make.apply(ctxt.readValue(p, section));
            }
        });
    }

    /** {@code retry:} of a provider; null fields take {@link ProviderConfig#DEFAULT_RETRY}'s values. */
    record Retry(Integer maxAttempts, Duration initialDelay, Duration maxDelay) {
        Retry {
            boolean maxGiven = maxDelay != null;
            maxAttempts = Fields.positive(maxAttempts == null ? 3 : maxAttempts, "max_attempts");
            initialDelay = initialDelay == null ? Duration.ofSeconds(1) : initialDelay;
            maxDelay = maxDelay == null ? Duration.ofSeconds(30) : maxDelay;
            if (initialDelay.isNegative()) {
                throw new InvalidSettingException("initial_delay", "must not be negative, was " + initialDelay);
            }
            if (maxDelay.compareTo(initialDelay) < 0) {
                throw new InvalidSettingException(maxGiven ? "max_delay" : "initial_delay", "max_delay (" + maxDelay
                        + ") must not be shorter than initial_delay (" + initialDelay + ")");
            }
        }

        RetryPolicy policy() {
            return ProviderConfig.DEFAULT_RETRY.withMaxAttempts(maxAttempts).withDelays(initialDelay, maxDelay);
        }
    }

    /** {@code rate_limit:} of a provider. */
    record Rate(Integer requestsPerMinute, Long tokensPerMinute) {
        Rate {
            if (requestsPerMinute == null) {
                throw new InvalidSettingException("requests_per_minute", "missing required field");
            }
            Fields.positive(requestsPerMinute, "requests_per_minute");
            Fields.positive(tokensPerMinute, "tokens_per_minute");
        }

        RateLimit limit() {
            return new RateLimit(requestsPerMinute, tokensPerMinute == null ? 0 : tokensPerMinute);
        }
    }

    /** {@code approval:} of an agent, and {@code default_policy:} of {@code approvals:}. */
    record Approval(List<String> allow, List<String> ask, List<String> deny, String otherwise, Boolean askUser) {
        Approval {
            allow = patterns(allow, "allow");
            ask = patterns(ask, "ask");
            deny = patterns(deny, "deny");
            otherwise = otherwise == null ? "allow" : otherwise.strip().toLowerCase(Locale.ROOT);
            if (!List.of("allow", "ask", "deny").contains(otherwise)) {
                throw new InvalidSettingException("otherwise", "expected allow, ask or deny, got '" + otherwise + "'");
            }
        }

        private static List<String> patterns(List<String> values, String field) {
            if (values == null) {
                return List.of();
            }
            for (int i = 0; i < values.size(); i++) {
                try {
                    ToolPolicy.builder().rule(values.get(i), ToolPolicy.Permission.ALLOW);
                } catch (IllegalArgumentException e) {
                    throw new InvalidSettingException(field + "[" + i + "]", values.get(i) == null
                            ? "a tool name or pattern must not be empty"
                            : e.getMessage().replace("ToolPolicy rule pattern ", "tool pattern "));
                }
            }
            return List.copyOf(values);
        }

        ToolPolicy policy() {
            return ToolPolicy.builder().deny(deny.toArray(String[]::new)).ask(ask.toArray(String[]::new))
                    .allow(allow.toArray(String[]::new))
                    .otherwise(ToolPolicy.Permission.valueOf(otherwise.toUpperCase(Locale.ROOT))).build();
        }

        AgentConfig.Approval approval() {
            return new AgentConfig.Approval(policy(), Boolean.TRUE.equals(askUser));
        }
    }

    /** The top-level {@code approvals:} section. */
    record ApprovalsSection(Duration timeout, String onTimeout, Approval defaultPolicy) {
        ApprovalsSection {
            onTimeout = onTimeout == null ? "deny" : onTimeout.strip().toLowerCase(Locale.ROOT);
            if (!onTimeout.equals("deny") && !onTimeout.equals("cancel")) {
                throw new InvalidSettingException("on_timeout", "expected deny or cancel, got '" + onTimeout + "'");
            }
            if (defaultPolicy != null && defaultPolicy.askUser() != null) {
                throw new InvalidSettingException("default_policy.ask_user", "ask_user is chosen per agent, in the agent's "
                        + "approval: section");
            }
        }

        EngineConfig.ApprovalSettings settings() {
            return new EngineConfig.ApprovalSettings(timeout, Approvals.OnTimeout.valueOf(onTimeout.toUpperCase(Locale.ROOT)),
                    defaultPolicy == null ? null : defaultPolicy.policy());
        }
    }

    /**
     * {@code oauth:} of an MCP server: the grant and the consent mode by their names in the file,
     * the URLs as text; the checks of the settings together are {@link McpServerConfig.OAuth}'s.
     */
    record OAuthSection(String clientId, String clientSecret, String clientName, String grant, List<String> scopes,
            String resource, String redirectUri, String consent) {
        McpServerConfig.OAuth oauth() {
            return new McpServerConfig.OAuth(clientId, clientSecret, clientName,
                    choice(grant, "grant", McpServerConfig.OAuth.Grant.class), scopes, url(resource, "resource"),
                    url(redirectUri, "redirect_uri"), choice(consent, "consent", McpServerConfig.OAuth.Consent.class));
        }

        private static URI url(String text, String field) {
            return text == null ? null : URI.create(Fields.httpUrl(text, field));
        }

        private static <E extends Enum<E>> E choice(String text, String field, Class<E> type) {
            if (text == null) {
                return null;
            }
            List<String> names = Arrays.stream(type.getEnumConstants()).map(e -> e.name().toLowerCase(Locale.ROOT)).toList();
            String given = text.strip().toLowerCase(Locale.ROOT);
            if (!names.contains(given)) {
                throw new InvalidSettingException(field, "expected " + String.join(" or ", names) + ", got '" + text + "'");
            }
            return Enum.valueOf(type, given.toUpperCase(Locale.ROOT));
        }
    }

    /** {@code context.tools:}: which tools the model is offered. */
    record Tools(List<String> allow, List<String> deny) {
        Tools {
            allow = Fields.names(allow, "allow");
            deny = Fields.names(deny, "deny");
            allow = allow == null ? List.of() : allow;
            deny = deny == null ? List.of() : deny;
            if (allow.isEmpty() && deny.isEmpty()) {
                throw new InvalidSettingException("allow", "name the tools to allow or to deny");
            }
            for (int i = 0; i < deny.size(); i++) {
                if (deny.get(i).strip().equals("*")) {
                    throw new InvalidSettingException("deny[" + i + "]", "'*' would offer no tool");
                }
            }
        }
    }

    /** {@code context.budget:}: token and time budgets for a run. */
    record BudgetSection(Long maxTokens, Duration maxTime, Double warnAt) {
        BudgetSection {
            Fields.positive(maxTokens, "max_tokens");
            if (maxTime != null && (maxTime.isZero() || maxTime.isNegative())) {
                throw new InvalidSettingException("max_time", "expected a positive duration, got " + maxTime);
            }
            if (maxTokens == null && maxTime == null) {
                throw new InvalidSettingException("max_tokens", "set max_tokens or max_time (or both)");
            }
            if (warnAt != null && !(warnAt > 0 && warnAt < 1)) {
                throw new InvalidSettingException("warn_at", "expected a number above 0 and below 1, got " + warnAt);
            }
        }

        ContextStrategy strategy() {
            return ContextStrategy.budget(maxTokens == null ? 0 : maxTokens, maxTime, warnAt == null ? 0.8 : warnAt);
        }
    }

    /** {@code context.trim_tool_results:}; by default the 2 newest results stay whole, older ones keep 1000 characters. */
    record Trim(Integer keepRecent, Integer maxChars) {
        Trim {
            Fields.notNegative(keepRecent, "keep_recent");
            Fields.positive(maxChars, "max_chars");
        }

        ContextStrategy strategy() {
            return ContextStrategy.trimToolResults(keepRecent == null ? 2 : keepRecent, maxChars == null ? 1_000 : maxChars);
        }
    }

    /** {@code context.mask_observations:}; by default the 3 newest results stay whole. */
    record Mask(Integer keepRecent, String placeholder) {
        Mask {
            Fields.notNegative(keepRecent, "keep_recent");
            Fields.notBlank(placeholder, "placeholder");
        }

        ContextStrategy strategy() {
            int keep = keepRecent == null ? 3 : keepRecent;
            return placeholder == null ? ContextStrategy.maskObservations(keep) : ContextStrategy.maskObservations(keep, placeholder);
        }
    }

    /**
     * {@code context.offload:}; {@code dir} stays relative to the project until the engine
     * resolves it ({@link AgentConfig.Context#strategies}).
     */
    record OffloadSection(Integer minChars, Integer previewChars, Integer pageChars, String dir) {
        OffloadSection {
            Fields.positive(minChars, "min_chars");
            Fields.notNegative(previewChars, "preview_chars");
            Fields.positive(pageChars, "page_chars");
            Fields.notBlank(dir, "dir");
            int min = minChars == null ? 4_000 : minChars;
            if (min < 2) {
                throw new InvalidSettingException("min_chars", "expected at least 2, got " + min);
            }
            if (previewChars != null && previewChars >= min) {
                throw new InvalidSettingException("preview_chars", "must be below min_chars (" + min + "), got " + previewChars);
            }
            if (pageChars != null && pageChars >= min) {
                throw new InvalidSettingException("page_chars", "must be below min_chars (" + min + "), got " + pageChars);
            }
        }

        AgentConfig.Offloading settings() {
            int min = minChars == null ? 4_000 : minChars;
            return new AgentConfig.Offloading(min, previewChars == null ? Math.min(500, min / 2) : previewChars,
                    pageChars == null ? Math.min(2_000, min / 2) : pageChars, dir == null ? null : Path.of(dir));
        }
    }

    /** {@code context.sliding_window:}; by default 20 turns stay in view, sliding by half of them, summarised. */
    record Window(Integer keepTurns, Integer stride, Boolean summarize) {
        Window {
            Fields.positive(keepTurns, "keep_turns");
            Fields.positive(stride, "stride");
        }

        ContextStrategy strategy() {
            int keep = keepTurns == null ? 20 : keepTurns;
            return ContextStrategy.slidingWindow(keep, stride == null ? Math.max(1, keep / 2) : stride,
                    summarize == null || summarize, null, null);
        }
    }

    /** {@code context.compaction:}; the shares default to Compaction's. */
    record CompactionSection(Double threshold, Double keepRecent, String instructions) {
        CompactionSection {
            if (threshold != null && !(threshold > 0 && threshold <= 1)) {
                throw new InvalidSettingException("threshold", "expected a number above 0 and at most 1, got " + threshold);
            }
            double t = threshold == null ? 0.8 : threshold;
            if (keepRecent != null && !(keepRecent > 0 && keepRecent < t)) {
                throw new InvalidSettingException("keep_recent", "expected a number above 0 and below threshold (" + t
                        + "), got " + keepRecent);
            }
            Fields.notBlank(instructions, "instructions");
        }

        ContextStrategy strategy() {
            double t = threshold == null ? 0.8 : threshold;
            double keep = keepRecent != null ? keepRecent : Math.min(0.3, t / 2);
            return ContextStrategy.compaction(t, keep, null, instructions);
        }
    }

    /** {@code context.loop_detection:}; by default 3 identical replies in a row are a loop. */
    record Loop(Integer repeats) {
        Loop {
            if (repeats != null && repeats < 2) {
                throw new InvalidSettingException("repeats", "expected at least 2, got " + repeats);
            }
        }
    }

    /** {@code context.failure_reflection:}; by default 3 failed results in a row ask for reflection. */
    record Failures(Integer failures) {
        Failures {
            Fields.positive(failures, "failures");
        }
    }

    /** Reads {@code max_iterations}: a positive whole number, or {@code unlimited}. */
    static final class Iterations extends ValueDeserializer<Integer> {
        @Override
        public Integer deserialize(JsonParser p, DeserializationContext ctxt) {
            String text = p.getString() == null ? "" : p.getString().strip();
            if (text.equalsIgnoreCase("unlimited")) {
                return Agent.UNLIMITED;
            }
            try {
                int value = Integer.parseInt(text);
                if (value > 0) {
                    return value;
                }
            } catch (NumberFormatException e) {
                // reported below
            }
            throw new InvalidSettingException("", "expected a positive whole number or 'unlimited', got '" + text + "'");
        }
    }

    // Each context section is read into its record (the checks and messages of the file), then
    // made into the strategy it stands for; the strategies' own types are the agent module's.

    /** {@code context.tools:} as a tool scope. */
    static final class ToolsStrategy extends StdConverter<Tools, ContextStrategy> {
        @Override
        public ContextStrategy convert(Tools t) {
            return ContextStrategy.toolScope(t.allow(), t.deny());
        }
    }

    /** {@code context.budget:} as a budget. */
    static final class BudgetStrategy extends StdConverter<BudgetSection, ContextStrategy> {
        @Override
        public ContextStrategy convert(BudgetSection b) {
            return b.strategy();
        }
    }

    /** {@code context.trim_tool_results:} as trimming. */
    static final class TrimStrategy extends StdConverter<Trim, ContextStrategy> {
        @Override
        public ContextStrategy convert(Trim t) {
            return t.strategy();
        }
    }

    /** {@code context.mask_observations:} as masking. */
    static final class MaskStrategy extends StdConverter<Mask, ContextStrategy> {
        @Override
        public ContextStrategy convert(Mask m) {
            return m.strategy();
        }
    }

    /** {@code context.sliding_window:} as a sliding window. */
    static final class WindowStrategy extends StdConverter<Window, ContextStrategy> {
        @Override
        public ContextStrategy convert(Window w) {
            return w.strategy();
        }
    }

    /** {@code context.compaction:} as compaction. */
    static final class CompactionStrategy extends StdConverter<CompactionSection, ContextStrategy> {
        @Override
        public ContextStrategy convert(CompactionSection c) {
            return c.strategy();
        }
    }

    /** {@code context.loop_detection:} as loop detection. */
    static final class LoopStrategy extends StdConverter<Loop, ContextStrategy> {
        @Override
        public ContextStrategy convert(Loop l) {
            return ContextStrategy.loopDetection(l.repeats() == null ? 3 : l.repeats());
        }
    }

    /** {@code context.failure_reflection:} as failure reflection. */
    static final class FailuresStrategy extends StdConverter<Failures, ContextStrategy> {
        @Override
        public ContextStrategy convert(Failures f) {
            return ContextStrategy.failureReflection(f.failures() == null ? 3 : f.failures());
        }
    }
}
