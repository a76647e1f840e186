package dev.shelly.cli;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * One command's arguments: its flags ({@code --json}), options with a value ({@code --agent NAME}
 * or {@code --agent=NAME}) and the words left ({@code "prompt"}, a session id). {@code -h} is
 * {@code --help}; after {@code --} everything is a word.
 */
final class Args {
    /** Every command takes these two. */
    static final String HELP = "--help";
    static final String ROOT = "--root";

    private final String command;
    private final Set<String> flags;
    private final Map<String, String> values;
    private final List<String> words;

    private Args(String command, Set<String> flags, Map<String, String> values, List<String> words) {
        this.command = command;
        this.flags = flags;
        this.values = values;
        this.words = words;
    }

    /**
     * Reads a command's arguments.
     *
     * @param command the command's name, for messages ({@code chat}, {@code sessions})
     * @param raw the arguments after the command's name
     * @param flagNames the flags it takes besides {@code --help}
     * @param valueNames the options with a value it takes besides {@code --root}
     * @throws CommandException a usage error naming the option that is unknown, lacks its value,
     *     has one it should not, or is given twice
     */
    static Args parse(String command, List<String> raw, Set<String> flagNames, Set<String> valueNames) {
        Set<String> flags = new LinkedHashSet<>();
        Map<String, String> values = new LinkedHashMap<>();
        List<String> words = new ArrayList<>();
        for (int i = 0; i < raw.size(); i++) {
            String arg = raw.get(i);
            if (arg.equals("--")) {
                words.addAll(raw.subList(i + 1, raw.size()));
                break;
            }
            if (arg.equals("-h")) {
                arg = HELP;
            }
            if (!arg.startsWith("-") || arg.equals("-")) {
                words.add(arg);
                continue;
            }
            int eq = arg.indexOf('=');
            String name = eq < 0 ? arg : arg.substring(0, eq);
            if (name.equals(HELP) || flagNames.contains(name)) {
                if (eq >= 0) {
                    throw usage(command, name + " takes no value");
                }
                flags.add(name);
            } else if (name.equals(ROOT) || valueNames.contains(name)) {
                String value;
                if (eq >= 0) {
                    value = arg.substring(eq + 1);
                } else if (i + 1 < raw.size()) {
                    value = raw.get(++i);
                } else {
                    throw usage(command, name + " needs a value");
                }
                if (value.isBlank()) {
                    throw usage(command, name + " needs a value");
                }
                if (values.putIfAbsent(name, value) != null) {
                    throw usage(command, name + " is given twice");
                }
            } else {
                throw usage(command, "unknown option " + name);
            }
        }
        return new Args(command, flags, values, List.copyOf(words));
    }

    /** A usage error of a command, with where to read how it goes. */
    static CommandException usage(String command, String problem) {
        String name = command.isEmpty() ? "shelly" : "shelly " + command;
        return CommandException.usage(name + ": " + problem + " (see " + name + " --help)");
    }

    boolean has(String flag) {
        return flags.contains(flag);
    }

    Optional<String> value(String option) {
        return Optional.ofNullable(values.get(option));
    }

    List<String> words() {
        return words;
    }

    /** Fails unless there are at most this many words. */
    Args atMost(int count) {
        if (words.size() > count) {
            throw usage(command, "unexpected argument '" + words.get(count) + "'");
        }
        return this;
    }
}
