#pragma once
// The grid of training runs behind the accuracy table (dse/accuracy/accuracy_table.h): which
// models, TT ranks and seeds `ttsim accuracy-grid` trains, with what optimizer and
// stopping rule. Document (configs/datasets/atis_accuracy_grid.json; every key required
// except "description", no other key accepted):
//   {"description": "...",
//    "models": ["configs/models/atis_2enc.json", ...],   base models (one per encoder count)
//    "tt_ranks": [8, 12, 16, 24],                        rank of every TT layer
//    "seeds": [1, 2],                                    initialization + shuffle seeds
//    "engine": "reference", "lr": 0.004,
//    "max_epochs": 8, "patience": 2,
//    "layer_ranks": [{"name": "attn4_ffn24", "encoders": 2,      (optional) per-layer designs
//                     "ranks": {"tt_rank.attention": 4, "tt_rank.enc1.ffn_in": 24, ...}}]}
// A run trains base model × TT rank × seed with batch-1 SGD for at most max_epochs
// epochs and stops early once the dev intent accuracy has not improved for `patience`
// epochs (0: never early). Its reported figures are those of the epoch with the best
// dev intent accuracy (earliest on ties). The TT rank is set the way the explorer's
// tt_rank axis sets it (dse/space/axes.h). A "layer_ranks" design applies its rank axes
// (tt_rank.<kind>, tt_rank.enc<E>.<x>, in the order given) to the base model of its encoder
// count; its TT layers must end up with different ranks (a uniform model belongs in
// tt_ranks); the table keys it by every TT layer's rank. These are the held-out trainings that
// validate the explorer's per-layer accuracy model (dse/accuracy/accuracy_lookup.h). Model
// paths resolve as in a sweep (as given, else relative to the folders above the grid file).

#include <cstdint>
#include <string>
#include <vector>

#include "core/json_view.h"
#include "dse/accuracy/accuracy_table.h"

namespace ttsim::dse {

/// One run of the grid.
struct GridRun {
  AccuracyKey key;
  std::int64_t seed = 0;
  std::string id;          ///< file stem in the run folder, e.g. "e2_tt8_ttm30_s1", "e2_attn4_ffn24_ttm30_s1"
  std::string base_file;   ///< the base model file
  Json model;              ///< the model document with the rank applied
  std::string model_name;  ///< e.g. "atis_2enc_r8", "atis_2enc_attn4_ffn24"
  std::string label;       ///< a layer_ranks design's name ("" for a uniform rank)
};

/// The parsed grid.
struct GridSpec {
  std::string file;
  std::string description;
  std::vector<std::string> model_files;  ///< resolved paths
  std::vector<std::int64_t> tt_ranks, seeds;
  std::string engine;
  double lr = 0;
  std::int64_t max_epochs = 0, patience = 0;
  Json fixed;  ///< {"d_model", "heads", "ffn_dim", "seq_len"}: equal in every base model
  std::vector<GridRun> runs;  ///< seeds × models × ranks, in that nesting order
};

/// Validates a grid document and derives its runs. Throws ConfigError naming `file` and
/// the JSON pointer (missing/unknown keys, bad values, a model file that does not exist
/// or whose d_model, heads, ffn_dim or seq_len differ from the first model's, two models
/// with the same encoder count, a rank or seed listed twice; a layer_ranks design with a
/// name used twice or not of [a-z0-9_], an encoder count no model has, an axis that is not a
/// TT rank axis of that model, or ranks that leave every layer equal or repeat another
/// design).
GridSpec parse_grid_spec(const Json& doc, const std::string& file);
/// Loads and validates a grid file (InputError when unreadable).
GridSpec load_grid_spec(const std::string& path);

/// Index of the epoch (0-based) with the highest dev intent accuracy, earliest on ties;
/// `dev_intent` must not be empty.
std::size_t best_epoch_index(const std::vector<double>& dev_intent);
/// The stopping rule: true when the last `patience` epochs brought no better dev intent
/// accuracy than the best before them (patience 0: never).
bool should_stop(const std::vector<double>& dev_intent, std::int64_t patience);

}  // namespace ttsim::dse
