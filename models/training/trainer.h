#pragma once
// The ATIS training driver: batch-1 SGD over the train split in a seeded shuffled order,
// then intent accuracy and span slot F1 on dev and test after every epoch. The step
// itself is delegated to a TrainingEngine (models/training/training_engine.h).
//
// Reproducibility: the visiting order of epoch e (1-based) depends only on (seed, e)
// (shuffled_order), and engines are deterministic functions of their parameters, so the
// same seed gives the same numbers, and a run resumed from a checkpoint after epoch e
// gives the same numbers as the uninterrupted run.

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/json_view.h"
#include "models/model_spec.h"
#include "models/dataset/atis_dataset.h"
#include "models/training/training_engine.h"

namespace ttsim::training {

struct EpochResult;

/// Settings of one training run.
struct TrainOptions {
  int epochs = 1;               ///< total epochs (a resumed run continues up to this)
  float lr = 4e-3f;             ///< SGD learning rate (reference design: 4e-3)
  std::uint64_t seed = 1;       ///< shuffling seed (engines get it for initialization)
  int limit = 0;                ///< train on the first `limit` train utterances; 0 = all
  int eval_limit = 0;           ///< evaluate the first `eval_limit` dev/test utterances; 0 = all
  int seq_len = 32;             ///< model sequence length (truncation/padding)
  std::string checkpoint_path;  ///< save after every epoch and resume from it; "" = none
  double progress_seconds = 5;  ///< seconds between progress lines (<= 0: every sample)
  /// When non-null and set, train() stops before the next sample and throws Cancelled
  /// (the checkpoint keeps the last finished epoch).
  const std::atomic<bool>* cancel = nullptr;
  /// Called after every training sample with the epoch (1-based) and the samples done
  /// in it (1..n); may be empty.
  std::function<void(int epoch, int samples_done)> on_sample;
  /// Stopping rule: called with every epoch so far (loaded from the checkpoint or new)
  /// before each further epoch; returning true ends training early. May be empty.
  std::function<bool(const std::vector<EpochResult>&)> stop_early;
};

/// Thrown by train() when TrainOptions::cancel was set.
struct Cancelled : std::runtime_error {
  Cancelled() : std::runtime_error("training cancelled") {}
};

/// What identifies a run, stored in checkpoints; a resume must match it.
struct RunIdentity {
  std::string engine;       ///< engine name ("hls", "dense", ...)
  std::string model;        ///< ModelSpec name
  std::uint64_t seed = 1;
  float lr = 0;
  int train_samples = 0;    ///< after --limit
  int vocab = 0;            ///< dataset vocabulary size
  int seq_len = 0;
};

/// Evaluation of one split.
struct EvalResult {
  int samples = 0;
  double intent_accuracy = 0;  ///< fraction in [0, 1]
  double slot_f1 = 0, slot_precision = 0, slot_recall = 0;  ///< CoNLL span metrics, [0, 1]
  std::int64_t gold_spans = 0, predicted_spans = 0, correct_spans = 0;
  double seconds = 0;          ///< wall time of the evaluation
};

/// Figures of one epoch.
struct EpochResult {
  int epoch = 0;               ///< 1-based
  double train_loss = 0;       ///< mean per-sample loss over the epoch (before each update)
  int train_samples = 0;
  double train_seconds = 0;    ///< wall time of the SGD steps (excluding evaluation)
  double samples_per_second = 0;
  EvalResult dev, test;
};

/// Visiting order of epoch `epoch` (1-based): a permutation of 0..n-1 drawn by a
/// Fisher-Yates shuffle from a std::mt19937_64 seeded with a mix of (seed, epoch); the
/// bounded draws are done here (not by std::uniform_int_distribution) so the order is
/// the same with every standard library.
std::vector<int> shuffled_order(int n, std::uint64_t seed, int epoch);

/// Predicts every utterance of `split` (the first `limit`, 0 = all) and scores it
/// against the gold strings: an intent counts when its label equals the gold label; the
/// predicted tags of the first `length` positions are scored with span F1 and positions
/// past seq_len (truncated) are predicted "O". Predicted ids outside the dataset's label
/// sets (the model may have more outputs) count as "UNK" (wrong intent / no span).
EvalResult evaluate(TrainingEngine& engine, const dataset::AtisDataset& ds,
                    const dataset::Split& split, int seq_len, int limit);

/// A finished or resumed run.
struct TrainReport {
  RunIdentity identity;
  int resumed_after_epoch = 0;       ///< epochs loaded from the checkpoint (0 = fresh)
  std::vector<EpochResult> epochs;   ///< all epochs, loaded ones included
};

/// Trains `engine` for options.epochs epochs. With a checkpoint path: when the file
/// exists, restores the parameters and the epoch history from it (InputError when it was
/// written by a different run identity or is damaged) and continues after its last epoch;
/// after every epoch, writes it atomically. Progress lines go to `progress` (may be null);
/// `on_epoch` (may be empty) is called for every epoch loaded from the checkpoint
/// (from_checkpoint = true) and after every new one. Throws InputError when the
/// loss becomes non-finite (the message names the epoch, the sample and suggests a lower
/// learning rate).
TrainReport train(TrainingEngine& engine, const dataset::AtisDataset& ds,
                  const TrainOptions& options, const RunIdentity& identity,
                  std::ostream* progress,
                  const std::function<void(const EpochResult&, bool from_checkpoint)>&
                      on_epoch = {});

/// The engine's sizes for a dataset: vocabulary, intents and slot tags of `ds`.
DatasetShape dataset_shape(const dataset::AtisDataset& ds);

/// Checks that `model` can be trained on `ds`: batch 1, and vocab, intents and
/// slot_tags at least the dataset's (the extra outputs are never targets). Throws
/// InputError naming model.source_file, the field, expected and found.
void check_model_fits_dataset(const ModelSpec& model, const dataset::AtisDataset& ds);

/// JSON of the run: identity fields, "resumed_after_epoch" and "epochs": [{epoch,
/// train_loss, train_samples, train_seconds, samples_per_second, dev: {...}, test:
/// {...}}], the split objects holding samples, intent_accuracy, slot_f1, slot_precision,
/// slot_recall, gold_spans, predicted_spans, correct_spans, seconds.
Json train_report_to_json(const TrainReport& report);

/// JSON of one epoch and back (used by checkpoints).
Json epoch_to_json(const EpochResult& e);
EpochResult epoch_from_json(const Json& j, const std::string& file);

}  // namespace ttsim::training
