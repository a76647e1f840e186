package dev.shelly.engine;

import dev.shelly.coding.CodingTools;
import dev.shelly.coding.Sandbox;
import dev.shelly.engine.config.AgentConfig;
import java.nio.file.Path;

/** Builds a coding toolbox from a {@code coding:} section; the one class naming shelly-coding's types. */
final class CodingAgents {
    private CodingAgents() {}

    static CodingSupport.Coding build(AgentConfig.Coding c, Path projectDir) {
        Path workspace = c.workspace() == null ? projectDir : projectDir.resolve(c.workspace());
        CodingTools.Builder b = CodingTools.builder(workspace)
                .allowCommands(c.allowCommands().toArray(String[]::new))
                .denyCommands(c.denyCommands().toArray(String[]::new))
                .sensitive(c.sensitive().toArray(String[]::new))
                .shellAllowed(c.shellAllowed())
                .pushAllowed(c.pushAllowed())
                .network(c.networkAllowed());
        if ("none".equals(c.sandbox())) {
            b.sandbox(Sandbox.NONE);
        }
        for (String h : c.hide()) {
            b.hide(Path.of(h));
        }
        if (c.timeout() != null) {
            b.timeout(c.timeout());
        }
        CodingTools tools = b.build();
        return new CodingSupport.Coding(tools.toolBox(), tools::policyOver);
    }
}
