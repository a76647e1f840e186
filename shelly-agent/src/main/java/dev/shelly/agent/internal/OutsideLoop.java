package dev.shelly.agent.internal;

import dev.shelly.agent.AgentException;
import dev.shelly.agent.RunInterceptor;
import dev.shelly.agent.RunInterceptor.ModelCall;
import dev.shelly.modeladapter.Completer;
import dev.shelly.modeladapter.Cost;
import dev.shelly.modeladapter.ModelRequest;
import dev.shelly.modeladapter.ModelResponse;
import dev.shelly.modeladapter.ModelTable;
import dev.shelly.modeladapter.Usage;
import java.util.ArrayList;
import java.util.List;

/**
 * Internal, not API. A model call made for a run outside its loop ({@code RunContext#complete}):
 * down the context's links and its observers to the completer, as the loop's calls go but without
 * the run's own links (context management, the approvals' answers); its usage and cost are
 * recorded in the context.
 */
public final class OutsideLoop {
    private OutsideLoop() {}

    /**
     * Makes the call.
     *
     * @param call the call, naming the run's context, with iteration 0
     * @param completer the model
     * @param prices what the usage costs
     * @return the response
     */
    public static ModelResponse complete(ModelCall call, Completer completer, ModelTable prices) {
        List<RunInterceptor> links = new ArrayList<>(call.run().interceptors());
        if (!call.run().observers().isEmpty()) {
            links.add(new Links.ObservedCalls(call.run().observers()));
        }
        String agent = call.run().agent().orElse("?");
        ModelRequest request = call.request();
        ModelResponse response = new Chains.Model(links.toArray(RunInterceptor[]::new), 0, call, completer.target(), c -> {
            ModelResponse answered = completer.complete(c.request());
            if (answered == null) {
                throw new AgentException(agent, "the completer of a model call for agent '" + agent
                        + "' returned null instead of a response", null);
            }
            return answered;
        }, new ModelCall[] {call}).proceed(request);
        Usage usage = response.usage();
        call.run().record(usage, usage.equals(Usage.ZERO) ? Cost.ZERO : prices.cost(response.model(), usage));
        return response;
    }
}
