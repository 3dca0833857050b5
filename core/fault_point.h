#pragma once
// Fault injection for tests of interrupted and killed runs (a test hook; off unless
// the environment variable TTSIM_FAULT_AT is set).
//
// TTSIM_FAULT_AT="<n>:<signal>" (signal KILL, INT, TERM or STOP) makes the process raise that
// signal at the n-th fault point it passes (1-based). Fault points are the places where a
// run records progress: each evaluation done and each output file written (before and
// after its rename). With one worker thread the sequence of fault points of a run is
// deterministic, so a test can stop a run at a chosen, reproducible place.

namespace ttsim {

/// Counts one fault point and raises the configured signal when its turn has come.
/// Thread-safe; a no-op when TTSIM_FAULT_AT is unset. An unparsable value is ignored.
void fault_point();

}  // namespace ttsim
