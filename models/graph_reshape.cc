#include "models/graph_reshape.h"

#include <algorithm>
#include <stdexcept>
#include <unordered_map>

#include "hls/include/kernel_spec.h"

namespace ttsim {

void rank_signature(const ModelSpec& model, std::vector<std::int64_t>& out) {
  out.clear();
  for (const LinearLayerSpec& l : model.linears) out.insert(out.end(), l.tt.ranks.begin(), l.tt.ranks.end());
  out.push_back(-1);  // separator: the embedding's ranks follow
  const std::vector<std::int64_t>& e = model.token_embedding.ttm.ranks;
  out.insert(out.end(), e.begin(), e.end());
}

bool same_graph_structure(const ModelSpec& a, const ModelSpec& b) {
  if (a.encoders != b.encoders || a.d_model != b.d_model || a.heads != b.heads || a.ffn_dim != b.ffn_dim ||
      a.seq_len != b.seq_len || a.batch != b.batch || a.vocab != b.vocab || a.intents != b.intents ||
      a.slot_tags != b.slot_tags) {
    return false;
  }
  const EmbeddingSpec &ea = a.token_embedding, &eb = b.token_embedding;
  if (ea.vocab != eb.vocab || ea.dim != eb.dim || ea.format != eb.format ||
      ea.ttm.vocab_factors != eb.ttm.vocab_factors || ea.ttm.dim_factors != eb.ttm.dim_factors ||
      ea.ttm.ranks.size() != eb.ttm.ranks.size()) {
    return false;
  }
  if (a.linears.size() != b.linears.size()) return false;
  for (std::size_t i = 0; i < a.linears.size(); ++i) {
    const LinearLayerSpec &la = a.linears[i], &lb = b.linears[i];
    if (la.name != lb.name || la.kind != lb.kind || la.encoder != lb.encoder || la.in_dim != lb.in_dim ||
        la.out_dim != lb.out_dim || la.format != lb.format || la.bias != lb.bias ||
        la.tt.in_factors != lb.tt.in_factors || la.tt.out_factors != lb.tt.out_factors ||
        la.tt.ranks.size() != lb.tt.ranks.size()) {
      return false;
    }
  }
  return true;
}

namespace {

/// Same steps (names, roles, ops, stages, operands) and tensors (names, kinds, memories).
bool same_plan_structure(const FlowPlan& a, const FlowPlan& b) {
  if (a.steps.size() != b.steps.size() || a.tensors.size() != b.tensors.size()) return false;
  for (std::size_t i = 0; i < a.steps.size(); ++i) {
    const FlowStep &x = a.steps[i], &y = b.steps[i];
    if (x.name != y.name || x.role != y.role || x.op != y.op || x.stage != y.stage || x.reads != y.reads ||
        x.writes != y.writes) {
      return false;
    }
  }
  for (std::size_t i = 0; i < a.tensors.size(); ++i) {
    const FlowTensor &x = a.tensors[i], &y = b.tensors[i];
    if (x.name != y.name || x.kind != y.kind || x.memory != y.memory) return false;
  }
  return true;
}

}  // namespace

namespace {

/// The layer-shape key of the TTM embedding's plan class: tokens and factors.
std::vector<std::int64_t> ttm_shape_key(const TtmShape& ttm, std::int64_t tokens) {
  std::vector<std::int64_t> key{-1, tokens};
  key.insert(key.end(), ttm.vocab_factors.begin(), ttm.vocab_factors.end());
  key.push_back(-1);
  key.insert(key.end(), ttm.dim_factors.begin(), ttm.dim_factors.end());
  return key;
}

/// The layer-shape key of a TT linear layer's plan class: flow, tokens, dimensions, bias
/// and factors.
std::vector<std::int64_t> linear_shape_key(const LinearLayerSpec& l, Flow flow, std::int64_t tokens) {
  std::vector<std::int64_t> key{static_cast<std::int64_t>(flow), tokens, l.in_dim, l.out_dim, l.bias ? 1 : 0, -1};
  key.insert(key.end(), l.tt.in_factors.begin(), l.tt.in_factors.end());
  key.push_back(-1);
  key.insert(key.end(), l.tt.out_factors.begin(), l.tt.out_factors.end());
  return key;
}

}  // namespace

struct GraphReshaper::NameIndex {
  std::unordered_map<std::string, int> task, buffer;
  /// By parameter buffer id: the SGD task of its update group (-1: none).
  std::vector<int> update_of;

