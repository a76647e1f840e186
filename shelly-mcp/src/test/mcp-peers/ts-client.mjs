// Drives an MCP server with the MCP TypeScript SDK client and prints what it sees, one line per step,
// for TypeScriptClientInteropTest to compare. Usage:
//   node ts-client.mjs stdio <command> [args...]
//   node ts-client.mjs http <url>
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";

const [mode, ...rest] = process.argv.slice(2);
const transport =
  mode === "stdio"
    ? new StdioClientTransport({ command: rest[0], args: rest.slice(1), stderr: "inherit" })
    : new StreamableHTTPClientTransport(new URL(rest[0]));
const client = new Client({ name: "ts-interop-client", version: "1.0.0" });

let listChanged;
const changed = new Promise((resolve) => (listChanged = resolve));
client.setNotificationHandler(ToolListChangedNotificationSchema, async () => listChanged());

const print = (label, value) => console.log(label + " " + JSON.stringify(value));
const call = async (name, args) => print("call " + name, await client.callTool({ name, arguments: args }));

await client.connect(transport);
print("server", client.getServerVersion());
print("capabilities", client.getServerCapabilities());
const { tools } = await client.listTools();
print("tools", tools.map((t) => t.name));
print("get_weather", tools.find((t) => t.name === "get_weather"));
await call("get_weather", { city: "Paris", units: "FAHRENHEIT" });
await call("get_weather", { town: "Paris" });
await call("fail", {});
await call("boom", {});
await call("tiny_image", {});
await call("whoami", {});
await call("print", {});
try {
  await client.callTool({ name: "no_such_tool", arguments: {} });
  console.log("no_such_tool answered");
} catch (e) {
  print("no_such_tool threw", { code: e.code, message: e.message });
}
await call("add_tool", {});
let timer;
await Promise.race([
  changed,
  new Promise((_, reject) => (timer = setTimeout(() => reject(new Error("no tools/list_changed within 10 s")), 10000))),
]);
clearTimeout(timer);
print("tools after list_changed", (await client.listTools()).tools.map((t) => t.name));
await call("late_tool", {});
if (mode === "http") {
  await transport.terminateSession();
}
await client.close();
console.log("closed");
