#pragma once
// The interface between the ATIS training driver (models/training/trainer.h) and the
// code that actually computes a training step: the HLS kernels compiled natively
// (engine "hls") or the dense Eigen reference (engine "dense"). Engines register
// themselves by name, so `ttsim train` links whichever adapters exist.

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "models/dataset/encoding.h"
#include "models/model_spec.h"

namespace ttsim::training {

/// Sizes of the dataset the engine is trained on. The engine's embedding, intent head
/// and slot head are sized by the ModelSpec (vocab, intents, slot_tags), which must be
/// at least these; the driver checks that before creating the engine.
struct DatasetShape {
  int vocab = 0;      ///< token ids are in [0, vocab)
  int intents = 0;    ///< intent ids are in [0, intents)
  int slot_tags = 0;  ///< slot-tag ids are in [0, slot_tags)
  int pad_token = 0;  ///< token id at padded positions
  int pad_tag = 0;    ///< slot-tag id at padded positions (never a training target)
};

/// What an engine is built from.
struct EngineSetup {
  ModelSpec model;          ///< shapes, ranks, encoders, seq_len (= EncodedSample size)
  std::string arch_path;    ///< configs/arch/*.json given with --arch ("" when absent)
  DatasetShape data;
  std::uint64_t seed = 1;   ///< parameter initialization seed
};

/// Output of a forward pass on one sample.
struct Prediction {
  int intent = 0;               ///< argmax intent id
  std::vector<int> slot_tags;   ///< argmax slot-tag id per position, `length` entries
};

/// One model being trained with batch-1 SGD.
///
/// Contract: an engine is deterministic. Its whole state is its parameters: the same
/// parameters and the same sample give the same loss, update and prediction, so that a
/// run resumed from save_parameters() continues exactly as the uninterrupted run.
class TrainingEngine {
 public:
  virtual ~TrainingEngine() = default;

  /// Short description for logs, e.g. "hls: TT rank 12 BTT kernels (C simulation)".
  virtual std::string describe() const = 0;

  /// One SGD step on `sample` (forward, backward, update of every parameter with
  /// learning rate `lr`) on the sample's first `length` tokens. Returns the sample's
  /// training loss before the update in nats, as the engine defines it (the reference
  /// model's: intent cross-entropy plus the sum of the slot cross-entropies).
  virtual double train_step(const dataset::EncodedSample& sample, float lr) = 0;

  /// Forward pass without update: argmax intent and argmax slot tag of each of the
  /// sample's `length` positions.
  virtual Prediction predict(const dataset::EncodedSample& sample) = 0;

  /// All trainable parameters as an opaque byte string (engine-defined layout).
  virtual std::string save_parameters() const = 0;

  /// Restores parameters written by save_parameters() of an engine built from the same
  /// setup. Throws InputError when `blob` does not fit (size or layout).
  virtual void load_parameters(const std::string& blob) = 0;
};

/// Builds an engine from a setup; may throw InputError / ConfigError.
using EngineFactory = std::function<std::unique_ptr<TrainingEngine>(const EngineSetup&)>;

/// A named engine.
struct EngineInfo {
  std::string name;     ///< "hls", "dense", ...
  std::string summary;  ///< one line for --help
  EngineFactory make;
};

/// Every engine linked into the binary, sorted by name.
const std::vector<EngineInfo>& engine_registry();

/// Registers an engine at static-initialization time (use in an alwayslink library).
struct EngineRegistration {
  explicit EngineRegistration(EngineInfo info);
};

/// Builds engine `name`. Throws InputError naming the linked engines when there is no
/// engine of that name.
std::unique_ptr<TrainingEngine> make_engine(const std::string& name, const EngineSetup& setup);

/// Float parameters packed as bytes, for engines whose save_parameters() is a flat list
/// of float arrays: appends `count` floats to `blob`.
void append_floats(std::string& blob, const float* data, std::size_t count);

/// Reads `count` floats from `blob` at `offset` (advanced). Throws InputError
/// ("parameter blob too short") when fewer remain.
void read_floats(const std::string& blob, std::size_t& offset, float* data, std::size_t count);

}  // namespace ttsim::training
