package dev.shelly.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shelly.chats.ToolCall;
import dev.shelly.chats.ToolResult;
import dev.shelly.tools.ToolContext;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The Java client against {@code @modelcontextprotocol/server-filesystem} over stdio. */
@Timeout(120)
class FilesystemServerInteropTest {
    private static final ToolContext CTX = ToolContext.of("tester");

    @Test
    void readsListsAndIsRefusedOutsideItsDirectory(@TempDir Path dir) throws Exception {
        Path root = dir.toRealPath();
        Files.writeString(root.resolve("notes.txt"), "first line\nsecond line\n");
        McpEndpoint.Stdio endpoint = McpEndpoint.stdio("node", McpPeers.filesystem(), root.toString())
                .withWorkingDirectory(root);
        try (McpToolClient client = McpToolClient.builder(endpoint).name("filesystem").toolNamePrefix("fs_").connect()) {
            assertThat(client.serverName()).isEqualTo("secure-filesystem-server");
            assertThat(client.toolBox().names()).contains("fs_read_text_file", "fs_list_directory", "fs_write_file",
                    "fs_list_allowed_directories");
            // The server's hints: read-only and idempotent tools may run again after a crash, edits may not.
            assertThat(client.toolBox().get("fs_read_text_file").orElseThrow().idempotent()).as("readOnlyHint").isTrue();
            assertThat(client.toolBox().get("fs_write_file").orElseThrow().idempotent()).as("idempotentHint").isTrue();
            assertThat(client.toolBox().get("fs_edit_file").orElseThrow().idempotent()).as("idempotentHint false").isFalse();
            ToolResult allowed = client.toolBox().call(new ToolCall("c1", "fs_list_allowed_directories", "{}"), CTX);
            assertThat(allowed.isError()).isFalse();
            assertThat(allowed.text()).contains(root.toString());

            String path = root.resolve("notes.txt").toString();
            ToolResult read = client.toolBox().call(new ToolCall("c2", "fs_read_text_file",
                    "{\"path\":\"" + path + "\",\"head\":1}"), CTX);
            assertThat(read).isEqualTo(ToolResult.of("c2", "first line"));

            ToolResult written = client.toolBox().call(new ToolCall("c3", "fs_write_file",
                    "{\"path\":\"" + root.resolve("out.txt") + "\",\"content\":\"from java\"}"), CTX);
            assertThat(written.isError()).isFalse();
            assertThat(Files.readString(root.resolve("out.txt"))).isEqualTo("from java");

            ToolResult refused = client.toolBox().call(new ToolCall("c4", "fs_read_text_file", "{\"path\":\"/etc/hostname\"}"), CTX);
            assertThat(refused.isError()).isTrue();
            assertThat(refused.text()).isEqualTo("Access denied - path outside allowed directories: /etc/hostname not in " + root);
        }
    }
}
