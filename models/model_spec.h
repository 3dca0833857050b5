#pragma once
// The workload description: a transformer encoder for joint intent detection and slot
// filling, with each weight matrix in dense, tensor-train (TT) or, for the token
// embedding, tensor-train-matrix (TTM) format. Loaded from configs/models/*.json.

#include <cstdint>
#include <string>
#include <vector>

#include "core/json_view.h"

namespace ttsim {

/// Storage format of one weight matrix.
enum class WeightFormat { kDense, kTT, kTTM };

/// "dense", "tt" or "ttm".
const char* to_string(WeightFormat format);

/// Factorization of a TT linear layer W ∈ R^{M×N}, M = m_1···m_d, N = n_1···n_e.
/// Cores G_1..G_{d+e}; core k has shape r_{k-1} × s_k × r_k with s_k = m_k for the
/// d input-side cores and s_k = n_{k-d} for the e output-side cores.
/// `ranks` holds r_0..r_{d+e} with r_0 = r_{d+e} = 1; r_d is the middle bond (the
/// rank at which BTT splits the chain into its left and right halves).
struct TtShape {
  std::vector<std::int64_t> in_factors;   ///< m_1..m_d, product M
  std::vector<std::int64_t> out_factors;  ///< n_1..n_e, product N
  std::vector<std::int64_t> ranks;        ///< r_0..r_{d+e}, size d+e+1

  std::size_t cores() const { return in_factors.size() + out_factors.size(); }
  /// Mode size s_k of core k (0-based).
  std::int64_t mode(std::size_t core) const;
  /// Words (FP32 parameters) of core k: r_k · s_k · r_{k+1} (0-based k).
  std::int64_t core_words(std::size_t core) const;
  /// Sum of core_words over all cores.
  std::int64_t total_words() const;
};

/// Factorization of a TTM embedding table E ∈ R^{V×D}, V = v_1···v_d, D = e_1···e_d.
/// Core k has shape r_{k-1} × v_k × e_k × r_k; `ranks` is r_0..r_d with r_0 = r_d = 1.
struct TtmShape {
  std::vector<std::int64_t> vocab_factors;  ///< v_1..v_d, product V
  std::vector<std::int64_t> dim_factors;    ///< e_1..e_d, product D
  std::vector<std::int64_t> ranks;          ///< r_0..r_d, size d+1

  std::size_t cores() const { return vocab_factors.size(); }
  /// Words of core k: r_k · v_k · e_k · r_{k+1} (0-based k).
  std::int64_t core_words(std::size_t core) const;
  std::int64_t total_words() const;
};

/// One linear layer Y = X·W (+ b), X ∈ R^{K×M}, W ∈ R^{M×N}.
struct LinearLayerSpec {
  std::string name;  ///< "enc0.q", "enc1.ffn_in", "intent_head", ...
  std::string kind;  ///< "attention", "ffn_in", "ffn_out", "intent_head" or "slot_head"
  int encoder = -1;  ///< encoder index, -1 for the heads
  std::int64_t in_dim = 0;   ///< M
  std::int64_t out_dim = 0;  ///< N
  WeightFormat format = WeightFormat::kDense;  ///< kDense or kTT
  TtShape tt;        ///< valid when format == kTT
  bool bias = true;

  /// Weight parameters as stored (TT cores or dense M·N), excluding the bias.
  std::int64_t weight_params() const;
  /// Dense weight parameters M·N, excluding the bias.
  std::int64_t dense_weight_params() const { return in_dim * out_dim; }
  std::int64_t bias_params() const { return bias ? out_dim : 0; }
};

/// The token embedding table, dense or TTM.
struct EmbeddingSpec {
  std::int64_t vocab = 0;
  std::int64_t dim = 0;
  WeightFormat format = WeightFormat::kDense;  ///< kDense or kTTM
  TtmShape ttm;                                ///< valid when format == kTTM
  std::int64_t params() const;
  std::int64_t dense_params() const { return vocab * dim; }
};

/// A whole model, resolved: every per-kind default and per-layer override applied.
struct ModelSpec {
  std::string name;
  std::string source_file;  ///< the file it was loaded from ("" when built in code)
  int encoders = 0;
  std::int64_t d_model = 0, heads = 0, ffn_dim = 0, seq_len = 0, batch = 1;
  std::int64_t vocab = 0, intents = 0, slot_tags = 0;
  EmbeddingSpec token_embedding;
  /// Linear layers in execution order: for each encoder q, k, v, o, ffn_in, ffn_out;
  /// then intent_head and slot_head.
  std::vector<LinearLayerSpec> linears;

  /// Tokens per training step: K = batch × seq_len.
  std::int64_t tokens() const { return batch * seq_len; }
  std::int64_t head_dim() const { return d_model / heads; }
  /// Parameters of the position embedding (seq_len × d_model, always dense).
  std::int64_t position_params() const { return seq_len * d_model; }
  /// LayerNorm parameters (gain and bias): embedding LN + 2 per encoder, 2·d_model each.
  std::int64_t layernorm_params() const { return (1 + 2 * encoders) * 2 * d_model; }
  /// Total parameters with every weight dense.
  std::int64_t dense_params() const;
  /// Total parameters as stored (TT/TTM cores where configured).
  std::int64_t compressed_params() const;

  /// The resolved spec, every default written out; parse_model_spec(to_json()) == *this.
  Json to_json() const;
};

/// Layer kind of a linear layer name: "attention" for an encoder's q, k, v and o
/// ("enc1.k"), "ffn_in" / "ffn_out" for "enc<E>.ffn_in" / "enc<E>.ffn_out"; any other name
/// (the heads: "intent_head", "slot_head") is its own kind. The names are ModelSpec::linears'.
std::string linear_kind_of(const std::string& layer_name);

/// Largest TT / TTM rank a model config may give ("rank" or an entry of "ranks");
/// parse_model_spec refuses larger ones.
inline constexpr std::int64_t kMaxRank = 4096;

/// An upper bound of the multiply-accumulates of one dense-equivalent training step of `m` on
/// `tokens` tokens: 3 · tokens · (encoders · (4 d² + 2 d·f + 2 seq_len·d) + d·(intents +
/// slot_tags)) (forward and two backward products of the projections, the FFN, attention
/// and the heads). Every count of the workload fits 64-bit integers while it is at most
/// kMaxStepMacs.
long double dense_step_macs_bound(const ModelSpec& m, long double tokens);
/// The largest dense_step_macs_bound a model or token count may reach: 2^50, room for the
/// sums over an epoch's samples (a step's cycles are at most its MACs on one lane).
inline constexpr long double kMaxStepMacs = 1125899906842624.0L;

/// Loads and validates a model config. Throws InputError / ConfigError (file, JSON
/// pointer, expected, found) on any problem: unknown keys, wrong types, factor
/// products that differ from the dimension, ranks < 1, empty lists, out-of-range values,
/// a model whose dense-equivalent training step exceeds 2^50 multiply-accumulates (its
/// counts would not fit the workload's 64-bit integers over an epoch; at /d_model).
ModelSpec load_model_spec(const std::string& path);

/// Same as load_model_spec for an already parsed document; `file` is used in errors.
ModelSpec parse_model_spec(const Json& doc, const std::string& file);

}  // namespace ttsim
