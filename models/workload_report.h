#pragma once
// The workload inventory of a model that `ttsim model` prints: parameters dense vs
// compressed per layer, contraction MACs / critical path / peak intermediate words per
// flow and training stage, totals per flow with the task graph of each, and the
// MM vs TT vs BTT comparison of one TT layer over several token counts.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/json_view.h"
#include "models/flows.h"
#include "models/graph_summary.h"
#include "models/model_spec.h"
#include "models/training_graph.h"

namespace ttsim {

/// FlowCost of the three stages (a stage a layer does not have is all zero).
struct StageCosts {
  FlowCost forward, grad_input, grad_weights;
  std::int64_t macs() const { return forward.macs + grad_input.macs + grad_weights.macs; }
  std::int64_t peak_intermediate_words() const;
};

/// One row of the inventory: a parameterized layer or the (parameter-free) attention.
struct LayerReport {
  std::string name;    ///< "embedding", "position_embedding", "enc0.q", "enc0.attn", "enc0.ln1", ...
  std::string kind;    ///< "embedding", "position", "layernorm", "attention", "attention_core", ...
  std::string format;  ///< "dense", "tt", "ttm", "-" (no weights)
  std::string shape;   ///< e.g. "[12,8,8]x[8,8,12] r=12", "768x768", "2500x768"
  std::int64_t tokens = 0;             ///< rows K of the layer's input (intent head: sequences)
  std::int64_t params_dense = 0;       ///< weights + bias with every weight dense
  std::int64_t params_compressed = 0;  ///< as stored (TT / TTM cores + bias)
  /// Costs keyed by flow: "mm", "tt", "btt" for a TT layer; "mm" for a dense linear layer
  /// (a dense product); "ttm" for a TTM embedding; "attention" for attention. Empty for
  /// layers without contractions (LayerNorm, position embedding, dense embedding gather).
  std::map<std::string, StageCosts> flows;
};

/// Step totals when every TT layer runs `flow` (other layers run their only flow).
struct FlowTotals {
  StageCosts macs;  ///< Σ over layers; critical_path and peak fields unused
  std::int64_t peak_intermediate_words = 0;  ///< max over layers and stages
  GraphSummary graph;                        ///< the task graph built with this flow
  int graph_critical_path_tasks = 0;         ///< longest dependency chain, in tasks
  int graph_critical_path_contractions = 0;  ///< contraction tasks on that chain
};

/// Forward cost of one TT layer at one token count, per flow ("mm", "tt", "btt").
struct FlowComparisonPoint {
  std::int64_t tokens = 0;
  std::map<std::string, FlowCost> forward;
};

/// Everything `ttsim model` prints: per-layer parameters, per-flow MACs, critical paths
/// and peak intermediate words, step totals per flow and the task-graph summary.
struct WorkloadReport {
  ModelSpec model;
  std::int64_t tokens = 0;  ///< K of the step
  std::int64_t dense_params = 0, compressed_params = 0;
  std::int64_t dense_bytes() const { return 4 * dense_params; }       ///< FP32
  std::int64_t compressed_bytes() const { return 4 * compressed_params; }
  double compression_ratio() const { return double(dense_params) / double(compressed_params); }
  std::vector<LayerReport> layers;            ///< Σ params over layers == the totals
  std::map<std::string, FlowTotals> totals;   ///< keyed "mm", "tt", "btt"
  Flow graph_flow = Flow::kBTT;               ///< flow of the task graph reported as `task_graph`
  std::string comparison_layer;               ///< first TT attention layer ("" if none)
  std::vector<FlowComparisonPoint> comparison;
};

/// Builds the report. `graph_flow` is the flow of every TT layer in the reported task
/// graph; `compare_tokens` are the K values of the flow comparison (each >= 1).
/// Throws InputError for a token count < 1.
WorkloadReport build_workload_report(const ModelSpec& model, Flow graph_flow,
                                     const std::vector<std::int64_t>& compare_tokens);

/// Longest dependency chain of a task graph: (tasks on it, contraction tasks on it).
std::pair<int, int> graph_critical_path(const TaskGraph& graph);

/// JSON form: dense_params, compressed_params, dense_bytes, compressed_bytes,
/// compression_ratio, tokens, model (ModelSpec::to_json), layers [{name, kind, format,
/// shape, tokens, params_dense, params_compressed, macs {flow: {forward, grad_input,
/// grad_weights}}, intermediate_words {flow: {...}}, critical_path {flow: {...}}}],
/// totals {flow: {...}}, task_graph (summary of the graph_flow graph), flow_comparison.
Json to_json(const WorkloadReport& report);

/// JSON form of a graph summary (counts by stage, unit, op, buffer class; MACs).
Json to_json(const GraphSummary& summary);

}  // namespace ttsim
