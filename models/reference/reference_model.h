#pragma once
// Full reference training step of the ModelSpec transformer (models/model_spec.h) in
// Eigen, FP64 by default: the ground truth the HLS kernels (hls/) and `ttsim train` are
// compared with. Used by tests and by the dense baseline; not by the simulator.
//
// Forward for K tokens (1 ≤ K ≤ seq_len, batch 1):
//   x   = E[tokens] + P[0:K]              token embedding (dense V×D or TTM) + position
//   h   = LN_emb(x)
//   per encoder l (post-LayerNorm, BERT style):
//     q,k,v = h·W_{q,k,v} + b;  per head: S = Q_h·K_hᵀ/√dh, P = softmax(S), C_h = P·V_h
//     h1 = LN1(h + C·W_o + b_o)
//     h  = LN2(h1 + GELU(h1·W_in + b_in)·W_out + b_out)     GELU: tanh approximation
//   intent logits = h[0]·W_int + b_int  (first token);  slot logits = h·W_slot + b_slot
//   loss = CE(intent) + Σ_t CE(slot_t)   (natural log, summed; slot tag < 0 is ignored)
// No attention mask: all K tokens attend to each other. LayerNorm eps: kLayerNormEps.
// Backward through everything, then SGD in place: p ← p − lr·∂loss/∂p for every parameter.
// TT layers run the flow chosen in ReferenceOptions (BTT by default).
//
// Initialisation (deterministic from ReferenceOptions::seed, std::mt19937_64 and
// std::normal_distribution): every weight matrix of R rows and C columns (linear W as
// M × N, token table V × D, position table seq_len × D) gets entries of variance
// 2/(R+C) (Xavier/Glorot normal). A TTM token table gets i.i.d. N(0, σ²) core entries
// with σ^{2c}·Π(inner ranks) = 2/(R+C), c the number of cores, so each reconstructed
// entry (a sum of Π(inner ranks) products of c core entries) has that same variance
// (tt_core_stddevs_xavier). A TT linear layer gets per-core σ_k from
// tt_core_stddevs_balanced (models/tt_init.h): every core's SGD step moves W in its
// tangent directions as much as a dense SGD step would (unit gain), which puts the
// reconstructed variance at min(2/(R+C), r/(R·C)) for equal ranks r. With Xavier variance
// and equal σ the gains are 16–128 on the rank-12 768×768 layers and SGD at the dense
// learning rate stalls (see models/tt_init.h).
// Biases and LayerNorm biases 0, LayerNorm gains 1.
//
// Parameter names (gradients use the same names and shapes):
//   embedding.token.weight {V,D} (dense) | embedding.token.core<k> {r_k,v_k,e_k,r_k+1} (TTM)
//   embedding.position {seq_len,D}; embedding.ln.gain / embedding.ln.bias {D}
//   <layer>.weight {M,N} (dense) | <layer>.core<k> {r_k,s_k,r_k+1} (TT); <layer>.bias {N}
//     for every ModelSpec::linears name (enc0.q … enc1.ffn_out, intent_head, slot_head)
//   enc<l>.ln1.gain / .bias, enc<l>.ln2.gain / .bias {D}
// The value of a parameter is a row-major matrix whose buffer is the tensor in
// row-major order: {M,N} and {seq_len,D} as such, a vector as 1 × D, a TT core as
// r_k × (s_k·r_k+1), a TTM core as r_k × (v_k·e_k·r_k+1).

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "models/flows.h"
#include "models/model_spec.h"
#include "models/reference/contraction.h"
#include "models/reference/tt_flows.h"
#include "models/reference/ttm_embedding.h"

namespace ttsim::reference {

/// Choices of the reference run.
struct ReferenceOptions {
  std::uint64_t seed = 1;      ///< parameter initialisation seed
  Flow tt_flow = Flow::kBTT;   ///< contraction flow of every TT-format linear layer
};

/// Losses and outputs of one step (computed before the update).
template <typename T>
struct StepResultT {
  double loss = 0;         ///< intent_loss + slot_loss
  double intent_loss = 0;  ///< −log softmax(intent logits)[intent]
  double slot_loss = 0;    ///< Σ over tokens with tag ≥ 0 of −log softmax(slot logits)[tag]
  Mat<T> intent_logits;    ///< 1 × intents
  Mat<T> slot_logits;      ///< K × slot_tags
  int predicted_intent = 0;            ///< argmax of intent_logits
  std::vector<int> predicted_slots;    ///< argmax of each slot_logits row
};

/// MACs counted by contract() in one layer during the last forward_backward/train_step.
struct StageMacs {
  MacCounter forward, grad_input, grad_weights;
};

/// The reference model: parameters, gradients of the last step, counted MACs.
template <typename T>
class ReferenceModelT {
 public:
  /// Parameters initialised from options.seed (see the file comment).
  /// Throws InputError when the spec has batch ≠ 1 (the reference runs one sample).
  ReferenceModelT(const ModelSpec& spec, const ReferenceOptions& options = {});

