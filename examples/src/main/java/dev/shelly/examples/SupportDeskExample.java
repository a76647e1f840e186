package dev.shelly.examples;

import dev.shelly.agent.AgentEvent;
import dev.shelly.agent.AgentListener;
import dev.shelly.agent.workflow.Handoff;
import dev.shelly.chats.Chat;
import dev.shelly.chats.Message;
import dev.shelly.testing.Step;
import dev.shelly.tools.Description;
import dev.shelly.tools.Tool;
import dev.shelly.tools.ToolBox;
import dev.shelly.tools.ToolOutput;
import java.util.List;

/**
 * Customer support with hand-offs (section 15.5 of the earlier design): triage, flights and
 * hotels share one conversation; each passes the customer on with a {@code transfer_to_<desk>}
 * tool, and each speaks with its own instructions. The transfers show in the chat (the call and
 * its result) and as {@link AgentEvent.HandedOff} events.
 */
public final class SupportDeskExample implements Example {
    /** The demo booking the tools know. */
    static final String BOOKING = "BK-1042";

    /** The input of {@code change_flight}. */
    record FlightChange(@Description("the booking, e.g. BK-1042") String booking,
            @Description("the new travel date, e.g. March 7") String date) {}

    /** The input of {@code change_hotel}. */
    record HotelChange(@Description("the booking, e.g. BK-1042") String booking,
            @Description("the new check-in date, e.g. March 7") String checkIn) {}

    @Override
    public String name() {
        return "support";
    }

    @Override
    public String description() {
        return "triage hands the customer to flights, then hotels: a Handoff group";
    }

    @Override
    public String defaultPrompt() {
        return "Please move my flight on booking BK-1042 to March 7, and my hotel stay to match.";
    }

    @Override
    public Message run(ExampleRun run) {
        ToolBox flightDesk = ToolBox.of(Tool.typed("change_flight", "Move the flight of a booking to another date "
                + "(demo bookings)", FlightChange.class, (in, ctx) -> known(in.booking())
                ? ToolOutput.text(in.booking() + ": flight LH1172 Frankfurt → Lisbon moved to " + in.date() + ", 09:40")
                : unknown(in.booking())));
        ToolBox hotelDesk = ToolBox.of(Tool.typed("change_hotel", "Move the stay of a booking to another check-in "
                + "date (demo bookings)", HotelChange.class, (in, ctx) -> known(in.booking())
                ? ToolOutput.text(in.booking() + ": Hotel Avenida, Lisbon, 3 nights from " + in.checkIn())
                : unknown(in.booking())));

        Handoff desk = Handoff.builder("support")
                .chat(Chat.of(Message.system("You work at the support desk of a travel agency. Be brief and friendly.")))
                .member("triage", "Finds out what the customer needs and passes them to the right desk",
                        ctx -> ctx.agent()
                                .instructions("Do not change bookings yourself: hand flight requests to flights and "
                                        + "hotel requests to hotels.")
                                .completer(run.model(triageScript()))
                                .maxIterations(3)
                                .build())
                .member("flights", "Changes flight bookings",
                        ctx -> ctx.agent()
                                .instructions("Change flights with change_flight. If the customer also needs a hotel "
                                        + "change, hand them to hotels.")
                                .completer(run.model(flightsScript()))
                                .toolboxes(flightDesk)
                                .maxIterations(5)
                                .build())
                .member("hotels", "Changes hotel bookings",
                        ctx -> ctx.agent()
                                .instructions("Change hotel stays with change_hotel, then confirm everything the "
                                        + "customer asked for.")
                                .completer(run.model(hotelsScript()))
                                .toolboxes(hotelDesk)
                                .maxIterations(5)
                                .build())
                .maxHandoffs(4)
                .listener(withSpeakers(run, "support"))
                .build();

        return desk.run(run.prompt(), run.scope());
    }

    /** The console view, plus a line naming each agent as it takes the conversation. */
    private static AgentListener withSpeakers(ExampleRun run, String group) {
        AgentListener view = run.listener();
        return event -> {
            switch (event) {
                case AgentEvent.AgentStarted s -> run.note("[" + group + "] " + s.source().agent() + ":");
                case AgentEvent.HandedOff h -> run.note("[" + group + "] handoff " + h.handoffs() + ": "
                        + h.source().agent() + " → " + h.to());
                default -> view.onEvent(event);
            }
        };
    }

    private static boolean known(String booking) {
        return BOOKING.equalsIgnoreCase(booking.strip());
    }

    private static ToolOutput unknown(String booking) {
        return ToolOutput.error("no booking '" + booking + "'; the demo knows " + BOOKING);
    }

    static List<Step> triageScript() {
        return List.of(Step.toolCall("transfer_to_flights", "{}")
                .withText("I'll pass you to our flights desk first."));
    }

    static List<Step> flightsScript() {
        return List.of(
                Step.toolCall("change_flight", Scripts.object("booking", BOOKING, "date", "March 7")),
                Step.toolCall("transfer_to_hotels", "{}")
                        .withText("Your flight now leaves on March 7 at 09:40. Hotels will move your stay."));
    }

    static List<Step> hotelsScript() {
        return List.of(
                Step.toolCall("change_hotel", Scripts.object("booking", BOOKING, "checkIn", "March 7")),
                Step.reply("All done: you fly to Lisbon on March 7 at 09:40, and Hotel Avenida expects you that "
                        + "evening for 3 nights."));
    }
}
