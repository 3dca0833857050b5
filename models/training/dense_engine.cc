// Training engine "dense": the dense, uncompressed baseline of the same architecture
// through the Eigen reference (models/reference/reference_model.h) in FP32: every TT
// layer and the TTM token table of the ModelSpec replaced by dense matrices
// (reference::densified), Xavier-normal initialization from the seed. Loss: intent CE +
// Σ slot CE, the same as the "hls" engine, so runs at the same seed and learning rate
// compare directly.

#include <fmt/format.h>

#include "core/errors.h"
#include "models/reference/reference_model.h"
#include "models/training/training_engine.h"

namespace ttsim::training {
namespace {

class DenseEngine : public TrainingEngine {
 public:
  explicit DenseEngine(const EngineSetup& setup)
      : model_(reference::densified(setup.model), reference::ReferenceOptions{setup.seed}),
        names_(model_.parameter_names()) {}

  std::string describe() const override {
    return fmt::format("dense Eigen reference (FP32), every TT/TTM weight dense, {} parameters",
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
  std::vector<int> tokens_, tags_;
};

const EngineRegistration kDense{
    {"dense", "dense uncompressed baseline through the Eigen reference, FP32",
     [](const EngineSetup& setup) -> std::unique_ptr<TrainingEngine> {
       return std::make_unique<DenseEngine>(setup);
     }}};

}  // namespace
}  // namespace ttsim::training
