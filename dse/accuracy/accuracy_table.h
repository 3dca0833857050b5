#pragma once
// The accuracy table: trained accuracy of the ATIS model per (encoders, TT rank, TTM
// rank) over several seeds, written by `ttsim accuracy-grid` (dse/accuracy/accuracy_grid.h) and
// read by the explorer (dse/accuracy/accuracy_lookup.h). Document
// (configs/datasets/atis_accuracy.json; every key required, no other key accepted):
//   {"description": "...",
//    "fixed": {"d_model": 768, "heads": 12, "ffn_dim": 768, "seq_len": 32},
//    "training": {"engine": "reference", "lr": 0.004, "max_epochs": 8, "patience": 2,
//                 "selection": "...", "limit": null | n, "eval_limit": null | n,
//                 "test_samples": 893},
//    "provenance": {"command": "...", "data": "...", "grid": "...", "git_commit": "..."},
//    "entries": [{"encoders": 2, "tt_rank": 8, "ttm_rank": 30, "model": "atis_2enc_r8",
//                 "n": 2, "test_intent_accuracy": {"mean": m, "std": s | null},
//                 "test_slot_f1": {...}, "dev_intent_accuracy": {...},
//                 "runs": [{"seed": 1, "best_epoch": 4, "stopped_epoch": 6,
//                           "test_intent_accuracy": a, "test_slot_f1": f,
//                           "dev_intent_accuracy": d, "dev_slot_f1": g,
//                           "train_loss": l, "seconds": t, "samples_per_second": r}]}],
//    "missing": [{"encoders": 6, "tt_rank": 24, "ttm_rank": 30, "seeds": [2]}]}
// An entry of a model whose TT layers have different ranks (the grid's "layer_ranks"
// designs) has "layer_ranks": {"enc0.ffn_in": 24, "enc0.k": 4, ...} (every TT encoder layer)
// instead of "tt_rank"; in "missing" too.
// The key of an entry is (encoders, tt_rank or layer_ranks, ttm_rank): everything the grid
// varies that changes the trained model. Everything else that does ("fixed": model sizes; "training":
// optimizer and stopping rule) is the same for every entry. The contraction flow (TT or
// BTT), lanes and clock do not change the model (BTT only reassociates sums).
// Accuracies and F1 are fractions in [0, 1]; "std" is the sample standard deviation over
// the runs (null when n = 1); the parser recomputes mean and std from "runs" and refuses a
// document whose stored figures differ. A run's figures are those of its best dev epoch.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/json_view.h"

namespace ttsim::dse {

/// What identifies a trained model in the table.
struct AccuracyKey {
  std::int64_t encoders = 0;
  std::int64_t tt_rank = 0;   ///< rank of every TT layer (attention, ffn_in, ffn_out); 0 when per-layer
  std::int64_t ttm_rank = 0;  ///< rank of the TTM token embedding
  /// The rank of every TT encoder layer by layer name ("enc0.q" -> 8, ModelSpec::linears'
  /// names) when they differ; empty when they share one rank (then `tt_rank` is it).
  std::map<std::string, std::int64_t> layer_ranks;
  bool per_layer() const { return !layer_ranks.empty(); }
  bool operator==(const AccuracyKey& o) const {
    return encoders == o.encoders && tt_rank == o.tt_rank && ttm_rank == o.ttm_rank &&
           layer_ranks == o.layer_ranks;
  }
  /// By encoders, TTM rank, then uniform ranks ascending before per-layer keys.
  bool operator<(const AccuracyKey& o) const;
  /// "encoders 2, TT rank 8, TTM rank 30"; per-layer: "encoders 2, per-layer TT ranks
  /// (enc0.ffn_in 24, ...), TTM rank 30".
  std::string describe() const;
};

/// One finished training run (one seed), figures at its best dev intent epoch.
struct AccuracyRun {
  std::int64_t seed = 0;
  std::int64_t best_epoch = 0;     ///< epoch (1-based) whose figures are reported
  std::int64_t stopped_epoch = 0;  ///< last epoch trained
  double test_intent_accuracy = 0, test_slot_f1 = 0;  ///< fractions
  double dev_intent_accuracy = 0, dev_slot_f1 = 0;    ///< fractions
  double train_loss = 0;           ///< mean loss of the best epoch, nats
  double seconds = 0;              ///< wall time of the whole run (training + evaluation), s
  double samples_per_second = 0;   ///< training throughput over the run's epochs
};

/// Mean and sample standard deviation of one figure over an entry's runs.
struct Spread {
  double mean = 0;
  std::optional<double> std;  ///< sample std (n - 1 in the denominator); none when n = 1
};

/// Mean and spread of `values` (at least one).
Spread spread_of(const std::vector<double>& values);

/// All runs of one key.
struct AccuracyEntry {
  AccuracyKey key;
  std::string model;  ///< model name trained
  std::vector<AccuracyRun> runs;  ///< ascending seed, at least one
  Spread test_intent_accuracy, test_slot_f1, dev_intent_accuracy;  ///< over runs
};

/// Settings shared by every run of the table.
struct AccuracyTraining {
  std::string engine;  ///< training engine ("reference")
  double lr = 0;
  std::int64_t max_epochs = 0;
  std::int64_t patience = 0;  ///< stop after this many epochs without a better dev intent accuracy
  std::string selection;      ///< how a run's reported epoch is chosen, in words
  std::optional<std::int64_t> limit, eval_limit;  ///< samples used (none: whole split)
  std::int64_t test_samples = 0;  ///< test utterances scored per run
};

/// A key the grid asked for but has not (fully) trained.
struct MissingRuns {
  AccuracyKey key;
  std::vector<std::int64_t> seeds;
};

/// The whole table.
struct AccuracyTable {
  std::string file;  ///< where it was loaded from ("" when built in memory)
  std::string description;
  Json fixed;        ///< model fields equal in every entry, e.g. {"d_model": 768, ...}
  AccuracyTraining training;
  Json provenance;   ///< {"command", "data", "grid", "git_commit"}
  std::vector<AccuracyEntry> entries;  ///< ascending key, each key once
  std::vector<MissingRuns> missing;

  /// The entry of `key`, or null.
  const AccuracyEntry* find(const AccuracyKey& key) const;
};

/// Fills the entry's spreads from its runs (sorted by seed first).
void summarize(AccuracyEntry& entry);

/// Validates a table document. Throws ConfigError naming `file`, the JSON pointer, what
/// was expected and what was found (missing or unknown keys, out-of-range values, a key
/// or seed listed twice, stored mean/std/n that differ from the runs').
AccuracyTable parse_accuracy_table(const Json& doc, const std::string& file);
/// Loads and validates the table (InputError when unreadable).
AccuracyTable load_accuracy_table(const std::string& path);
/// The document of `table` (the format above; parse_accuracy_table reads it back).
Json accuracy_table_to_json(const AccuracyTable& table);

/// For results.json: {"file", "description", "fixed", "training", "provenance",
/// "measured": [[encoders, tt_rank, ttm_rank, n], ...] (tt_rank: the layer_ranks object of a
/// per-layer entry), "missing_runs": count}.
Json accuracy_table_summary(const AccuracyTable& table);

/// One run as JSON (the "runs" element) and back; `v` errors name its file and pointer.
Json accuracy_run_to_json(const AccuracyRun& r);
AccuracyRun accuracy_run_from_json(const JsonView& v);

}  // namespace ttsim::dse
