#pragma once
// The rank-accuracy table written by `ttsim train` runs over several TT ranks
// (configs/datasets/atis_rank_accuracy.json), read as the DSE's accuracy objective and
// min_accuracy constraint. Expected document:
//   {"ranks": [{"rank": 4, "test_intent_accuracy": 0.91, ...}, ...], ...}
// Accuracies are fractions in [0, 1]. Other members are ignored.

#include <string>

#include "dse/sweep_evaluation.h"

namespace ttsim::dse {

/// Loads the table. Throws InputError / ConfigError (file, JSON pointer) when the file
/// does not have the layout above.
AccuracyByRank load_accuracy_table(const std::string& path);

}  // namespace ttsim::dse
