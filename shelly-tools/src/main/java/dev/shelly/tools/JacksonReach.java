package dev.shelly.tools;

import tools.jackson.databind.ObjectMapper;

/**
 * Whether Jackson can bind a record of the caller's: on the module path, a named module must open
 * the record's package to Jackson, or every call of a typed tool and every structured answer would
 * fail at run time. Checked once, when the tool or the binder is made, so the mistake shows before
 * any model call, with the line that fixes it.
 */
final class JacksonReach {
    private static final Module JACKSON = ObjectMapper.class.getModule();

    private JacksonReach() {}

    /**
     * Throws when Jackson cannot reach a record type's package.
     *
     * @param record the record type
     * @throws IllegalArgumentException naming the module, the package and the {@code opens} line to add
     */
    static void check(Class<?> record) {
        Module module = record.getModule();
        if (!module.isNamed() || !JACKSON.isNamed()) {
            return; // on the class path everything is open
        }
        String pkg = record.getPackageName();
        if (module.isOpen(pkg, JACKSON)) {
            return;
        }
        String jackson = JACKSON.getName();
        throw new IllegalArgumentException("Jackson cannot bind record " + record.getName() + ": module "
                + module.getName() + " does not open package " + pkg + " to " + jackson
                + "; add this line to its module-info.java: opens " + pkg + " to " + jackson + ";");
    }
}
