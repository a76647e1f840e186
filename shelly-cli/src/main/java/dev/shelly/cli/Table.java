package dev.shelly.cli;

import java.util.ArrayList;
import java.util.List;

/** Rows of text as aligned columns, two spaces apart; the last column is not padded. */
final class Table {
    private Table() {}

    static List<String> lines(List<List<String>> rows) {
        int columns = rows.stream().mapToInt(List::size).max().orElse(0);
        int[] widths = new int[columns];
        for (List<String> row : rows) {
            for (int i = 0; i < row.size(); i++) {
                widths[i] = Math.max(widths[i], row.get(i).length());
            }
        }
        List<String> lines = new ArrayList<>();
        for (List<String> row : rows) {
            StringBuilder line = new StringBuilder();
            for (int i = 0; i < row.size(); i++) {
                line.append(row.get(i));
                if (i < row.size() - 1) {
                    line.append(" ".repeat(widths[i] - row.get(i).length() + 2));
                }
            }
            lines.add(line.toString().stripTrailing());
        }
        return lines;
    }
}
