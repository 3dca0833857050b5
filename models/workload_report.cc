#include "models/workload_report.h"

#include <algorithm>

#include "core/errors.h"

namespace ttsim {

namespace {

using I = std::int64_t;

std::string list(const std::vector<I>& v) {
  std::string s = "[";
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
  return s + "]";
}

/// "r=12" when every inner rank is 12, else the full list "r=[1,4,6,1]".
std::string ranks(const std::vector<I>& r) {
  bool uniform = r.size() > 2;
  for (std::size_t i = 1; i + 1 < r.size(); ++i) uniform = uniform && r[i] == r[1];
  return uniform ? "r=" + std::to_string(r[1]) : "r=" + list(r);
}

StageCosts costs_of(const FlowPlan& plan) {
  StageCosts c;
  c.forward = stage_cost(plan, FlowStage::kForward);
  c.grad_input = stage_cost(plan, FlowStage::kGradInput);
  c.grad_weights = stage_cost(plan, FlowStage::kGradWeights);
  return c;
}

LayerReport plain(const std::string& name, const std::string& kind, const std::string& shape,
                  I params) {
  LayerReport r;
  r.name = name;
  r.kind = kind;
  r.format = "dense";
  r.shape = shape;
  r.params_dense = params;
  r.params_compressed = params;
  return r;
}

LayerReport linear_report(const LinearLayerSpec& l, I tokens) {
  LayerReport r;
  r.name = l.name;
  r.kind = l.kind;
  r.format = to_string(l.format);
  r.tokens = tokens;
  r.params_dense = l.dense_weight_params() + l.bias_params();
  r.params_compressed = l.weight_params() + l.bias_params();
  if (l.format == WeightFormat::kTT) {
    r.shape = list(l.tt.in_factors) + "x" + list(l.tt.out_factors) + " " + ranks(l.tt.ranks);
    for (Flow f : {Flow::kMM, Flow::kTT, Flow::kBTT}) {
      r.flows[to_string(f)] = costs_of(plan_linear(l, f, tokens));
    }
  } else {
    r.shape = std::to_string(l.in_dim) + "x" + std::to_string(l.out_dim);
    r.flows["mm"] = costs_of(plan_linear(l, Flow::kMM, tokens));
  }
  return r;
}

Json cost_json(const StageCosts& c, I FlowCost::*field) {
  return Json{{"forward", c.forward.*field},
              {"grad_input", c.grad_input.*field},
              {"grad_weights", c.grad_weights.*field}};
}

Json path_json(const StageCosts& c) {
  return Json{{"forward", c.forward.critical_path},
              {"grad_input", c.grad_input.critical_path},
              {"grad_weights", c.grad_weights.critical_path}};
}

}  // namespace

std::int64_t StageCosts::peak_intermediate_words() const {
  return std::max({forward.peak_intermediate_words, grad_input.peak_intermediate_words,
                   grad_weights.peak_intermediate_words});
}

std::pair<int, int> graph_critical_path(const TaskGraph& graph) {
  std::vector<int> len(graph.tasks.size(), 0), con(graph.tasks.size(), 0);
  std::pair<int, int> best{0, 0};
  for (const auto& t : graph.tasks) {
    int l = 0, c = 0;
    for (int d : t.deps) {
      if (len[d] > l || (len[d] == l && con[d] > c)) {
        l = len[d];
        c = con[d];
      }
    }
    len[t.id] = l + 1;
    con[t.id] = c + (t.op == TaskOp::kContraction ? 1 : 0);
    if (len[t.id] > best.first || (len[t.id] == best.first && con[t.id] > best.second)) {
      best = {len[t.id], con[t.id]};
    }
  }
  return best;
}

namespace {

/// The embedding rows of the report: token embedding (dense or TTM), position table and
/// LayerNorm.
void add_embedding_layers(const ModelSpec& m, I K, const std::string& ln_shape, std::vector<LayerReport>& layers) {
  const I D = m.d_model;
  const auto& e = m.token_embedding;
  LayerReport r = plain("embedding", "embedding", std::to_string(e.vocab) + "x" + std::to_string(e.dim),
                        e.dense_params());
  r.tokens = K;
  if (e.format == WeightFormat::kTTM) {
    r.format = "ttm";
    r.shape = list(e.ttm.vocab_factors) + "x" + list(e.ttm.dim_factors) + " " + ranks(e.ttm.ranks);
    r.params_compressed = e.params();
    if (e.ttm.cores() >= 2) r.flows["ttm"] = costs_of(plan_ttm_lookup(e.ttm, K));
  }
  layers.push_back(r);
  layers.push_back(plain("position_embedding", "position",
                         std::to_string(m.seq_len) + "x" + std::to_string(D),
                         m.position_params()));
  layers.push_back(plain("embedding.ln", "layernorm", ln_shape, 2 * D));
}

/// The linear layer `name` of `m`; throws InputError when it has none.
const LinearLayerSpec& find_layer(const ModelSpec& m, const std::string& name) {
  for (const auto& l : m.linears) {
    if (l.name == name) return l;
  }
  throw InputError(m.source_file + ": model has no layer \"" + name + "\"");
}

/// The attention-core row of the encoder whose layer names start with `p`.
LayerReport attention_core_report(const ModelSpec& m, const std::string& p, I K) {
  LayerReport a;
  a.name = p + "attn";
  a.kind = "attention_core";
  a.format = "-";
  a.shape = std::to_string(m.heads) + " heads x " + std::to_string(m.head_dim());
  a.tokens = K;
  a.flows["attention"] = costs_of(plan_attention(m.batch, m.seq_len, m.heads, m.head_dim()));
  return a;
}

/// The rows of encoder `enc`, in execution order.
void add_encoder_layers(const ModelSpec& m, int enc, I K, const std::string& ln_shape,
                        std::vector<LayerReport>& layers) {
  const I D = m.d_model;
  const std::string p = "enc" + std::to_string(enc) + ".";
  for (const char* n : {"q", "k", "v"}) layers.push_back(linear_report(find_layer(m, p + n), K));
  layers.push_back(attention_core_report(m, p, K));
  layers.push_back(linear_report(find_layer(m, p + "o"), K));
  layers.push_back(plain(p + "ln1", "layernorm", ln_shape, 2 * D));
  layers.push_back(linear_report(find_layer(m, p + "ffn_in"), K));
  layers.push_back(linear_report(find_layer(m, p + "ffn_out"), K));
  layers.push_back(plain(p + "ln2", "layernorm", ln_shape, 2 * D));
}

/// Totals of flow `f` over the report's rows (a row without that flow counts its only
/// one), and the summary of the task graph with every layer kind on `f`.
FlowTotals flow_totals(const ModelSpec& m, const std::vector<LayerReport>& layers, Flow f) {
  FlowTotals t;
  for (const auto& l : layers) {
    if (l.flows.empty()) continue;
    auto it = l.flows.find(to_string(f));
    const StageCosts& c = it != l.flows.end() ? it->second : l.flows.begin()->second;
    t.macs.forward.macs += c.forward.macs;
    t.macs.grad_input.macs += c.grad_input.macs;
    t.macs.grad_weights.macs += c.grad_weights.macs;
    t.peak_intermediate_words = std::max(t.peak_intermediate_words, c.peak_intermediate_words());
  }
  GraphOptions o;
  for (const char* kind : {"attention", "ffn_in", "ffn_out", "intent_head", "slot_head"}) {
    o.flow_by_kind[kind] = f;
  }
  const TaskGraph g = build_training_graph(m, o);
  t.graph = summarize(g);
  std::tie(t.graph_critical_path_tasks, t.graph_critical_path_contractions) = graph_critical_path(g);
  return t;
}

/// MM vs TT vs BTT forward costs of the first TT attention layer at each of
/// `compare_tokens` (nothing when the model has no TT attention layer).
void add_flow_comparison(const ModelSpec& m, const std::vector<std::int64_t>& compare_tokens, WorkloadReport& rep) {
  for (const auto& l : m.linears) {
    if (l.kind == "attention" && l.format == WeightFormat::kTT) {
      rep.comparison_layer = l.name;
      for (I k : compare_tokens) {
        if (k < 1) throw InputError("--tokens: expected token counts >= 1, found " + std::to_string(k));
        FlowComparisonPoint pt;
        pt.tokens = k;
        for (Flow f : {Flow::kMM, Flow::kTT, Flow::kBTT}) {
          pt.forward[to_string(f)] = linear_cost(l, f, k, FlowStage::kForward);
        }
        rep.comparison.push_back(pt);
      }
      break;
    }
  }
}

}  // namespace

WorkloadReport build_workload_report(const ModelSpec& m, Flow graph_flow,
                                     const std::vector<std::int64_t>& compare_tokens) {
  WorkloadReport rep;
  rep.model = m;
  rep.tokens = m.tokens();
  rep.dense_params = m.dense_params();
  rep.compressed_params = m.compressed_params();
  rep.graph_flow = graph_flow;
  const I K = rep.tokens;
  const std::string ln_shape = "2x" + std::to_string(m.d_model);
  add_embedding_layers(m, K, ln_shape, rep.layers);
  for (int enc = 0; enc < m.encoders; ++enc) add_encoder_layers(m, enc, K, ln_shape, rep.layers);
  rep.layers.push_back(linear_report(find_layer(m, "intent_head"), m.batch));
  rep.layers.push_back(linear_report(find_layer(m, "slot_head"), K));
  for (Flow f : {Flow::kMM, Flow::kTT, Flow::kBTT}) rep.totals[to_string(f)] = flow_totals(m, rep.layers, f);
  add_flow_comparison(m, compare_tokens, rep);
  return rep;
}

Json to_json(const GraphSummary& s) {
  return Json{{"tasks", s.tasks},
              {"buffers", s.buffers},
              {"dependencies", s.dependencies},
              {"tasks_by_stage", s.tasks_by_stage},
              {"tasks_by_unit", s.tasks_by_unit},
              {"tasks_by_op", s.tasks_by_op},
              {"buffers_by_class", s.buffers_by_class},
              {"words_by_class", s.words_by_class},
              {"macs_by_stage", s.macs_by_stage},
              {"total_macs", s.total_macs},
              {"total_elements", s.total_elements}};
}

Json to_json(const WorkloadReport& r) {
  Json j;
  j["model"] = r.model.to_json();
  j["tokens"] = r.tokens;
  j["dense_params"] = r.dense_params;
  j["compressed_params"] = r.compressed_params;
  j["dense_bytes"] = r.dense_bytes();
  j["compressed_bytes"] = r.compressed_bytes();
  j["compression_ratio"] = r.compression_ratio();
  Json layers = Json::array();
  for (const auto& l : r.layers) {
    Json x{{"name", l.name},
           {"kind", l.kind},
           {"format", l.format},
           {"shape", l.shape},
           {"tokens", l.tokens},
           {"params_dense", l.params_dense},
           {"params_compressed", l.params_compressed}};
    Json macs = Json::object(), words = Json::object(), path = Json::object();
    for (const auto& [flow, c] : l.flows) {
      macs[flow] = cost_json(c, &FlowCost::macs);
      words[flow] = cost_json(c, &FlowCost::peak_intermediate_words);
      path[flow] = path_json(c);
    }
    x["macs"] = macs;
    x["intermediate_words"] = words;
    x["critical_path"] = path;
    layers.push_back(x);
  }
  j["layers"] = layers;
  Json totals = Json::object();
  for (const auto& [flow, t] : r.totals) {
    totals[flow] = Json{{"macs", Json{{"forward", t.macs.forward.macs},
                                      {"grad_input", t.macs.grad_input.macs},
                                      {"grad_weights", t.macs.grad_weights.macs},
                                      {"total", t.macs.macs()}}},
                        {"peak_intermediate_words", t.peak_intermediate_words},
                        {"graph_total_macs", t.graph.total_macs},
                        {"graph_tasks", t.graph.tasks},
                        {"graph_critical_path_tasks", t.graph_critical_path_tasks},
                        {"graph_critical_path_contractions", t.graph_critical_path_contractions}};
  }
  j["totals"] = totals;
  j["task_graph_flow"] = to_string(r.graph_flow);
  j["task_graph"] = to_json(r.totals.at(to_string(r.graph_flow)).graph);
  Json cmp{{"layer", r.comparison_layer}, {"points", Json::array()}};
  for (const auto& p : r.comparison) {
    Json pt{{"tokens", p.tokens}};
    for (const auto& [flow, c] : p.forward) {
      pt[flow] = Json{{"macs", c.macs},
                      {"intermediate_words", c.peak_intermediate_words},
                      {"critical_path", c.critical_path}};
    }
    cmp["points"].push_back(pt);
  }
  j["flow_comparison"] = cmp;
  return j;
}

}  // namespace ttsim