  const ModelSpec& spec() const { return spec_; }
  const ReferenceOptions& options() const { return options_; }

  /// Forward, backward (gradients replace the previous ones) and SGD update with
  /// learning rate `lr`. tokens: K ids in [0, vocab), 1 ≤ K ≤ seq_len; intent in
  /// [0, intents); slot_tags: K tags in [-1, slot_tags), -1 = not counted.
  /// Throws InputError on any out-of-range input. Losses/logits are those before the update.
  StepResultT<T> train_step(const std::vector<int>& tokens, int intent,
                            const std::vector<int>& slot_tags, double lr);
  /// Forward and backward only (gradients filled, parameters unchanged).
  StepResultT<T> forward_backward(const std::vector<int>& tokens, int intent,
                                  const std::vector<int>& slot_tags);
  /// Forward only (losses and logits; gradients and MAC counters untouched).
  StepResultT<T> forward(const std::vector<int>& tokens, int intent,
                         const std::vector<int>& slot_tags) const;
  /// p ← p − lr·g for every parameter, with the gradients of the last backward.
  void sgd_update(double lr);

  /// Every parameter name, in a fixed order (embedding, encoders, heads).
  std::vector<std::string> parameter_names() const;
  /// Logical shape of a parameter (see the file comment). Throws InputError if unknown.
  std::vector<std::int64_t> parameter_shape(const std::string& name) const;
  /// The parameter / its gradient of the last backward, as its row-major matrix view.
  /// Throws InputError for an unknown name.
  Mat<T>& parameter(const std::string& name);
  const Mat<T>& parameter(const std::string& name) const;
  const Mat<T>& gradient(const std::string& name) const;
  /// Total number of scalar parameters (equals ModelSpec::compressed_params()).
  std::int64_t parameter_count() const;

  /// The same network with every weight dense: TT layers replaced by their reconstructed
  /// W, a TTM token table by its reconstructed V × D table, everything else copied.
  ReferenceModelT dense_equivalent() const;

  /// MACs counted per linear layer (ModelSpec::linears names), "embedding.token" (TTM
  /// lookup forward and core-gradient scatter; a dense table counts none) and
  /// "enc<l>.attention" (QKᵀ and P·V and their backward; all in forward/grad_input).
  /// Throws InputError for an unknown name.
  const StageMacs& macs(const std::string& name) const;

 private:
  struct Linear {
    TtTensor<T> tt;  ///< TT format
    Mat<T> weight;   ///< dense format, M × N
    Mat<T> bias;     ///< 1 × N (0 × 0 without bias)
  };
  struct EncoderNorms {
    Mat<T> ln1_gain, ln1_bias, ln2_gain, ln2_bias;
  };
  struct Params {
    Mat<T> token_dense;
    TtmTensor<T> token_ttm;
    Mat<T> position, emb_ln_gain, emb_ln_bias;
    std::vector<Linear> linears;  ///< ModelSpec::linears order
    std::vector<EncoderNorms> norms;
  };
  struct Cache;
  struct Entry {
    std::string name;
    std::vector<std::int64_t> shape;
    Mat<T>* value;
  };

  template <typename F>
  static void visit(const ModelSpec& spec, Params& p, F&& f);
  static Params zero_like(const ModelSpec& spec);
  const Mat<T>* find(const Params& p, const std::string& name) const;
  void check_inputs(const std::vector<int>& tokens, int intent,
                    const std::vector<int>& slot_tags) const;
  StepResultT<T> run_forward(const std::vector<int>& tokens, int intent,
                             const std::vector<int>& slot_tags, Cache* cache,
                             std::map<std::string, StageMacs>* macs) const;
  Mat<T> linear_forward(std::size_t i, const Mat<T>& x, Cache* cache, StageMacs* macs) const;
  Mat<T> linear_backward(std::size_t i, const Mat<T>& dy, const Cache& cache, StageMacs* macs);

  ModelSpec spec_;
  ReferenceOptions options_;
  Params params_, grads_;
  std::map<std::string, StageMacs> macs_;
};

using ReferenceModel = ReferenceModelT<double>;
using StepResult = StepResultT<double>;

/// `spec` with every linear layer and the token embedding switched to dense format.
ModelSpec densified(const ModelSpec& spec);

}  // namespace ttsim::reference