  explicit NameIndex(const TaskGraph& graph) : update_of(graph.buffers.size(), -1) {
    for (const Task& t : graph.tasks) {
      task.emplace(t.name, t.id);
      if (t.op != TaskOp::kSgdUpdate) continue;
      for (int w : t.writes) update_of.at(static_cast<std::size_t>(w)) = t.id;
    }
    for (const Buffer& b : graph.buffers) buffer.emplace(b.name, b.id);
  }
  /// The id of `name` in `m`, -1 when there is none.
  static int find(const std::unordered_map<std::string, int>& m, const std::string& name) {
    auto it = m.find(name);
    return it == m.end() ? -1 : it->second;
  }
  /// The id of `name` in `m`; throws std::logic_error when there is none.
  static int need(const std::unordered_map<std::string, int>& m, const std::string& name) {
    const int id = find(m, name);
    if (id < 0) throw std::logic_error("GraphReshaper: the graph has no " + name);
    return id;
  }
};

// Plan classes: the sites of one layer shape (everything a plan depends on besides the
// ranks) whose plans in this graph have the same steps and tensors. Plans for a rank
// vector are shared within a class (a site of another structure, e.g. one whose template
// ranks made a plan of other steps, is a class of its own).
struct GraphReshaper::PlanClasses {
  std::map<std::vector<std::int64_t>, std::vector<std::pair<std::shared_ptr<const FlowPlan>, int>>> by_shape;
  int next = 0;
};

void GraphReshaper::classify(Site& s, std::vector<std::int64_t> shape_key, const std::vector<std::int64_t>& ranks,
                             PlanClasses& classes) {
  auto& of_shape = classes.by_shape[std::move(shape_key)];
  for (const auto& [rep, id] : of_shape) {
    if (same_plan_structure(*rep, *s.plan)) {
      s.shape = id;
      break;
    }
  }
  if (s.shape < 0) {
    s.shape = classes.next++;
    of_shape.emplace_back(s.plan, s.shape);
  }
  auto& p = plans_[{s.shape, ranks}];
  if (!p) p = s.plan;
}

void GraphReshaper::bind(Site s, const std::string& layer, const NameIndex& names, const std::string& tag) {
  s.step_task.reserve(s.plan->steps.size());
  // A recomputation's tag names its forward steps only (training_graph.cc BoundPlan).
  for (const FlowStep& st : s.plan->steps) {
    const std::string& t = st.stage == FlowStage::kForward ? tag : std::string();
    s.step_task.push_back(NameIndex::find(names.task, layer + t + "." + st.name));
  }
  for (const FlowTensor& t : s.plan->tensors) {
    int buffer = -1, update = -1;
    if (t.kind == TensorKind::kCore) {
      const std::string core = layer + ".core" + t.name.substr(1);
      buffer = NameIndex::need(names.buffer, core);
      update = names.update_of.at(static_cast<std::size_t>(buffer));
      if (update < 0) throw std::logic_error("GraphReshaper: the graph has no update of " + core);
    } else if (t.kind == TensorKind::kCoreGrad) {
      buffer = NameIndex::need(names.buffer, layer + ".core" + t.name.substr(2) + ".grad");
    } else if (t.kind == TensorKind::kIntermediate) {
      buffer = NameIndex::find(names.buffer, layer + tag + "." + t.name);
    }
    s.tensor_buffer.push_back(buffer);
    s.tensor_update.push_back(update);
    int from = static_cast<int>(s.shape_from.size());
    if (t.kind == TensorKind::kCoreGrad) {
      const std::string core = "G" + t.name.substr(2);
      for (std::size_t k = 0; k < s.plan->tensors.size(); ++k) {
        if (s.plan->tensors[k].name == core) from = static_cast<int>(k);
      }
    }
    s.shape_from.push_back(from);
  }
  sites_.push_back(std::move(s));
}

GraphReshaper::GraphReshaper(const ModelSpec& model, const GraphOptions& options, const TaskGraph& graph)
    : by_add_(options.by_add) {
  const NameIndex names(graph);
  PlanClasses classes;
  const std::int64_t K = options.tokens > 0 ? options.tokens : model.tokens();
  const TtmShape& ttm = model.token_embedding.ttm;
  if (model.token_embedding.format == WeightFormat::kTTM && ttm.cores() >= 2) {
    Site s;
    s.tokens = K;
    std::vector<std::int64_t> key = ttm_shape_key(ttm, K);
    s.plan = std::make_shared<const FlowPlan>(plan_ttm_lookup(ttm, K, options.by_add));
    classify(s, std::move(key), ttm.ranks, classes);
    bind(std::move(s), "embedding", names);
  }
  for (std::size_t i = 0; i < model.linears.size(); ++i) {
    const LinearLayerSpec& l = model.linears[i];
    if (l.format != WeightFormat::kTT) continue;
    Site s;
    s.linear = static_cast<int>(i);
    auto it = options.flow_by_kind.find(l.kind);
    s.flow = it == options.flow_by_kind.end() ? Flow::kBTT : it->second;
    // The rows of X the builder gave the layer: those of its output Y.
    s.tokens = graph.buffers[NameIndex::need(names.buffer, l.name + ".Y")].shape.at(0);
    std::vector<std::int64_t> key = linear_shape_key(l, s.flow, s.tokens);
    s.recompute = options.recompute_merges;
    s.plan = std::make_shared<const FlowPlan>(plan_linear(l, s.flow, s.tokens, s.recompute));
    classify(s, std::move(key), l.tt.ranks, classes);
    // An encoder's recomputation runs the layer's forward steps again (training_graph.h).
    if (options.recompute_encoders && l.encoder >= 0 && l.encoder < model.encoders - 1) bind(s, l.name, names, ".re");
    bind(std::move(s), l.name, names);
  }
  writes_a_read_.resize(graph.tasks.size());
  for (const Task& t : graph.tasks) {
    bool writes_a_read = false;
    for (int w : t.writes) writes_a_read = writes_a_read || std::find(t.reads.begin(), t.reads.end(), w) != t.reads.end();
    writes_a_read_[static_cast<std::size_t>(t.id)] = t.op == TaskOp::kContraction && writes_a_read;
  }
  for (const Site& s : sites_) {
    for (int u : s.tensor_update) {
      if (u >= 0) updates_.push_back(u);
    }
  }
  std::sort(updates_.begin(), updates_.end());
  updates_.erase(std::unique(updates_.begin(), updates_.end()), updates_.end());
}

const FlowPlan* GraphReshaper::plan_for(const Site& s, const ModelSpec& model) {
  const std::vector<std::int64_t>& ranks =
      s.linear < 0 ? model.token_embedding.ttm.ranks : model.linears[s.linear].tt.ranks;
  // Looked up without copying the ranks; inserted (with the plan) the first time.
  auto it = plans_.lower_bound({s.shape, {}});
  for (; it != plans_.end() && it->first.first == s.shape; ++it) {
    if (it->first.second == ranks) return it->second.get();
  }
  auto plan = std::make_shared<const FlowPlan>(s.linear < 0 ? plan_ttm_lookup(model.token_embedding.ttm, s.tokens, by_add_)
                                                            : plan_linear(model.linears[s.linear], s.flow, s.tokens,
                                                                          s.recompute));
  if (!same_plan_structure(*plan, *s.plan)) plan.reset();
  return plans_.emplace(std::make_pair(s.shape, ranks), std::move(plan)).first->second.get();
}

bool GraphReshaper::reshape(const ModelSpec& model, TaskGraph& graph) {
  std::vector<const FlowPlan*>& plans = site_plans_;
  plans.clear();
  for (const Site& s : sites_) {
    const FlowPlan* p = plan_for(s, model);
    if (!p) return false;
    plans.push_back(p);
  }
  for (std::size_t i = 0; i < sites_.size(); ++i) {
    const Site& s = sites_[i];
    const FlowPlan& plan = *plans[i];
    for (std::size_t j = 0; j < plan.steps.size(); ++j) {
      if (s.step_task[j] < 0) continue;
      // As Builder::task: the step's shape with the memories of the task's operands.
      Task& t = graph.tasks[s.step_task[j]];
      const std::uint64_t memories = t.shape.memories;
      t.shape = plan.steps[j].shape;
      t.shape.memories = memories;
      // As task_variant: a contraction that writes a buffer it reads accumulates.
      if (writes_a_read_[static_cast<std::size_t>(t.id)]) {
        t.shape.variant = ttsim_spec::accumulating_variant(t.shape.variant);
      }
      if (t.op == TaskOp::kContraction) {
        t.macs = t.shape.macs();
      } else {
        t.elements = t.shape.elements();
      }
    }
    for (std::size_t j = 0; j < plan.tensors.size(); ++j) {
      if (s.tensor_buffer[j] < 0) continue;
      Buffer& b = graph.buffers[s.tensor_buffer[j]];
      // A core gradient has its core's shape (Builder::parameter).
      b.shape = plan.tensors[s.shape_from[j]].shape;
      b.words = 1;
      for (auto x : b.shape) b.words *= x;
    }
  }
  // The update groups holding cores: 1 × the words of the group's parameters
  // (Builder::sgd_group), once every site's buffers have their new shapes.
  for (int u_id : updates_) {
    Task& u = graph.tasks[static_cast<std::size_t>(u_id)];
    std::int64_t words = 0;
    for (int w : u.writes) words += graph.buffers[static_cast<std::size_t>(w)].words;
    u.shape.rows = 1;
    u.shape.cols = words;
    u.elements = u.shape.elements();
  }
  return true;
}

}  // namespace ttsim
