#include "tests/hls/probed_step.h"

#include <algorithm>

#include "hls/host/hls_model.h"
#include "hls/include/design_config.h"
#include "hw/loop_nest.h"

namespace ttsim::testing {

ProbedStep run_probed_step(const ModelSpec& spec, const std::map<std::string, bool>& btt_by_kind,
                           std::int64_t K, bool recompute_merges, bool recompute_encoders,
                           const std::array<int, 2>& by_add) {
  HlsModelOptions o;
  o.contraction_lanes = by_add[0];
  o.arena_banks = by_add[1];
  o.recompute_merges = recompute_merges;
  o.recompute_encoders = recompute_encoders;
  for (const char* k : {"attention", "ffn_in", "ffn_out"}) {
    const auto it = btt_by_kind.find(k);
    o.btt_by_kind[k] = it == btt_by_kind.end() || it->second;
  }
  HlsModel m(spec, o);
  std::vector<int> tokens, tags;
  for (std::int64_t i = 0; i < K; ++i) {
    tokens.push_back(static_cast<int>((i * 193 + 17) % spec.vocab));
    tags.push_back(i % 5 == 3 ? -1 : static_cast<int>((i * 7) % spec.slot_tags));
  }
  ttsim_hls::AccessProbeScope probe(ttsim_cfg::kArenaBanks);
  for (const auto& r : m.arena_ranges()) {
    probe.add_memory(r.array, r.base, static_cast<std::size_t>(r.words) * sizeof(float), sizeof(float));
  }
  m.train_step(tokens, static_cast<int>(spec.intents - 1), tags, 0.01f);
  ProbedStep out{probe.loops(), probe.sequence()};
  out.layernorm_granule = ttsim_hls::layernorm_lane_granule(m.dims(), m.layout());
  out.gelu_granule = ttsim_hls::gelu_lane_granule(m.dims(), m.layout());
  out.softmax_granule = ttsim_hls::softmax_lane_granule(m.dims(), m.layout());
  out.sgd_granule = ttsim_hls::sgd_lane_granule(m.layout());
  out.loss_granule = ttsim_hls::loss_lane_granule(m.dims(), m.layout());
  return out;
}

int compiled_lanes(TaskOp op) {
  switch (op) {
    case TaskOp::kContraction: return ttsim_cfg::kContractLanes;
    case TaskOp::kSoftmax:
    case TaskOp::kSoftmaxGrad: return ttsim_cfg::kSoftmaxLanes;
    case TaskOp::kLayerNorm:
    case TaskOp::kLayerNormGrad: return ttsim_cfg::kLayerNormLanes;
    case TaskOp::kGelu:
    case TaskOp::kGeluGrad: return ttsim_cfg::kGeluLanes;
    case TaskOp::kAdd: return ttsim_cfg::kAddLanes;
    case TaskOp::kLoss: return ttsim_cfg::kLossLanes;
    case TaskOp::kSgdUpdate: return ttsim_cfg::kSgdLanes;
  }
  return 1;
}

std::vector<std::string> graph_loop_sequence(const TaskGraph& g, const std::vector<int>& order) {
  std::vector<std::string> out;
  for (int id : order) {
    const Task& t = g.tasks.at(static_cast<std::size_t>(id));
    for (const auto& l : kernel_loops(t.op, t.shape, compiled_lanes(t.op), ttsim_cfg::kArenaBanks)) {
      std::string shape;
      if (t.op == TaskOp::kContraction) {
        shape = " v" + std::to_string(t.shape.variant) + " " + std::to_string(t.shape.batch) + "x" +
                std::to_string(t.shape.rows) + "x" + std::to_string(t.shape.inner) + "x" + std::to_string(t.shape.cols);
      }
      out.push_back(l.name + " x" + std::to_string(l.trip) + shape + " (" + t.name + ")");
    }
  }
  return out;
}

std::size_t first_difference(const std::vector<std::string>& graph,
                             const std::vector<ttsim_hls::LoopInvocation>& step, std::string* around) {
  std::vector<std::string> got;
  for (const auto& inv : step) {
    // A contraction loop whose call recorded no shape cannot match its task's line.
    const bool contraction = inv.loop.compare(0, 9, "contract_") == 0;
    got.push_back(inv.loop + " x" + std::to_string(inv.iterations) +
                  (inv.shape.empty() ? (contraction ? " (no call shape recorded)" : "") : " " + inv.shape));
  }
  std::size_t i = 0;
  while (i < graph.size() && i < got.size() && graph[i].compare(0, got[i].size() + 1, got[i] + " ") == 0) ++i;
  if (around) {
    around->clear();
    for (std::size_t k = i; k < i + 6 && k < std::max(graph.size(), got.size()); ++k) {
      *around += "\n  graph " + (k < graph.size() ? graph[k] : "-") + "  |  step " + (k < got.size() ? got[k] : "-");
    }
  }
  return i;
}

}  // namespace ttsim::testing
