package dev.shelly.mcp;

import dev.shelly.chats.Image;
import dev.shelly.chats.Text;
import dev.shelly.tools.Description;
import dev.shelly.tools.Tool;
import dev.shelly.tools.ToolBox;
import dev.shelly.tools.ToolOutput;
import java.util.Base64;
import java.util.Optional;

/** The toolbox the tests serve over MCP. */
final class DemoTools {
    /** A 1x1 red PNG. */
    static final byte[] RED_DOT = Base64.getDecoder().decode(
            "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==");

    enum Units { CELSIUS, FAHRENHEIT }

    record Weather(@Description("city name") String city, Optional<Units> units) {}

    record Sleep(@Description("milliseconds") long millis) {}

    private DemoTools() {}

    static ToolBox box() {
        ToolBox box = new ToolBox();
        box.register(
                Tool.typed("get_weather", "Current weather for a city", Weather.class, (in, ctx) -> ToolOutput.text(
                        "sunny in " + in.city() + ", " + (in.units().orElse(Units.CELSIUS) == Units.CELSIUS ? "21 C" : "70 F"))),
                Tool.of("fail", "Always fails", "{\"type\":\"object\"}",
                        (in, ctx) -> ToolOutput.error("this tool failed on purpose")),
                Tool.of("boom", "Always throws", "{\"type\":\"object\"}", (in, ctx) -> {
                    throw new IllegalStateException("kaboom");
                }),
                Tool.of("tiny_image", "A red dot", "{\"type\":\"object\"}",
                        (in, ctx) -> ToolOutput.of(new Text("a red dot"), Image.ofBytes(RED_DOT, "image/png"))),
                Tool.of("whoami", "Names the caller", "{\"type\":\"object\"}",
                        (in, ctx) -> ToolOutput.text("agent=" + ctx.agent() + " depth=" + ctx.depth())),
                Tool.of("print", "Prints to System.out", "{\"type\":\"object\"}", (in, ctx) -> {
                    System.out.println("stray output that must not reach the protocol stream");
                    return ToolOutput.text("printed");
                }),
                Tool.typed("sleep", "Sleeps", Sleep.class, (in, ctx) -> {
                    Thread.sleep(in.millis());
                    return ToolOutput.text("slept " + in.millis() + " ms");
                }),
                Tool.of("exit", "Ends the server process with code 3", "{\"type\":\"object\"}", (in, ctx) -> {
                    System.err.println("demo server: exiting on request");
                    System.err.flush();
                    Runtime.getRuntime().halt(3);
                    return ToolOutput.text("unreachable");
                }));
        box.register(Tool.of("add_tool", "Registers the tool late_tool", "{\"type\":\"object\"}", (in, ctx) -> {
            box.register(Tool.of("late_tool", "Registered at run time", "{\"type\":\"object\"}",
                    (i, c) -> ToolOutput.text("late_tool called")));
            return ToolOutput.text("registered late_tool");
        }));
        return box;
    }
}
