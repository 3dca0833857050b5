#pragma once
// The rank-accuracy table written by `ttsim train` runs over several TT ranks
// (configs/datasets/atis_rank_accuracy.json), read as the DSE's accuracy objective and
// min_accuracy constraint. Document (every key required; no other key accepted):
//   {"source": "...", "command": "the command that regenerates it", "model": "...",
//    "epochs": N, "lr": x, "seed": s, "limit": n | null,
//    "ranks": [{"rank": 4, "test_intent_accuracy": 0.91, "test_slot_f1": 0.88,
//               "dev_intent_accuracy": ..., "dev_slot_f1": ..., "final_train_loss": ...,
//               "seconds": ...}, ...]}
// Accuracies and F1 are fractions in [0, 1]; each rank appears once.
//
// Lookup at a TT rank R: the row of R when listed ("table"); between two listed ranks
// a <= R <= b, linear interpolation of each figure in R ("interpolated"); below the
// smallest or above the largest rank, nothing (never extrapolated).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/json_view.h"

namespace ttsim::dse {

/// One trained rank.
struct RankAccuracy {
  std::int64_t rank = 0;
  double test_intent_accuracy = 0;  ///< fraction
  double test_slot_f1 = 0;          ///< fraction
  double dev_intent_accuracy = 0;   ///< fraction
  double dev_slot_f1 = 0;           ///< fraction
  double final_train_loss = 0;      ///< mean cross-entropy of the last epoch
  double seconds = 0;               ///< training wall time
};

/// Figures at one rank.
struct AccuracyLookup {
  double intent_accuracy = 0;  ///< test intent accuracy, fraction
  double slot_f1 = 0;          ///< test slot F1, fraction
  bool interpolated = false;   ///< false: the table's own row
  std::int64_t lower_rank = 0, upper_rank = 0;  ///< the rows used (equal when not interpolated)
  const char* source() const { return interpolated ? "interpolated" : "table"; }
};

/// The whole table.
struct AccuracyTable {
  std::string file;  ///< where it was loaded from
  std::string source, command, model;
  std::int64_t epochs = 0;
  double lr = 0;
  std::int64_t seed = 0;
  std::optional<std::int64_t> limit;  ///< training samples used (null: all)
  std::vector<RankAccuracy> ranks;    ///< ascending rank

  /// Figures at TT rank `rank` (see the file comment); nullopt outside the table's range.
  std::optional<AccuracyLookup> at(std::int64_t rank) const;
  /// Provenance for results.json: file, source, command, model, epochs, lr, seed, limit,
  /// ranks listed.
  Json provenance() const;
};

/// Validates a table document. Throws ConfigError naming `file`, the JSON pointer, what
/// was expected and what was found (missing or unknown keys, out-of-range values, a rank
/// listed twice).
AccuracyTable parse_accuracy_table(const Json& doc, const std::string& file);
/// Loads and validates the table (InputError when unreadable).
AccuracyTable load_accuracy_table(const std::string& path);

}  // namespace ttsim::dse
