#pragma once
// Host-side C++ API over the HLS kernels compiled natively (C simulation): one
// training step on one sample, prediction, and access to every parameter by name.
// Used by `ttsim train` and the tests. The step is exactly the code the synthesis top
// (hls/kernels/top.h) runs; only the arenas live in std::vector here and the shapes
// come from a ModelSpec at run time instead of design_config.h.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "hls/kernels/model_step.h"
#include "models/model_spec.h"

namespace ttsim {

/// Choices of an HlsModel.
struct HlsModelOptions {
  std::uint64_t seed = 1;  ///< parameter initialization seed
  /// Contraction flow of TT layers per layer kind ("attention", "ffn_in", "ffn_out"):
  /// true BTT (default for kinds not listed), false sequential TT.
  std::map<std::string, bool> btt_by_kind;
  /// Every BTT layer recomputes its merges in its backward pass (LinearDims::recompute);
  /// the same arithmetic, less saved memory.
  bool recompute_merges = false;
  /// Every encoder but the last runs its forward again before its backward
  /// (ModelDims::recompute_encoders); the same arithmetic, less saved memory.
  bool recompute_encoders = false;
  /// The machine (an arch with /contraction/accumulate "by_add") whose accumulate_by_add
  /// choices the step's glue follows (ModelDims::lin[][]
  /// .dx_by_add, intent_dx_by_add, TtmDims::core_by_add; model_step.h set_accumulate_by_add):
  /// its contraction lanes and arena banks. 0 (default): this tree's design_config.h, whose
  /// kernels the model runs. The choices change which kernel calls the step makes, not the
  /// lanes they run at.
  int contraction_lanes = 0, arena_banks = 0;
};

/// Losses of one sample (nats), computed before any update.
struct HlsLosses {
  double intent = 0;  ///< −log softmax(intent logits)[intent]
  double slot = 0;    ///< slot_scale · Σ_t −log softmax(slot logits_t)[tag_t]
  double total() const { return intent + slot; }
};

/// Forward outputs of one sample.
struct HlsPrediction {
  std::vector<float> intent_logits;  ///< intents
  std::vector<float> slot_logits;    ///< K × slot_tags, row-major
  int intent = 0;                    ///< argmax of intent_logits
  std::vector<int> slots;            ///< argmax per token (K)
};

/// The model of a ModelSpec on the HLS kernels.
///
/// Parameter names and shapes follow models/reference/reference_model.h:
/// embedding.token.core<k> {r_k, v_k, e_k, r_k+1}, embedding.position {seq_len, D},
/// embedding.ln.gain / .bias {D}, <layer>.core<k> {r_k, s_k, r_k+1} (TT) or
/// <layer>.weight {M, N} (dense), <layer>.bias {N}, enc<l>.ln1/ln2.gain / .bias {D};
/// k is 0-based. Initialization (models/tt_init.h, the same formulas as the reference,
/// not the same draws): dense weights Xavier normal, variance 2/(R+C); TTM token cores
/// tt_core_stddevs_xavier; TT layer cores tt_core_stddevs_balanced (unit tangent gain per
/// core, reconstructed variance min(2/(R+C), r/(R·C))); biases 0, LayerNorm gains 1;
/// from std::mt19937_64(seed).
class HlsModel {
 public:
  /// Throws InputError when the spec is outside what the kernels implement: batch ≠ 1,
  /// a dense token embedding or a TTM with fewer than 2 cores, TT heads, more than
  /// ttsim_hls::kMaxEncoders (128 in the host tools) encoders or 6 factors per side,
  /// d_model not divisible by heads, a layer without bias,
  /// or arenas larger than the host model holds (check_hls_host_capacity, host_capacity.h:
  /// at most 2^31 − 1 words per arena and 2^31 words in total), before allocating.
  explicit HlsModel(const ModelSpec& spec, const HlsModelOptions& options = {});

  /// Forward, backward and SGD (p ← p − lr·g) of every parameter, each update group's
  /// update fused into the backward pass (ttsim_hls::model_train_step). tokens /
  /// slot_tags: K entries, 1 ≤ K ≤ seq_len, tokens in [0, vocab), tags in [−1, slot_tags)
  /// (−1: not counted), intent in [−1, intents). Throws InputError on out-of-range input.
  HlsLosses train_step(const std::vector<int>& tokens, int intent,
                       const std::vector<int>& slot_tags, float lr, float slot_scale = 1.0f);
  /// Forward and backward only (the step's gradient mode): gradient() then holds this
  /// sample's gradients (until the next forward_backward; train_step leaves them as they
  /// are); the parameters are unchanged.
  HlsLosses forward_backward(const std::vector<int>& tokens, int intent,
                             const std::vector<int>& slot_tags, float slot_scale = 1.0f);
  /// Forward only.
  HlsPrediction predict(const std::vector<int>& tokens);

