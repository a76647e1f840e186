package dev.shelly.modeladapter;

import dev.shelly.modeladapter.ModelTable.ContextWindow;
import dev.shelly.modeladapter.ModelTable.Entry;
import dev.shelly.modeladapter.ModelTable.Price;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/** Reads the CSV format of {@link ModelTable#parse}, naming the line and column of what is wrong. */
final class ModelCsv {
    static final String HEADER = "model,context_window,max_output,input,output,cache_read,cache_write";
    private static final String[] COLUMNS = HEADER.split(",");

    private final String source;
    private int line;

    private ModelCsv(String source) {
        this.source = source;
    }

    static Map<String, Entry> read(InputStream in, String source) {
        return new ModelCsv(source).rows(in);
    }

    private Map<String, Entry> rows(InputStream in) {
        Map<String, Entry> entries = new LinkedHashMap<>();
        try {
            BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
            String text;
            boolean header = false;
            while ((text = reader.readLine()) != null) {
                line++;
                text = text.strip();
                if (text.isEmpty() || text.startsWith("#")) {
                    continue;
                }
                if (!header) {
                    if (!text.equals(HEADER)) {
                        throw bad("the header must be '" + HEADER + "', was '" + text + "'");
                    }
                    header = true;
                    continue;
                }
                String[] cells = text.split(",", -1);
                if (cells.length != COLUMNS.length) {
                    throw bad("expected " + COLUMNS.length + " cells (" + HEADER + "), got " + cells.length);
                }
                String model = cells[0].strip();
                if (model.isEmpty()) {
                    throw bad("the model id is empty");
                }
                entries.put(model, entry(model, cells));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + source, e);
        }
        return entries;
    }

    private Entry entry(String model, String[] cells) {
        boolean windowGiven = !cells[1].isBlank() || !cells[2].isBlank();
        int priced = 0;
        for (int i = 3; i < cells.length; i++) {
            priced += cells[i].isBlank() ? 0 : 1;
        }
        if (priced != 0 && priced != 4) {
            throw badRow(model, "give all four prices (input, output, cache_read, cache_write) or none", null);
        }
        if (!windowGiven && priced == 0) {
            throw badRow(model, "the row gives neither a context window nor a price", null);
        }
        Integer tokens = windowGiven ? count(cells[1], 1, false) : null;
        Integer output = windowGiven ? count(cells[2], 2, true) : null;
        BigDecimal[] rates = new BigDecimal[4];
        for (int i = 0; i < priced; i++) {
            rates[i] = number(cells[3 + i], 3 + i);
        }
        try {
            return new Entry(windowGiven ? new ContextWindow(tokens, output) : null,
                    priced == 0 ? null : new Price(rates[0], rates[1], rates[2], rates[3]));
        } catch (IllegalArgumentException e) {
            throw badRow(model, e.getMessage(), e);
        }
    }

    private int count(String cell, int column, boolean optional) {
        String text = cell.strip();
        if (text.isEmpty() && optional) {
            return 0;
        }
        try {
            return Integer.parseInt(text);
        } catch (NumberFormatException e) {
            throw bad(COLUMNS[column] + " must be a whole number of tokens, was '" + text + "'", e);
        }
    }

    private BigDecimal number(String cell, int column) {
        try {
            return new BigDecimal(cell.strip());
        } catch (NumberFormatException e) {
            throw bad(COLUMNS[column] + " must be a number, was '" + cell.strip() + "'", e);
        }
    }

    private IllegalArgumentException bad(String message) {
        return bad(message, null);
    }

    private IllegalArgumentException bad(String message, Throwable cause) {
        return new IllegalArgumentException(source + " line " + line + ": " + message, cause);
    }

    private IllegalArgumentException badRow(String model, String message, Throwable cause) {
        return new IllegalArgumentException(source + " line " + line + " (" + model + "): " + message, cause);
    }
}
