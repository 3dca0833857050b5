// Training engines on the Eigen reference (models/reference/reference_model.h), FP32:
// - "dense": the dense, uncompressed baseline of the same architecture: every TT layer
//   and the TTM token table of the ModelSpec replaced by dense matrices
//   (reference::densified);
// - "reference": the ModelSpec as given (TT / TTM), BTT flow: the same compressed model
//   as the "hls" engine computed by the reference, to tell kernel effects from
//   compression effects.
// Xavier-normal initialization from the seed. Loss: intent CE + Σ slot CE, the same as
// the "hls" engine, so runs at the same seed and learning rate compare directly.

#include <fmt/format.h>

#include "core/errors.h"
#include "models/reference/reference_model.h"
#include "models/training/training_engine.h"

namespace ttsim::training {
namespace {

class DenseEngine : public TrainingEngine {
 public:
  DenseEngine(const EngineSetup& setup, bool densify)
      : model_(densify ? reference::densified(setup.model) : setup.model,
               reference::ReferenceOptions{setup.seed}),
        names_(model_.parameter_names()),
        densify_(densify) {}

  std::string describe() const override {
    return fmt::format("{} Eigen reference (FP32), {}, {} parameters",
                       densify_ ? "dense" : "compressed",
                       densify_ ? "every TT/TTM weight dense" : "TT/TTM as configured, BTT",
                       model_.parameter_count());
  }

  double train_step(const dataset::EncodedSample& s, float lr) override {
    tokens_.assign(s.tokens.begin(), s.tokens.begin() + s.length);
    tags_.assign(s.tags.begin(), s.tags.begin() + s.length);
    return model_.train_step(tokens_, s.intent, tags_, lr).loss;
  }

  Prediction predict(const dataset::EncodedSample& s) override {
    tokens_.assign(s.tokens.begin(), s.tokens.begin() + s.length);
    tags_.assign(static_cast<std::size_t>(s.length), -1);  // no loss targets needed
    auto r = model_.forward(tokens_, s.intent, tags_);
    return Prediction{r.predicted_intent, std::move(r.predicted_slots)};
  }

  std::string save_parameters() const override {
    std::string blob;
    for (const auto& n : names_) {
      const auto& m = model_.parameter(n);
      append_floats(blob, m.data(), static_cast<std::size_t>(m.size()));
    }
    return blob;
  }

  void load_parameters(const std::string& blob) override {
    const std::size_t bytes = static_cast<std::size_t>(model_.parameter_count()) * sizeof(float);
    if (blob.size() != bytes) {
      throw InputError(fmt::format("dense engine: checkpoint holds {} bytes of parameters, "
                                   "this model has {}",
                                   blob.size(), bytes));
    }
    std::size_t offset = 0;
    for (const auto& n : names_) {
      auto& m = model_.parameter(n);
      read_floats(blob, offset, m.data(), static_cast<std::size_t>(m.size()));
    }
  }

 private:
  reference::ReferenceModelT<float> model_;
  std::vector<std::string> names_;
  bool densify_;
  std::vector<int> tokens_, tags_;
};

const EngineRegistration kDense{
    {"dense", "dense uncompressed baseline through the Eigen reference, FP32",
     [](const EngineSetup& setup) -> std::unique_ptr<TrainingEngine> {
       return std::make_unique<DenseEngine>(setup, /*densify=*/true);
     }}};

const EngineRegistration kReference{
    {"reference", "the configured (TT/TTM) model through the Eigen reference, FP32",
     [](const EngineSetup& setup) -> std::unique_ptr<TrainingEngine> {
       return std::make_unique<DenseEngine>(setup, /*densify=*/false);
     }}};

}  // namespace
}  // namespace ttsim::training
