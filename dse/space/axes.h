#pragma once
// The named sweep axes and how each one edits the base model and arch documents.
//
//   model axes: tt_rank (every TT layer kind), tt_rank.<kind> (kind = attention, ffn_in,
//               ffn_out), ttm_rank (token embedding), encoders; per encoder layer
//               tt_rank.enc<E>.<x> (x = q, k, v, o, ffn_in, ffn_out, or attention for
//               q, k, v and o of encoder E), written as the model's per-layer overrides
//               (they take precedence over the kind's rank)
//   arch axes : flow, flow.<kind> (mm | tt | btt), engines, lanes (contraction engines),
//               engines.<class> (instances of a kernel class: contraction, softmax,
//               layernorm, gelu, elementwise, loss, update; the emitted top builds one,
//               so a point asking for more is infeasible with check_buildable's reason),
//               nonlinear_lanes (the lanes of every nonlinear unit), lanes.<class> (one
//               nonlinear class's lanes: softmax, layernorm, gelu, elementwise, loss,
//               update; the emitted modules take them as their UNROLL factor),
//               policy (sequential | parallel), parallel_merges, qkv_reschedule, fusion,
//               memory_strategy (naive | grouped), recompute (none | btt_merges: BTT layers
//               recompute their merges in the backward pass), clock_mhz, sequence_length
//               (padded | effective)
//   generic   : "model:<JSON pointer>" and "arch:<JSON pointer>" set any member.
// The documents' own loaders (parse_model_spec, parse_arch_spec) validate the result.

#include <string>
#include <vector>

#include "core/json_view.h"

namespace ttsim::dse {

/// Canonical order of the named axes (the order of the point's mixed-radix digits).
const std::vector<std::string>& named_axes();

/// `names` (known axes, each once) in the order of a point id's mixed-radix digits, the
/// first slowest, the last fastest: the named axes in named_axes() order — the model's
/// structure and ranks first, with the per-layer rank axes (tt_rank.enc<E>.<x>, by name)
/// after ttm_rank, then the flows, then what only prices a design (engines, lanes, policy,
/// memory, clock, sequence length) — and the "model:/" / "arch:/" pointer axes last, by
/// name. Consecutive ids then mostly differ in prices, which an evaluator re-prices without
/// re-simulating (sim/design_eval.h).
std::vector<std::string> canonical_axis_order(const std::vector<std::string>& names);

/// The order of ttsim-explore-state-2 and older: the named axes in named_axes() order, then
/// every other axis (per-layer and pointer axes) by name. A run folder written with it is
/// numbered this way (dse/run/explore.h checks before resuming or merging one).
std::vector<std::string> legacy_axis_order(const std::vector<std::string>& names);

/// True for a named axis or a well-formed "model:/..." / "arch:/..." axis.
bool is_known_axis(const std::string& name);

/// The encoder layers a per-layer rank axis sets ("tt_rank.enc1.attention" → enc1.q, enc1.k,
/// enc1.v, enc1.o); empty when `name` is not such an axis.
std::vector<std::string> layer_rank_axis_layers(const std::string& name);

/// The encoder index of a per-layer rank axis; -1 when `name` is not one.
int layer_rank_axis_encoder(const std::string& name);

/// Checks one value of axis `name` (type and range); throws ConfigError at `v`.
void validate_axis_value(const std::string& name, const JsonView& v);

/// One axis with its name read once: the members it edits and reads, as JSON pointers and
/// layer names. apply_axis and axis_current_value are this class's functions for a name
/// read on each call; a sweep keeps one per axis (SweepSpec::editors) for its millions of
/// points.
class AxisEditor {
 public:
  explicit AxisEditor(const std::string& name);
  const std::string& name() const { return name_; }
  /// True when apply() edits (and current() reads) the arch document, false for the model's.
  bool edits_arch() const { return kind_ == Kind::kArchMember; }
  /// apply_axis(name(), value, model, arch).
  void apply(const Json& value, Json& model, Json& arch) const;
  /// axis_current_value(name(), model, arch).
  Json current(const Json& model, const Json& arch) const;
  /// The members apply() sets or removes, as "model:<JSON pointer>" or "arch:<JSON pointer>"
  /// (a per-layer rank axis: model:/overrides/<layer>/rank and .../ranks of each of its
  /// layers; a per-kind one: model:/layers/<kind>/rank and .../ranks); empty for an unknown
  /// axis.
  std::vector<std::string> members_set() const;

 private:
  enum class Kind { kLayerRank, kKindRank, kTtmRank, kModelMember, kArchMember };
  std::string name_;
  Kind kind_ = Kind::kArchMember;
  std::vector<std::string> layers_;           ///< per-layer: layer names; per-kind: kinds
  std::vector<Json::json_pointer> write_;     ///< members set (model or arch member axes)
  std::vector<Json::json_pointer> read_;      ///< members read, first present (non-null) wins
  /// read_'s reference tokens (unescaped), for current()'s one walk per pointer.
  std::vector<std::vector<std::string>> read_tokens_;
};

/// Sets axis `name` to `value` in the model or arch document.
/// Throws InputError when the document lacks the member the axis edits. A per-layer rank axis
/// writes the layer's override whatever the point's model: the model loader refuses a point
/// whose model has no such encoder (or whose layer is not TT) when it is evaluated.
void apply_axis(const std::string& name, const Json& value, Json& model, Json& arch);

/// The value axis `name` has in the (resolved) documents, e.g. the attention layers'
/// rank for tt_rank; null when the documents do not hold it (a dense layer's rank).
Json axis_current_value(const std::string& name, const Json& model, const Json& arch);

}  // namespace ttsim::dse
