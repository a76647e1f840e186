/**
 * API: the Model Context Protocol for Shelly: {@link dev.shelly.mcp.McpToolClient} turns an MCP
 * server's tools into a live ToolBox, {@link dev.shelly.mcp.McpToolServer} serves any ToolBox
 * over stdio or streamable HTTP. The MCP SDK stays behind these types.
 */
package dev.shelly.mcp;
