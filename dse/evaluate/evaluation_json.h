#pragma once
// The one writer (and reader) of an evaluation as JSON text, used by every output: the run's
// evaluation log (dse/run/run_state.h), results.jsonl and, through it, results.json and
// chosen.json (dse/run/result_stream.h). Text is written directly, keys in ascending order as a
// JSON object dumps them, so a million-point run builds no JSON document per point.

#include <string>

#include "core/json_view.h"
#include "dse/evaluate/evaluator.h"

namespace ttsim::dse {

/// How a number is written: as nlohmann's dump writes a double ("721.0", "1e-05": the
/// evaluation log, and the documents results.json and chosen.json hold), or as the shortest
/// round-trip text ("721": results.jsonl); both read back as the same double. Either way
/// null when not finite (NaN: unavailable).
enum class JsonNumbers { kDump, kShortest };

/// Appends `s` as a JSON string: as is between quotes when no character needs escaping
/// (printable ASCII but '"' and '\\'), else as nlohmann's dump escapes it (and refuses
/// invalid UTF-8).
void append_json_string(std::string& out, const std::string& s);
/// Appends `x` in `style`.
void append_json_number(std::string& out, double x, JsonNumbers style);
/// Appends {"<metric>": value|null, ...} for every metric, keys in ascending order.
void append_metrics_json(std::string& out, const MetricValues& m, JsonNumbers style);

/// Appends an evaluation as the run's log holds it: {"accuracy_source"?, "error"?, "fidelity",
/// "metrics", "tt_rank"?} (the optional keys only when set), numbers as the JSON dump writes
/// them (the text of dumping the same object: tests/dse check it).
void append_evaluation_json(std::string& out, const Evaluation& e);
/// Reads append_evaluation_json's object filed under `slot` (a log line's "analytic" or
/// "systemc" member): NaN round-trips as null, doubles exactly. Throws ConfigError at its
/// pointer, among others when its /fidelity is not `slot`'s.
Evaluation evaluation_from_json(const JsonView& v, Fidelity slot);

}  // namespace ttsim::dse
