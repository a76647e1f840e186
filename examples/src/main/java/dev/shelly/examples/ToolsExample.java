package dev.shelly.examples;

import dev.shelly.agent.Agent;
import dev.shelly.chats.Message;
import dev.shelly.testing.Step;
import dev.shelly.tools.Description;
import dev.shelly.tools.Tool;
import dev.shelly.tools.ToolBox;
import dev.shelly.tools.ToolOutput;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A simple agent with tools (section 14.1 of the architecture): one agent, one typed tool, the
 * ReAct loop. The model asks for the weather, the toolbox runs the calls, the model answers.
 */
public final class ToolsExample implements Example {

    /** The input of {@code get_weather}; its JSON Schema is generated from this record. */
    record WeatherQuery(@Description("the city, e.g. Paris") String city) {}

    @Override
    public String name() {
        return "tools";
    }

    @Override
    public String description() {
        return "one agent with a weather tool: the ReAct loop";
    }

    @Override
    public String defaultPrompt() {
        return "What's the weather in Paris and in Tokyo?";
    }

    @Override
    public Message run(ExampleRun run) {
        // 1. A tool: the schema comes from the record, the handler gets an instance of it.
        Tool weather = Tool.typed("get_weather", "Get the current weather for a city (demo data)",
                WeatherQuery.class, (query, ctx) -> ToolOutput.text(weatherIn(query.city())));

        // 2. An agent that may use it.
        Agent agent = Agent.builder("weather-bot")
                .description("A helpful weather assistant")
                .instructions("Answer weather questions. Use get_weather for each city you are asked about.")
                .completer(run.model(script()))
                .toolboxes(ToolBox.of(weather))
                .maxIterations(5)
                .listener(run.listener())
                .build();

        // 3. Run it: the system prompt and the task go into its chat, the loop runs to an answer.
        return agent.run(run.prompt(), run.scope());
    }

    /** The scripted model: both cities in one turn (the calls run concurrently), then an answer from the results. */
    static List<Step> script() {
        return List.of(
                Step.toolCalls(new Step.Call("get_weather", Scripts.object("city", "Paris")),
                        new Step.Call("get_weather", Scripts.object("city", "Tokyo")))
                        .withText("Let me look up both cities."),
                Step.reply(chat -> {
                    List<String> results = Scripts.lastResults(chat);
                    return results.size() < 2 ? "I could not get the weather."
                            : "Right now it is " + results.get(0) + " in Paris and " + results.get(1) + " in Tokyo.";
                }));
    }

    private static final Map<String, String> KNOWN = Map.of(
            "paris", "18°C with light rain",
            "tokyo", "24°C and sunny",
            "london", "14°C and overcast",
            "new york", "21°C and clear",
            "oslo", "9°C with a cold wind");

    private static final List<String> SKIES = List.of("sunny", "cloudy", "clear", "windy", "foggy", "rainy");

    /** Demo weather: fixed for a few cities, made up (but the same every time) for the others. */
    static String weatherIn(String city) {
        String key = city.strip().toLowerCase(Locale.ROOT);
        String known = KNOWN.get(key);
        if (known != null) {
            return known;
        }
        int h = Math.floorMod(key.hashCode(), 1000);
        return (5 + h % 25) + "°C and " + SKIES.get(h % SKIES.size());
    }
}
