/**
 * API: state that agents share: a blackboard {@link dev.shelly.state.Store} of JSON values with
 * change signals, its tools, and the {@link dev.shelly.state.StateBackend} it keeps them in.
 */
package dev.shelly.state;
