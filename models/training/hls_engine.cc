// Training engine "hls": the HLS training kernels compiled natively (C simulation),
// through the host API hls/host/hls_model.h. Loss: intent CE + Σ slot CE (slot_scale 1),
// the same loss as the dense reference engine. With --arch, the contraction flow of each
// TT layer kind follows the arch file's flow_by_kind (BTT or sequential TT); without it,
// every TT layer runs BTT.

#include <fmt/format.h>

#include "core/errors.h"
#include "hls/host/hls_model.h"
#include "models/training/training_engine.h"
#include "hw/arch_spec.h"

namespace ttsim::training {
namespace {

class HlsEngine : public TrainingEngine {
 public:
  HlsEngine(const EngineSetup& setup, const HlsModelOptions& options)
      : model_(setup.model, options), options_(options) {}

  std::string describe() const override {
    std::string flows;
    for (const auto& [kind, btt] : options_.btt_by_kind) {
      flows += fmt::format("{}{}={}", flows.empty() ? "" : ", ", kind, btt ? "BTT" : "TT");
    }
    return fmt::format("HLS kernels compiled natively (C simulation), FP32, {} parameters, "
                       "TT flows: {}",
                       model_.parameter_count(), flows.empty() ? "BTT" : flows);
  }

  double train_step(const dataset::EncodedSample& s, float lr) override {
    tokens_.assign(s.tokens.begin(), s.tokens.begin() + s.length);
    tags_.assign(s.tags.begin(), s.tags.begin() + s.length);
    return model_.train_step(tokens_, s.intent, tags_, lr).total();
  }

  Prediction predict(const dataset::EncodedSample& s) override {
    tokens_.assign(s.tokens.begin(), s.tokens.begin() + s.length);
    HlsPrediction p = model_.predict(tokens_);
    return Prediction{p.intent, std::move(p.slots)};
  }

  std::string save_parameters() const override {
    std::string blob;
    append_floats(blob, model_.parameters().data(), model_.parameters().size());
    return blob;
  }

  void load_parameters(const std::string& blob) override {
    const std::size_t words = model_.parameters().size();
    if (blob.size() != words * sizeof(float)) {
      throw InputError(fmt::format("hls engine: checkpoint holds {} bytes of parameters, this "
                                   "model's parameter arena has {} ({} FP32 words: {} parameters and "
                                   "the update groups' alignment padding)",
                                   blob.size(), words * sizeof(float), words, model_.parameter_count()));
    }
    std::vector<float> values(words);
    std::size_t offset = 0;
    read_floats(blob, offset, values.data(), words);
    model_.set_parameters(values);
  }

 private:
  HlsModel model_;
  HlsModelOptions options_;
  std::vector<int> tokens_, tags_;
};

std::unique_ptr<TrainingEngine> make_hls_engine(const EngineSetup& setup) {
  HlsModelOptions options;
  options.seed = setup.seed;
  if (!setup.arch_path.empty()) {
    const ArchSpec arch = load_arch_spec(setup.arch_path);
    for (const auto& [kind, flow] : arch.flow_by_kind) {
      if (flow == Flow::kMM) {
        // An MM flow only applies to dense layers; TT layers of this kind cannot run it.
        bool tt_layer = false;
        for (const auto& l : setup.model.linears) {
          tt_layer |= l.kind == kind && l.format == WeightFormat::kTT;
        }
        if (tt_layer) {
          throw InputError(fmt::format(
              "{}: /flows/{}: the HLS kernels run TT layers with the BTT or the sequential TT "
              "flow, found mm for the TT layers of {} (use a dense model or --dense)",
              setup.arch_path, kind, setup.model.name));
        }
        continue;
      }
      options.btt_by_kind[kind] = flow == Flow::kBTT;
    }
    // Recomputed BTT merges: the same step bit for bit, run as the emitted build runs it.
    options.recompute_merges = arch.recompute_merges;
    options.recompute_encoders = arch.recompute_encoders;
    if (arch.recompute_merges) {
      for (const auto& [kind, flow] : arch.flow_by_kind) {
        if (flow != Flow::kBTT) {
          throw InputError(fmt::format("{}: /memory/recompute: \"btt_merges\" recomputes the merges of the BTT "
                                       "flow, but /flows/{} is {}",
                                       setup.arch_path, kind, to_string(flow)));
        }
      }
    }
  }
  return std::make_unique<HlsEngine>(setup, options);
}

const EngineRegistration kHls{
    {"hls", "the HLS training kernels compiled natively (C simulation), FP32",
     make_hls_engine}};

}  // namespace
}  // namespace ttsim::training
