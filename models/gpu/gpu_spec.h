#pragma once
// A GPU that the FPGA design is compared with (configs/devices/<gpu>.json, "kind": "gpu").
// Every constant of the GPU model (models/gpu) lives in the file's "constants" object with
// its value, unit, the range its sources span, its kind (M measured, S specification,
// D derived, source-code, assumption) and its source; the model reads them by name.

#include <map>
#include <string>
#include <vector>

#include "core/json_view.h"

namespace ttsim {

/// One constant of a cost model, as written in its config file.
struct SourcedConstant {
  double value = 0;
  double lo = 0, hi = 0;  ///< sourced range (lo == hi == value when the file gives none)
  bool has_range = false;
  std::string unit;       ///< e.g. "us", "W", "bytes", "fraction"
  std::string kind;       ///< "M", "S", "D", "E", "source-code" or "assumption"
  std::string source;     ///< where the value comes from, or why it is assumed
};

using GpuConstant = SourcedConstant;

/// Parses the object `constants` whose keys are exactly `names`, each {"value": number
/// >= 0, "unit": string, "kind": "M" | "S" | "D" | "E" | "source-code" | "assumption",
/// "source": non-empty string, optional "range": [lo, hi] with lo <= value <= hi}.
/// Throws ConfigError naming the file, the JSON pointer, what was expected and found.
std::map<std::string, SourcedConstant> parse_sourced_constants(const JsonView& constants,
                                                               const std::vector<std::string>& names);
/// {name: {value, unit, kind, source[, range]}}.
Json sourced_constants_json(const std::map<std::string, SourcedConstant>& constants);

/// The names every GPU file must define (the constants models/gpu reads).
const std::vector<std::string>& gpu_constant_names();

/// GPU parameters for the eager-PyTorch batch-1 training baseline.
struct GpuSpec {
  std::string name;
  std::string source_file;
  std::map<std::string, GpuConstant> constants;  ///< by name (gpu_constant_names())

  /// Value of constant `key` (throws std::out_of_range for a name the file lacks; the
  /// loader guarantees every gpu_constant_names() entry).
  double at(const std::string& key) const { return constants.at(key).value; }
  /// Copy with constant `key` set to `value` (for sensitivity runs).
  GpuSpec with(const std::string& key, double value) const;
  /// Json with every constant: {value, unit, kind, source[, range]}.
  Json to_json() const;
};

/// Loads and validates a GPU file: "kind": "gpu", "name", "constants" holding exactly the
/// names of gpu_constant_names(), each {"value": number >= 0, "unit": string, "kind": one
/// of the kinds, "source": non-empty string, optional "range": [lo, hi] with lo <= value
/// <= hi}. Throws ConfigError naming the file, the JSON pointer, what was expected and
/// what was found.
GpuSpec load_gpu_spec(const std::string& path);
GpuSpec parse_gpu_spec(const Json& doc, const std::string& file);

}  // namespace ttsim
