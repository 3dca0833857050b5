#include "sim/step_report.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "hls/include/kernel_spec.h"

namespace ttsim {

double lane_efficiency(std::int64_t macs, std::int64_t cycles, int lanes) {
  return cycles > 0 && lanes > 0 ? static_cast<double>(macs) / (static_cast<double>(cycles) * lanes) : 0.0;
}

std::int64_t graph_macs(const TaskGraph& graph) {
  std::int64_t macs = 0;
  for (const Task& t : graph.tasks) macs += t.macs;
  return macs;
}

std::int64_t mac_ideal_cycles(const TaskGraph& graph, std::int64_t lanes) {
  return lanes < 1 ? 0 : (graph_macs(graph) + lanes - 1) / lanes;
}

std::string contraction_form_name(int variant) {
  if (variant < 0) return "transpose";
  const int form = variant & ttsim_spec::kContractFormMask;
  std::string s = form == ttsim_spec::kContractColumn      ? "column"
                  : form == ttsim_spec::kContractColumnAcc ? "column+acc"
                  : form == ttsim_spec::kContractDot       ? "dot"
                                                           : "scalar";
  return (variant & ttsim_spec::kContractReduceBatch) ? s + "+reduce" : s;
}

std::vector<ProductBreakdown> product_breakdown(const TaskGraph& graph, const Schedule& schedule) {
  using Key = std::tuple<std::string, std::int64_t, std::int64_t, std::int64_t, std::int64_t, int>;
  std::vector<ProductBreakdown> out;
  std::map<Key, std::size_t> index;
  for (const Task& t : graph.tasks) {
    const bool transpose = t.op == TaskOp::kAdd && t.shape.variant == ttsim_spec::kAddTranspose;
    if (t.op != TaskOp::kContraction && !transpose) continue;
    const TaskShape& sh = t.shape;
    const auto [it, inserted] =
        index.try_emplace(Key{t.role, sh.batch, sh.rows, sh.inner, sh.cols, sh.variant}, out.size());
    if (inserted) out.push_back({t.role, sh, 0, 0, 0});
    if (transpose) out[it->second].shape.variant = -1;
    ProductBreakdown& p = out[it->second];
    ++p.calls;
    p.macs += t.macs;
    p.cycles += schedule.tasks[t.id].end - schedule.tasks[t.id].start;
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const ProductBreakdown& a, const ProductBreakdown& b) { return a.cycles > b.cycles; });
  return out;
}

StageCycles stage_cycles(const TaskGraph& graph, const Schedule& schedule) {
  std::int64_t fwd = 0, upd = 0, re = 0;
  for (const Task& t : graph.tasks) {
    const TaskTime& tt = schedule.tasks[t.id];
    if (t.stage == Stage::kForward) fwd = std::max(fwd, tt.end);
    if (t.stage == Stage::kUpdate) upd += tt.end - tt.start;
    if (t.recompute) re += tt.end - tt.start;
  }
  fwd = std::min(fwd, schedule.makespan);
  StageCycles s;
  s.forward = fwd;
  s.update = std::min(upd, schedule.makespan - fwd);
  s.backward = schedule.makespan - fwd - s.update;
  s.recompute = std::min(re, s.backward);
  return s;
}

std::vector<LayerBreakdown> layer_breakdown(const TaskGraph& graph, const Schedule& schedule) {
  std::vector<LayerBreakdown> out;
  std::map<std::string, std::size_t> index;
  for (const Task& t : graph.tasks) {
    auto [it, inserted] = index.try_emplace(t.layer, out.size());
    const TaskTime& tt = schedule.tasks[t.id];
    if (inserted) {
      out.push_back({t.layer, 0, 0, 0, 0, tt.start, tt.end});
    }
    LayerBreakdown& l = out[it->second];
    ++l.tasks;
    l.macs += t.macs;
    l.busy_cycles += tt.end - tt.start;
    if (t.op == TaskOp::kContraction) l.contraction_cycles += tt.end - tt.start;
    l.start = std::min(l.start, tt.start);
    l.end = std::max(l.end, tt.end);
  }
  return out;
}

std::vector<KernelBreakdown> kernel_breakdown(const StepResult& r, const ArchSpec& arch) {
  std::vector<KernelBreakdown> out;
  std::vector<std::size_t> first(kUnitKinds, 0);
  for (int k = 0; k < kUnitKinds; ++k) {
    first[k] = out.size();
    for (int i = 0; i < r.run.instances[k]; ++i) {
      KernelBreakdown b;
      b.kind = static_cast<UnitKind>(k);
      b.index = i;
      b.name = std::string(to_string(b.kind)) + "_" + std::to_string(i);
      b.lanes = arch.units[k].lanes;
      out.push_back(b);
    }
  }
  for (const Task& t : r.graph().tasks) {
    const TaskTime& tt = r.run.schedule.tasks[t.id];
    KernelBreakdown& b = out[first[static_cast<int>(t.unit)] + tt.unit_index];
    ++b.tasks;
    b.busy_cycles += tt.end - tt.start;
  }
  const double span = static_cast<double>(std::max<std::int64_t>(1, r.run.schedule.makespan));
  for (auto& b : out) b.utilization = b.busy_cycles / span;
  return out;
}

