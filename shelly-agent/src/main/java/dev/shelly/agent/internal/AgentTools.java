package dev.shelly.agent.internal;

import dev.shelly.agent.RunContext;
import dev.shelly.chats.Chat;
import dev.shelly.chats.Message;
import dev.shelly.chats.Role;
import dev.shelly.chats.ToolCall;
import dev.shelly.chats.ToolDefinition;
import dev.shelly.chats.ToolResult;
import dev.shelly.skills.Skill;
import dev.shelly.tools.ToolBox;
import dev.shelly.tools.ToolContext;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The tools of one run: the agent's toolboxes, searched in order, then the built-in
 * {@code load_skill} (with skills) and {@code list_agents} and {@code delegate} (when the run
 * may delegate).
 *
 * <p>A skill whose frontmatter names {@code allowed-tools} limits the tools once it is loaded:
 * from the model call after a {@code load_skill} of it answered without error, to the end of the
 * turn (until the next user message of the run's chat), only the tools the loaded skills allow
 * together are offered, besides {@code load_skill} and the context strategies' tools; a call of
 * another tool is refused before it is decided on, saying which skill allows what. Loaded skills
 * are read from the chat, so a turn taken up after a pause keeps its limit. A skill without a
 * description, inlined in the system prompt, is never loaded and limits nothing.
 *
 * <p>A skill may bring tools of its own ({@link AgentSpec#skillTools()}): they are started when a
 * {@code load_skill} of it is answered, or when the run starts for the skills it already follows
 * (loaded earlier in the turn, or inlined for want of a description), and stopped when the run
 * ends ({@link #stopBrought()}). They are searched after the agent's toolboxes and the built-ins,
 * and are under the loaded skills' limit like the agent's own tools.
 *
 * <p>The built-ins are offered from constant definitions and their toolbox is made only when
 * the model calls one, so an agent that never delegates (most delegated children) pays nothing
 * for them.
 */
final class AgentTools {
    private static final Logger LOG = LoggerFactory.getLogger(AgentTools.class);
    /** How the part of a {@code load_skill} result about tools that did not start begins. */
    private static final String NOT_STARTED = "Not available:";

    private final Run run;
    private final List<ToolBox> boxes;
    private final List<ToolDefinition> builtins;
    /** How many of {@link #boxes} are the agent's own; the others are its context strategies'. */
    private final int own;
    /** Whether a skill of the agent names allowed-tools, so that loading it limits the tools. */
    private final boolean limiting;
    /** Starts the tools a skill brings, or null when the agent's skills bring none. */
    private final AgentSpec.SkillStarter starter;
    /**
     * Guards {@link #started} and {@link #ended}; held only to reserve, record or take what was
     * started, never while tools start (an MCP server may wait minutes for the user's consent) or
     * stop, so that skills' tools start in parallel and the run's end never waits on a start.
     * Null, as {@link #started} is, when the agent's skills bring no tools.
     */
    private final ReentrantLock starting;
    /**
     * What was started for each skill in this run, by skill name, reserved before its start so
     * that each skill's tools start once per run; guarded by {@link #starting}. A future is done
     * once its tools are recorded as brought.
     */
    private final Map<String, CompletableFuture<AgentSpec.Brought>> started;
    /** The toolboxes the run's skills brought, in the order started; replaced whole on each start. */
    private volatile List<ToolBox> brought = List.of();
    /** Whether the run has ended and stopped what its skills brought; guarded by {@link #starting}. */
    private boolean ended;

    AgentTools(Run run, List<ToolBox> boxes, ToolDefinition skillTool) {
        String clash = AgentSpec.builtinClash(run.name(), boxes);
        if (clash != null) {
            throw new IllegalStateException(clash);
        }
        this.run = run;
        this.boxes = boxes;
        this.builtins = builtins(skillTool, run.canDelegate);
        this.own = run.agent.toolboxes().size();
        boolean any = false;
        for (Skill s : run.agent.skills()) {
            any |= !s.allowedTools().isEmpty();
        }
        this.limiting = any;
        this.starter = run.agent.skillTools();
        this.starting = starter == null ? null : new ReentrantLock();
        this.started = starter == null ? null : new LinkedHashMap<>();
    }

    /** The built-in tools a run offers: {@code load_skill} when the agent has skills, the delegation tools when it may delegate. */
    private static List<ToolDefinition> builtins(ToolDefinition skillTool, boolean canDelegate) {
        if (skillTool == null) {
            return canDelegate ? List.of(Orchestration.LIST_AGENTS_TOOL, Orchestration.DELEGATE_TOOL) : List.of();
        }
        return canDelegate ? List.of(skillTool, Orchestration.LIST_AGENTS_TOOL, Orchestration.DELEGATE_TOOL)
                : List.of(skillTool);
    }

    /**
     * Starts the tools of the skills the run already follows: those loaded earlier in the
     * current turn (a turn taken up after a pause) and those inlined in the system prompt. What
     * did not start is logged; the run goes on without it.
     */
    void startFollowed() {
        if (starter == null) {
            return;
        }
        Set<String> loaded = loadedInTurn();
        for (Skill s : run.agent.skills()) {
            if (s.description().isEmpty() || loaded.contains(s.name())) {
                bring(s);
            }
        }
    }

    /**
     * Starts the tools a skill brings, once per run; logs what did not start. Nothing starts
     * once the run has ended (a call it abandoned may still be running).
     *
     * @return what the model is told about them: the tools now offered and what did not start;
     *     null when the skill brings nothing or its tools were started before in this run
     */
    String bring(Skill skill) {
        if (starter == null) {
            return null;
        }
        CompletableFuture<AgentSpec.Brought> reserved = new CompletableFuture<>();
        starting.lock();
        try {
            if (ended || started.putIfAbsent(skill.name(), reserved) != null) {
                return null;
            }
        } finally {
            starting.unlock();
        }
        AgentSpec.Brought b = null;
        boolean late;
        try {
            b = starter.start(skill, run.toolContext());
        } finally {
            starting.lock();
            try {
                late = ended;
                if (b == null) {
                    started.remove(skill.name(), reserved);
                } else if (!late) {
                    List<ToolBox> all = new ArrayList<>(brought);
                    all.addAll(b.toolboxes());
                    brought = List.copyOf(all);
                }
                // Completed under the lock: the run's end stops what is done when it ends, and a
                // start that ends after it sees that it ended.
                reserved.complete(b);
            } finally {
                starting.unlock();
            }
        }
        if (late) {
            stop(skill.name(), b);
            return null;
        }
        for (String problem : b.problems()) {
            LOG.warn("agent '{}', skill '{}': {}", run.name(), skill.name(), problem);
        }
        StringBuilder note = new StringBuilder();
        if (!b.problems().isEmpty()) {
            note.append(NOT_STARTED);
            for (String p : b.problems()) {
                note.append("\n- ").append(p);
            }
            note.append("\nGo on without those tools, or tell the user what is missing.");
        }
        List<String> names = new ArrayList<>();
        for (ToolBox box : b.toolboxes()) {
            names.addAll(box.names());
        }
        if (!names.isEmpty()) {
            if (!note.isEmpty()) {
                note.append("\n");
            }
            note.append("Tools this skill brings, offered from now on: ").append(String.join(", ", names)).append('.');
        }
        return note.isEmpty() ? null : note.toString();
    }

    /**
     * Stops every tool the run's skills brought; called once when the run ends. Does not wait for
     * tools still starting: their start stops them when it ends.
     */
    void stopBrought() {
        if (starter == null) {
            return;
        }
        Map<String, AgentSpec.Brought> done = new LinkedHashMap<>();
        starting.lock();
        try {
            ended = true;
            started.forEach((name, f) -> {
                AgentSpec.Brought b = f.getNow(null);
                if (b != null) {
                    done.put(name, b);
                }
            });
            started.clear();
            brought = List.of();
        } finally {
            starting.unlock();
        }
        done.forEach(this::stop);
    }

    private void stop(String skill, AgentSpec.Brought b) {
        try {
            b.stop().run();
        } catch (RuntimeException ex) {
            LOG.warn("agent '{}': stopping the tools of skill '{}' failed: {}", run.name(), skill, ex.toString());
        }
    }

    /**
     * The skills loaded in the run's current turn that name allowed-tools, and the tools they
     * allow together.
     *
     * @param skills the skills' names, sorted
     * @param tools the tools they allow
     */
    record Limit(Set<String> skills, Set<String> tools) {
        /** Whether the limit lets a tool through: one it allows, {@code load_skill}, or a strategy's. */
        boolean allows(String tool) {
            return tools.contains(tool) || tool.equals(SkillTool.NAME);
        }
    }

    /** The limit of the skills loaded in the current turn, or null when none limits the tools. */
    Limit limit() {
        if (!limiting) {
            return null;
        }
        Set<String> loaded = loadedInTurn();
        Set<String> skills = new TreeSet<>();
        Set<String> tools = new TreeSet<>();
        for (Skill s : run.agent.skills()) {
            if (!s.allowedTools().isEmpty() && loaded.contains(s.name())) {
                skills.add(s.name());
                tools.addAll(s.allowedTools());
            }
        }
        return skills.isEmpty() ? null : new Limit(skills, tools);
    }

    /** The skills a {@code load_skill} answered without error loaded in the current turn. */
    private Set<String> loadedInTurn() {
        Chat chat = run.chat();
        Set<String> answered = new HashSet<>();
        Map<String, String> loads = new HashMap<>();
        for (int i = chat.size() - 1; i >= 0; i--) {
            Message m = chat.get(i);
            if (m.role() == Role.USER) {
                break;
            }
            for (ToolResult r : m.toolResults()) {
                if (!r.isError()) {
                    answered.add(r.toolCallId());
                }
            }
            for (ToolCall c : m.toolCalls()) {
                String skill = c.name().equals(SkillTool.NAME) ? SkillTool.nameIn(c) : null;
                if (skill != null) {
                    loads.put(c.id(), skill);
                }
            }
        }
        loads.keySet().retainAll(answered);
        return new HashSet<>(loads.values());
    }

    /**
     * Why a call of this tool is refused under the current turn's loaded skills, or null when it
     * is not: a tool of the agent's own toolboxes, or {@code list_agents} or {@code delegate},
     * that no loaded skill allows.
     */
    String hidden(String name) {
        Limit limit = limit();
        if (limit == null || limit.allows(name) || !knows(name) || strategyTool(name)) {
            return null;
        }
        List<String> offered = new ArrayList<>();
        for (ToolDefinition d : definitions(limit)) {
            offered.add(d.name());
        }
        String skills = limit.skills().size() == 1 ? "skill '" + limit.skills().iterator().next() + "' is"
                : "skills '" + String.join("', '", limit.skills()) + "' are";
        return "tool '" + name + "' is not offered while " + skills + " loaded, whose allowed-tools leave it out; "
                + "offered tools: " + String.join(", ", offered);
    }

    private boolean strategyTool(String name) {
        for (int i = own; i < boxes.size(); i++) {
            if (boxes.get(i).contains(name)) {
                return true;
            }
        }
        return false;
    }

    /**
     * What the model is told, one definition per name, the first toolbox holding a name winning;
     * under the limit of the skills loaded in the current turn, if any.
     */
    List<ToolDefinition> definitions() {
        return definitions(limit());
    }

    private List<ToolDefinition> definitions(Limit limit) {
        List<ToolBox> extra = brought;
        if (limit == null && builtins.isEmpty() && boxes.size() <= 1 && extra.isEmpty()) {
            return boxes.isEmpty() ? List.of() : boxes.getFirst().definitions();
        }
        List<ToolDefinition> all = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < boxes.size(); i++) {
            for (ToolDefinition d : boxes.get(i).definitions()) {
                if (seen.add(d.name()) && (limit == null || i >= own || limit.allows(d.name()))) {
                    all.add(d);
                }
            }
        }
        for (ToolDefinition d : builtins) {
            if (seen.add(d.name()) && (limit == null || limit.allows(d.name()))) {
                all.add(d);
            }
        }
        for (ToolBox box : extra) {
            for (ToolDefinition d : box.definitions()) {
                if (seen.add(d.name()) && (limit == null || limit.allows(d.name()))) {
                    all.add(d);
                }
            }
        }
        return List.copyOf(all);
    }

    /** Whether a tool of that name is one of the run's tools. */
    boolean knows(String name) {
        for (ToolBox box : boxes) {
            if (box.contains(name)) {
                return true;
            }
        }
        for (ToolDefinition d : builtins) {
            if (d.name().equals(name)) {
                return true;
            }
        }
        for (ToolBox box : brought) {
            if (box.contains(name)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether the tool of that name declares itself idempotent: a toolbox's tool by its
     * {@link dev.shelly.tools.Tool#idempotent()}, the built-ins that only read ({@code load_skill},
     * {@code list_agents}) yes, {@code delegate} and an unknown name no.
     */
    boolean idempotent(String name) {
        for (ToolBox box : boxes) {
            if (box.contains(name)) {
                return box.get(name).map(dev.shelly.tools.Tool::idempotent).orElse(false);
            }
        }
        for (ToolDefinition d : builtins) {
            if (d.name().equals(name)) {
                return !name.equals(Orchestration.DELEGATE);
            }
        }
        for (ToolBox box : brought) {
            if (box.contains(name)) {
                return box.get(name).map(dev.shelly.tools.Tool::idempotent).orElse(false);
            }
        }
        return false;
    }

    /**
     * Answers one call; never throws for a failing call. When the call is a {@code delegate}
     * whose children wait for a decision (with {@link Approvals}), says why in {@code waiting}.
     */
    ToolResult call(ToolCall call, ToolContext context, Orchestration.Waiting waiting) {
        int limit = run.agent.maxToolResultChars();
        try {
            return answer(call, context, limit, waiting);
        } catch (RuntimeException | Error e) {
            return ToolResult.error(call.id(), "tool '" + call.name() + "' failed: " + e);
        }
    }

    private ToolResult answer(ToolCall call, ToolContext context, int limit, Orchestration.Waiting waiting) {
        for (ToolBox box : boxes) {
            if (box.contains(call.name())) {
                return box.call(call, context, limit);
            }
        }
        for (ToolDefinition d : builtins) {
            if (d.name().equals(call.name())) {
                return builtinBox(d.name(), call.id(), waiting).call(call, context, limit);
            }
        }
        for (ToolBox box : brought) {
            if (box.contains(call.name())) {
                return box.call(call, context, limit);
            }
        }
        RunContext ctx = run.context;
        if ((call.name().equals(Orchestration.DELEGATE) || call.name().equals(Orchestration.LIST_AGENTS))
                && ctx.registry().isPresent() && ctx.depth() >= ctx.delegationLimit()) {
            // Not offered at the limit; a model that calls it anyway learns why, not just that it is unknown.
            String why = ctx.delegationLimit() == 0 ? "delegation is off for it (its delegation depth limit is 0)"
                    : "it runs at delegation depth " + ctx.depth() + " and the delegation depth limit is "
                            + ctx.delegationLimit();
            return ToolResult.error(call.id(), "tool '" + call.name() + "' is not offered to agent '" + run.name()
                    + "': " + why + "; do the work yourself with the tools you have: " + names());
        }
        return ToolResult.error(call.id(), "unknown tool '" + call.name() + "'; available tools: " + names());
    }

    private ToolBox builtinBox(String name, String callId, Orchestration.Waiting waiting) {
        return name.equals(SkillTool.NAME) ? SkillTool.toolbox(run.agent.skills(), this::bring)
                : Orchestration.toolbox(name, run, callId, waiting);
    }

    private String names() {
        Set<String> names = new LinkedHashSet<>();
        for (ToolBox box : boxes) {
            names.addAll(box.names());
        }
        for (ToolDefinition d : builtins) {
            names.add(d.name());
        }
        for (ToolBox box : brought) {
            names.addAll(box.names());
        }
        return names.isEmpty() ? "none" : String.join(", ", names);
    }
}
