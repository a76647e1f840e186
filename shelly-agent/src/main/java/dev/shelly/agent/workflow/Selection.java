package dev.shelly.agent.workflow;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * A coordinator's decision: the members to run next, or that the team is done.
 *
 * <p>Several members run concurrently, and their replies are appended to the shared chat in the
 * order named here. A selection is either done (and names nobody) or names at least one member,
 * each at most once.
 *
 * @param members the names of the members to run, in the order their replies are appended
 * @param done whether the team's run is complete
 */
public record Selection(List<String> members, boolean done) {

    /** The team's run is complete. */
    public static final Selection DONE = new Selection(List.of(), true);

    /** Validates the decision and copies the names. */
    public Selection {
        if (members == null) {
            throw new IllegalArgumentException("Selection.members must not be null");
        }
        List<String> copy = new ArrayList<>(members.size());
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < members.size(); i++) {
            String m = members.get(i);
            if (m == null || m.isBlank()) {
                throw new IllegalArgumentException("Selection.members[" + i + "] must not be null or blank");
            }
            if (!seen.add(m)) {
                throw new IllegalArgumentException("Selection names member '" + m + "' twice; a member runs once per step");
            }
            copy.add(m);
        }
        if (done && !copy.isEmpty()) {
            throw new IllegalArgumentException("a done Selection must name no member, but names " + copy);
        }
        if (!done && copy.isEmpty()) {
            throw new IllegalArgumentException("a Selection that is not done must name at least one member");
        }
        members = Collections.unmodifiableList(copy);
    }

    /**
     * Runs these members next, concurrently when there are several.
     *
     * @param members their names, in the order their replies are appended
     * @return the selection
     */
    public static Selection of(String... members) {
        if (members == null) {
            throw new IllegalArgumentException("Selection.of members must not be null");
        }
        return new Selection(List.of(members.clone()), false);
    }

    /**
     * Runs these members next, concurrently when there are several.
     *
     * @param members their names, in the order their replies are appended
     * @return the selection
     */
    public static Selection of(List<String> members) {
        return new Selection(members, false);
    }
}