  /// Every parameter name in arena order.
  const std::vector<std::string>& parameter_names() const { return names_; }
  /// Shape of a parameter; throws InputError for an unknown name. A dense weight is
  /// in_dim × out_dim here (the reference model's convention), though the parameter arena
  /// stores it out_dim × in_dim (hls/kernels/tt_linear.h dense_forward).
  std::vector<std::int64_t> parameter_shape(const std::string& name) const;
  /// Copy of a parameter / its gradient, row-major in parameter_shape (a dense weight
  /// transposed from the arena's order); throws InputError for an unknown name.
  std::vector<float> parameter(const std::string& name) const;
  std::vector<float> gradient(const std::string& name) const;
  /// Overwrites a parameter, given row-major in parameter_shape; throws InputError on an
  /// unknown name or a size mismatch.
  void set_parameter(const std::string& name, const std::vector<float>& values);
  /// The parameter arena's image, as the top's param_io port takes it: every tensor at its
  /// layout().tensors offset, each update group's alignment padding (model_step.h
  /// kParamGroupAlign) zero; layout().param_words words.
  const std::vector<float>& parameters() const { return param_; }
  /// Replaces the parameter arena's image (parameters()); throws InputError when the size
  /// differs.
  void set_parameters(const std::vector<float>& values);
  /// The model's parameters: Σ words of layout().tensors (the arena less its padding).
  std::int64_t parameter_count() const;

  const ModelSpec& spec() const { return spec_; }
  const ttsim_hls::ModelDims& dims() const { return dims_; }
  const ttsim_hls::Layout& layout() const { return layout_; }

  /// One float arena of the host model: its array name in the top (<stem>_mem), first
  /// word and size in words. For telling which arena an address belongs to.
  struct ArenaRange {
    std::string array;
    const float* base = nullptr;
    std::int64_t words = 0;
  };
  /// Every float arena, by ttsim_hls::ArenaId.
  std::vector<ArenaRange> arena_ranges() const;

 private:
  int index_of(const std::string& name) const;
  /// Parameter `name`'s words of `arena` (param_ or grad_out_), row-major in its shape.
  std::vector<float> tensor_view(const std::vector<float>& arena, const std::string& name) const;
  void check_sample(const std::vector<int>& tokens, int intent,
                    const std::vector<int>& slot_tags) const;
  ttsim_hls::Arenas arenas();
  HlsLosses step(const std::vector<int>& tokens, int intent, const std::vector<int>& slot_tags, float lr,
                 float slot_scale, bool grad_mode);

  ModelSpec spec_;
  ttsim_hls::ModelDims dims_;
  ttsim_hls::Layout layout_;
  std::vector<std::string> names_;
  std::vector<std::vector<std::int64_t>> shapes_;
  /// By parameter: stored transposed in the arena (dense weights, shape_[1] × shape_[0]).
  std::vector<bool> transposed_;
  std::vector<float> param_;
  std::vector<float> grad_;      ///< the grad arena (the largest update group)
  std::vector<float> grad_out_;  ///< the last forward_backward's gradients (param_words, Layout order)
  /// The other float arenas, by ttsim_hls::ArenaId (entries 0 and 1 unused).
  std::vector<float> work_[ttsim_hls::kFloatArenas];
  std::vector<int> index_;
};

/// Refuses what the kernel tree's linear layers cannot be: an encoder layer or head without
/// a bias (every linear of model_step.cc adds one) or a head in another format than dense
/// (dense_forward / dense_backward). Throws InputError naming `file`, the layer and both
/// places its setting can come from (/layers/<kind>/..., /overrides/<layer>/...). The one
/// rule hls_model_dims and machine::hls_design apply.
void check_hls_linears(const ModelSpec& spec, const std::string& file);

/// The ttsim_hls::ModelDims of a ModelSpec (flows from `options`); throws InputError
/// as HlsModel's constructor does.
ttsim_hls::ModelDims hls_model_dims(const ModelSpec& spec, const HlsModelOptions& options = {});

}  // namespace ttsim