LayerBreakdown layer_total(const std::vector<LayerBreakdown>& layers, std::int64_t step_cycles) {
  LayerBreakdown total{"total", 0, 0, 0, 0, 0, step_cycles};
  for (const auto& l : layers) {
    total.tasks += l.tasks;
    total.macs += l.macs;
    total.busy_cycles += l.busy_cycles;
    total.contraction_cycles += l.contraction_cycles;
  }
  return total;
}

KernelBreakdown kernel_total(const std::vector<KernelBreakdown>& kernels, std::int64_t step_cycles) {
  KernelBreakdown total;
  total.name = "total";
  for (const auto& k : kernels) {
    total.busy_cycles += k.busy_cycles;
    total.tasks += k.tasks;
  }
  total.utilization =
      kernels.empty() ? 0.0
                      : static_cast<double>(total.busy_cycles) /
                            (static_cast<double>(std::max<std::int64_t>(1, step_cycles)) * kernels.size());
  return total;
}

Json step_json(const StepResult& r, const ArchSpec& arch) {
  const Schedule& s = r.run.schedule;
  Json j;
  j["tokens"] = r.tokens;
  j["step_cycles"] = s.makespan;
  const StageCycles st = stage_cycles(r.graph(), s);
  j["stage_cycles"] = {{"forward", st.forward}, {"backward", st.backward}, {"update", st.update},
                       {"recompute", st.recompute}};
  j["clock_mhz"] = arch.clock_mhz;
  j["step_seconds"] = s.makespan / (arch.clock_mhz * 1e6);
  j["analytic_cycles"] = r.analytic_cycles;
  const auto& pk = r.occupancy.peak_bytes;
  j["onchip_peak_bytes"] = {{"params", pk[static_cast<int>(BufferClass::kParameter)]},
                            {"grads", pk[static_cast<int>(BufferClass::kGradient)]},
                            {"activations", pk[static_cast<int>(BufferClass::kActivation)]},
                            {"temporaries", pk[static_cast<int>(BufferClass::kTemporary)]},
                            {"total", r.occupancy.peak_total_bytes}};
  const int lanes = arch.units[static_cast<int>(UnitKind::kContraction)].lanes;
  // MACs per cycle and lane efficiency of `macs` over `cycles`; null where no MAC runs.
  auto rates = [&](Json& j, std::int64_t macs, std::int64_t cycles) {
    const bool any = macs > 0 && cycles > 0;
    j["macs_per_cycle"] = any ? Json(static_cast<double>(macs) / cycles) : Json(nullptr);
    j["lane_efficiency"] = any ? Json(lane_efficiency(macs, cycles, lanes)) : Json(nullptr);
  };
  auto layer_json = [&](const LayerBreakdown& l) {
    Json j{{"layer", l.layer}, {"tasks", l.tasks}, {"macs", l.macs}, {"busy_cycles", l.busy_cycles},
           {"contraction_cycles", l.contraction_cycles}, {"start", l.start}, {"end", l.end}};
    rates(j, l.macs, l.contraction_cycles);
    return j;
  };
  Json layers = Json::array();
  const auto lb = layer_breakdown(r.graph(), s);
  for (const auto& l : lb) layers.push_back(layer_json(l));
  layers.push_back(layer_json(layer_total(lb, s.makespan)));
  j["layers"] = layers;
  Json products = Json::array();
  for (const auto& p : product_breakdown(r.graph(), s)) {
    Json j{{"role", p.role},   {"batch", p.shape.batch}, {"rows", p.shape.rows},
           {"inner", p.shape.inner}, {"cols", p.shape.cols},  {"form", contraction_form_name(p.shape.variant)},
           {"calls", p.calls}, {"macs", p.macs}, {"cycles", p.cycles}};
    rates(j, p.macs, p.cycles);
    products.push_back(std::move(j));
  }
  j["products"] = products;
  Json kernels = Json::array();
  const auto kb = kernel_breakdown(r, arch);
  for (const auto& k : kb) {
    kernels.push_back({{"name", k.name}, {"unit", to_string(k.kind)}, {"lanes", k.lanes},
                       {"tasks", k.tasks}, {"busy_cycles", k.busy_cycles},
                       {"utilization", k.utilization}});
  }
  const KernelBreakdown kt = kernel_total(kb, s.makespan);
  kernels.push_back({{"name", kt.name}, {"unit", "all"}, {"tasks", kt.tasks}, {"busy_cycles", kt.busy_cycles},
                     {"utilization", kt.utilization}});
  j["kernels"] = kernels;
  j["tasks"] = r.graph().tasks.size();
  j["events"] = s.events;
  return j;
}

}  // namespace ttsim
