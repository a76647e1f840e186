package dev.shelly.agent;

import dev.shelly.agent.context.ContextPolicy;
import dev.shelly.chats.ToolDefinition;
import dev.shelly.modeladapter.Completer;
import dev.shelly.modeladapter.ModelOptions;
import dev.shelly.modeladapter.PriceTable;
import dev.shelly.skills.Skill;
import dev.shelly.tools.ToolBox;
import java.time.Duration;
import java.util.List;
import java.util.Set;

/**
 * What an {@link Agent} is, as its builder left it: the agent keeps this and never changes it.
 * Lists and sets are unmodifiable copies.
 *
 * @param name see {@link Agent#name()}
 * @param description see {@link Agent#description()}
 * @param instructions see {@link Agent#instructions()}
 * @param context see {@link Agent#context()}
 * @param completer see {@link Agent#completer()}
 * @param maxIterations see {@link Agent#maxIterations()}
 * @param maxDelegationDepth see {@link Agent#maxDelegationDepth()}
 * @param skills see {@link Agent#skills()}
 * @param toolboxes see {@link Agent#toolboxes()}
 * @param cancelGrace see {@link Agent}
 * @param timeout see {@link Agent#timeout()}
 * @param maxToolResultChars see {@link Agent#maxToolResultChars()}
 * @param stopTools see {@link Agent#stopTools()}
 * @param systemPromptInChat see {@link Agent#systemPromptInChat()}
 * @param skillTool see {@link Agent}
 * @param registry see {@link Agent#registry()}
 * @param listener see {@link Agent#listener()}
 * @param interceptors see {@link Agent#interceptors()}
 * @param middleware see {@link Agent#middleware()}
 * @param options see {@link Agent#options()}
 * @param prices see {@link Agent#prices()}
 * @param contextPolicy see {@link Agent#contextPolicy()}
 * @param runToolboxes see {@link Agent}
 */
record AgentSpec(
        String name,
        String description,
        String instructions,
        String context,
        Completer completer,
        int maxIterations,
        int maxDelegationDepth,
        List<Skill> skills,
        List<ToolBox> toolboxes,
        Duration cancelGrace,
        Duration timeout,
        int maxToolResultChars,
        Set<String> stopTools,
        boolean systemPromptInChat,
        ToolDefinition skillTool,
        Registry registry,
        AgentListener listener,
        List<RunInterceptor> interceptors,
        List<RunInterceptor> middleware,
        ModelOptions options,
        PriceTable prices,
        ContextPolicy contextPolicy,
        List<ToolBox> runToolboxes) {}
