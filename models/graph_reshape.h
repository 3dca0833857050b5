#pragma once
// One training graph re-derived for other TT ranks without rebuilding it.
//
// The task graph of build_training_graph (models/training_graph.h) depends on the TT and
// TTM ranks only through numbers: the shapes of the flow-plan steps of each TT linear
// layer and of the TTM lookup (TaskShape, MACs), the shapes and words of their cores,
// core gradients and intermediates, and the element counts of the cores' SGD updates.
// Its tasks, buffers, names, dependencies and memories are the same for every rank
// assignment of one model structure (same layers, factors, dimensions, flows and
// tokens). A GraphReshaper records once where each of those numbers comes from and
// rewrites them for another model of the same structure: O(tasks + buffers) with no
// allocation once each layer's plan for a rank vector has been seen. The result equals
// build_training_graph of that model field by field (tests/models/graph_reshape_test).

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "models/flows.h"
#include "models/model_spec.h"
#include "models/task_graph.h"
#include "models/training_graph.h"

namespace ttsim {

/// True when `a` and `b` differ at most in the ranks of their TT linear layers and TTM
/// embedding (and in name and source file): the models whose training graphs have the
/// same tasks, buffers and dependencies under the same GraphOptions.
bool same_graph_structure(const ModelSpec& a, const ModelSpec& b);

/// Every TT rank of `model`'s linear layers, then (after a -1) its TTM embedding's, into
/// `out` (cleared first): for models of the same graph structure (same_graph_structure),
/// equal signatures mean equal training graphs under the same GraphOptions.
void rank_signature(const ModelSpec& model, std::vector<std::int64_t>& out);

/// Rewrites the rank-dependent numbers of a training graph for another model of the same
/// structure (see the file comment). Not thread-safe (it caches one flow plan per layer and
/// rank vector): use one per thread.
class GraphReshaper {
 public:
  /// Records the rank-dependent tasks and buffers of `graph`, which must be
  /// build_training_graph(model, options). Throws std::logic_error when `graph` lacks a
  /// task or buffer the flow plans of `model` name.
  GraphReshaper(const ModelSpec& model, const GraphOptions& options, const TaskGraph& graph);

  /// Rewrites `graph` (the constructor's graph or one reshaped by this object) into
  /// build_training_graph(model, options) for `model`, which must satisfy
  /// same_graph_structure with the constructor's model. Returns false, with `graph`
  /// unchanged, when a layer's flow plan for the new ranks differs in its steps or tensors
  /// (the caller then builds the graph).
  bool reshape(const ModelSpec& model, TaskGraph& graph);

 private:
  /// A plan bound into the graph: one TT linear layer or the TTM embedding.
  struct Site {
    int linear = -1;             ///< index into ModelSpec::linears, -1 for the TTM embedding
    Flow flow = Flow::kBTT;
    std::int64_t tokens = 0;
    bool recompute = false;  ///< GraphOptions::recompute_merges of the graph
    std::vector<int> step_task;  ///< by plan step: the task that runs it, -1 when not emitted
    /// By plan tensor: the buffer holding it (-1 for the tensors the layer binds to its
    /// inputs and outputs, whose shapes do not depend on ranks).
    std::vector<int> tensor_buffer;
    /// By plan tensor: the SGD task of a core's update group, else -1.
    std::vector<int> tensor_update;
    /// By plan tensor: the tensor whose shape its buffer takes (a core gradient's core).
    std::vector<int> shape_from;
    std::shared_ptr<const FlowPlan> plan;  ///< the plan the graph was built from
    /// Plan class: the sites of one layer shape (format, dimensions, factors, flow, tokens)
    /// whose plans have the same steps and tensors share it, and with it their plans per
    /// rank vector.
    int shape = -1;
  };
  const FlowPlan* plan_for(const Site& s, const ModelSpec& model);
  struct NameIndex;    // task and buffer ids of the constructor's graph by name (graph_reshape.cc)
  struct PlanClasses;  // the plan classes of each layer shape, while constructing (graph_reshape.cc)
  /// Gives `s` the plan class of its layer shape `shape_key` (a new one unless a site of that
  /// shape has a plan of the same steps and tensors) and records its plan for `ranks`.
  void classify(Site& s, std::vector<std::int64_t> shape_key, const std::vector<std::int64_t>& ranks,
                PlanClasses& classes);
  /// Binds the plan of `s` for `layer` (whose cores are "<layer>.core<k>") into the graph
  /// indexed by `names`, and keeps the site; `tag` goes between the layer and the step or
  /// intermediate in the names of its forward tasks and the intermediates they create (".re":
  /// an encoder's recomputation; its backward steps keep the layer's names).
  void bind(Site s, const std::string& layer, const NameIndex& names, const std::string& tag = "");

  std::vector<Site> sites_;
  /// By (plan class, rank vector): the plan, shared by the layers of that class and ranks;
  /// null when its steps or tensors differ from the class's.
  std::map<std::pair<int, std::vector<std::int64_t>>, std::shared_ptr<const FlowPlan>> plans_;
  std::vector<const FlowPlan*> site_plans_;  // reshape's plans by site (kept: no allocation per call)
  /// By task id: the task writes a buffer it reads (task_variant's accumulating form of a
  /// contraction), fixed by the graph's structure.
  std::vector<char> writes_a_read_;
  /// The SGD tasks of the update groups holding cores, each once.
  std::vector<int> updates_;
  AccumulateByAdd by_add_;  ///< GraphOptions::by_add of the graph (the TTM plan's scatter)
};

}  // namespace ttsim
