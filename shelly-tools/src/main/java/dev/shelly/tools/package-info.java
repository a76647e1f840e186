/**
 * API: the tool model: a {@link dev.shelly.tools.Tool} with its name, description and JSON
 * schema, typed tools bound from records, toolboxes, and the outputs a tool returns.
 */
package dev.shelly.tools;
