#pragma once
// A sweep: base model/arch/device files, the axes to vary, constraints, objectives,
// search strategy, budget and simulation fidelity. Loaded from configs/sweeps/*.json
// through JsonView, so every error names the file and the JSON pointer.
//
// {
//   "name": "atis_u50",
//   "base": {"model": "configs/models/atis_2enc.json", "arch": "configs/arch/u50_paper.json",
//            "device": "configs/devices/u50.json"},
//   "accuracy_table": "configs/datasets/atis_accuracy.json",        (optional)
//   "dataset": {"lengths": "configs/datasets/atis_lengths.json", "split": "train"}, (optional;
//              without it there are no epoch metrics)
//   "axes": {"tt_rank": {"from": 4, "to": 32, "step": 4}, "flow": ["mm", "tt", "btt"], ...},
//   "reference": [{"label": "u50_paper, 2 encoders", "values": {"encoders": 2}}],
//   "constraints": {"resource_headroom_pct": 10, "max_epoch_seconds": 600,
//                   "min_compression": 10, "max_compression": 40, "min_accuracy": 0.9},
//   "objectives": ["epoch_seconds", "onchip_bytes"],
//   "search": {"strategy": "grid"} | {"strategy": "random", "count": 200, "seed": 1}
//           | {"strategy": "nsga2", "population": 32, "generations": 20, "seed": 1},
//   "budget": {"points": 5000, "seconds": 120},                          (optional)
//   "fidelity": "analytic" | "systemc_pareto" | "systemc_all",
//   "choose": {"minimize": "epoch_seconds"}                              (optional)
// }
// Relative paths are tried from the working directory, then from each folder above
// the sweep file. Axis values are lists or {"from", "to", "step"} integer ranges.
// A reference point's unlisted axes keep the base files' values (the grid point with
// those values when every one of them is among the axis' values). "axes": {} with no
// "reference" is an empty design space, refused at /axes.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/json_view.h"
#include "dse/space/axes.h"
#include "dse/space/design_space.h"
#include "dse/space/metrics.h"
#include "dse/space/search_spec.h"
#include "hw/resource_fit.h"

namespace ttsim::dse {

/// Which points SystemC evaluates besides the analytic pass every point gets: the sweep
/// file's "fidelity" key. Not a fidelity itself (an evaluation's fidelity is one of
/// sim/fidelity.h's two) but the plan of a run's SystemC stage (dse/run/finish.h).
enum class SystemcScope {
  kNone,         ///< "analytic": the analytic evaluator only
  kParetoFront,  ///< "systemc_pareto": SystemC re-evaluates the Pareto candidates until the front is all SystemC
  kAll,          ///< "systemc_all": SystemC for every point
};
/// "analytic", "systemc_pareto" or "systemc_all", as the sweep file writes it.
const char* to_string(SystemcScope s);

struct ConstraintSpec {
  /// Usable share of each device resource = 100 − this (default: the one every other
  /// command uses, hw/resource_fit.h kDefaultResourceHeadroomPct).
  double resource_headroom_pct = kDefaultResourceHeadroomPct;
  std::optional<double> max_epoch_seconds;
  std::optional<double> min_compression;
  /// At most this compression (dense / stored parameters): a floor on the parameters kept,
  /// the capacity budget of a per-layer rank search when accuracy per layer is not measured.
  std::optional<double> max_compression;
  std::optional<double> min_accuracy;  ///< fraction in [0, 1]
};

struct SweepSpec {
  std::string name;
  std::string file;            ///< the sweep file as given
  Json doc;                    ///< the sweep document as read
  std::string model_file, arch_file, device_file;  ///< resolved paths
  Json model_doc, arch_doc, device_doc;            ///< base documents
  std::string accuracy_table;  ///< resolved path, "" when not given (a given path must exist: ConfigError)
  std::string accuracy_table_requested;  ///< as written in the sweep ("" if none)
  std::string lengths_file;    ///< token-length histogram file, "" when not given
  std::string lengths_split = "train";
  DesignSpace space;
  std::vector<AxisEditor> editors;  ///< one per axis of `space`, in axis order
  /// Each axis's value in the base documents (editors[i].current(model_doc, arch_doc); null
  /// where they do not set it), in axis order: point names compare a point's values with them.
  std::vector<Json> base_values;
  /// Distinct for every sweep built (copies share it): what per-thread memos of its resolved
  /// documents (resolve_point) are keyed on, with the axis indices.
  std::uint64_t identity = 0;
  ConstraintSpec constraints;
  std::vector<Metric> objectives;  ///< at least one
  SearchSpec search;
  BudgetSpec budget;
  SystemcScope systemc = SystemcScope::kParetoFront;  ///< the "fidelity" key
  Metric choose_metric = Metric::kEpochSeconds;  ///< chosen design minimises (or maximises) this
};

/// Loads and validates a sweep file. Throws InputError / ConfigError (file, JSON
/// pointer, expected, found) for unknown keys, bad axis values, unknown metrics,
/// missing base files, and an empty design space (no axis and no reference, at /axes).
SweepSpec load_sweep_spec(const std::string& path);
/// Largest grid a "grid" search plans without /budget/points, and most points a "random"
/// search draws (their point ids are held in memory): parse_sweep_spec refuses a larger grid
/// at /axes and a larger /search/count.
inline constexpr std::uint64_t kMaxGridPoints = 1ULL << 28;

SweepSpec parse_sweep_spec(const Json& doc, const std::string& file);

/// Resolves a path from a config: as given when it exists, else relative to each
/// folder above `relative_to_file`. Returns "" when nothing exists.
std::string find_config_path(const std::string& path, const std::string& relative_to_file);

}  // namespace ttsim::dse
