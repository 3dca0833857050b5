#pragma once
// Builds the task graph (models/task_graph.h) of one training step of a ModelSpec.

#include <cstdint>
#include <map>
#include <string>

#include "models/flows.h"
#include "models/model_spec.h"
#include "models/task_graph.h"

namespace ttsim {

/// Choices that shape the graph.
struct GraphOptions {
  /// Contraction flow per layer kind ("attention", "ffn_in", "ffn_out"); kinds not
  /// listed use kBTT. Dense-format layers always use a dense product.
  std::map<std::string, Flow> flow_by_kind;
  /// Tokens processed per step; 0 means the model's padded length batch × seq_len.
  std::int64_t tokens = 0;
  /// BTT layers recompute their merges in the backward pass (plan_linear's
  /// recompute_merges; ArchSpec::recompute_merges).
  bool recompute_merges = false;
  /// Every encoder but the last runs its forward again just before its backward
  /// (ArchSpec::recompute_encoders; hls/kernels/model_step.h ModelDims::recompute_encoders):
  /// the recomputation's tasks are named "<layer>.re.<step>" and run in the backward stage;
  /// they write new buffers "<layer>.re.<tensor>" (the same arrays of the top as the
  /// forward's), which the encoder's backward (its tasks named as without recomputation) reads.
  bool recompute_encoders = false;
  /// The machine's contraction lanes and arena banks: with dual-port lanes the accumulating
  /// input gradients and the TTM's core-gradient scatter run as products into partial buffers
  /// and adds (ttsim_spec::accumulate_by_add; graph_options sets them from the arch);
  /// default: the contraction's accumulate flag everywhere.
  AccumulateByAdd by_add;
};

/// Whether the graph of `options` runs layer `l`'s input gradient, where it accumulates into
/// a gradient it is given (q, k, v, ffn_in; the intent head into the slot head's), as a
/// product into a partial buffer and an add (hls/kernels/model_step.cc linear_backward): a
/// TT layer on the BTT flow (dZ·L_dᵀ) or a dense layer (dY·W), when ttsim_spec::
/// accumulate_by_add holds for the options' lanes and banks.
bool input_grad_by_add(const LinearLayerSpec& l, const GraphOptions& options);
/// Every choice of accumulate_by_add the graph of (`model`, `options`) makes, into `out`: per
/// linear layer input_grad_by_add, then per core k = 2..d of a TTM embedding whether its
/// gradient scatter runs token by token (plan_ttm_lookup). Graphs of equal choices have the
/// same tasks and buffers for the same model structure.
void accumulate_by_add_choices(const ModelSpec& model, const GraphOptions& options, std::vector<char>& out);

/// The complete training step: forward, backward through every layer (attention and
/// LayerNorm included), loss, and one SGD update task per parameter buffer.
/// Tasks are in topological order; Buffer::first_task/last_task are filled.
TaskGraph build_training_graph(const ModelSpec& model, const GraphOptions& options);

}  // namespace ttsim
