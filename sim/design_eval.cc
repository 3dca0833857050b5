#include "sim/design_eval.h"

#include "core/errors.h"

#include <list>
#include <map>
#include <mutex>
#include <unordered_map>

#include "machine/hls_dims.h"
#include "models/graph_reshape.h"
#include "models/training_graph.h"
#include "sim/power/schedule_activity.h"
#include "sim/power/step_power.h"

#include <algorithm>
#include <array>

namespace ttsim {

std::string design_key(const ModelSpec& model, const ArchSpec& arch, const DeviceSpec& device,
                       const dataset::LengthHistogram* split) {
  Json k;
  k["model"] = model.to_json();
  k["arch"] = arch.to_json();
  k["device"] = device.to_json();
  if (arch.calibration) {
    Json c;
    c["name"] = arch.calibration->name;
    for (const auto& [op, p] : arch.calibration->kernels) {
      Json kp;
      kp["overhead"] = p.overhead;
      for (const auto& [loop, adj] : p.depth_adjust) kp["depth_adjust"][loop] = adj;
      c["kernels"][to_string(op)] = kp;
    }
    for (const auto& [op, cycles] : arch.calibration->op_latency) c["op_latency"][op] = cycles;
    k["calibration"] = c;
  }
  if (split) {
    Json s = Json::array();
    for (const auto& [len, n] : split->samples) s.push_back({len, n});
    k["split"] = s;
  }
  return k.dump();
}

namespace {

/// The padded step's graph of (model, arch): reshaped from the graph of an earlier model of
/// the same structure and flows when this thread has one (models/graph_reshape.h: equal to
/// the graph built for these ranks), else built. Each thread keeps the graphs of its
/// kGraphTemplates most recent structures; a graph still held by an earlier evaluation is
/// copied before it is reshaped, so no evaluation sees its graph change.
std::shared_ptr<const TaskGraph> padded_graph(const ModelSpec& model, const ArchSpec& arch) {
  constexpr std::size_t kGraphTemplates = 4;
  struct Template {
    ModelSpec model;
    GraphOptions options;
    std::shared_ptr<TaskGraph> graph;
    std::unique_ptr<GraphReshaper> reshaper;  // null until the structure is seen again
  };
  thread_local std::list<Template> templates;  // most recent first
  const GraphOptions options = graph_options(arch, 0);
  for (auto it = templates.begin(); it != templates.end(); ++it) {
    if (it->options.flow_by_kind != options.flow_by_kind || !same_graph_structure(it->model, model)) continue;
    templates.splice(templates.begin(), templates, it);
    Template& t = templates.front();
    // Made on the first reuse (t.graph is still the graph of t.model then): a lone
    // evaluation (`simulate`) never pays for it.
    if (!t.reshaper) t.reshaper = std::make_unique<GraphReshaper>(t.model, t.options, *t.graph);
    if (t.graph.use_count() > 1) t.graph = std::make_shared<TaskGraph>(*t.graph);
    if (!t.reshaper->reshape(model, *t.graph)) break;  // plans of another structure: build
    return t.graph;
  }
  Template t;
  t.model = model;
  t.options = options;
  t.graph = std::make_shared<TaskGraph>(build_training_graph(model, options));
  std::shared_ptr<const TaskGraph> g = t.graph;
  templates.push_front(std::move(t));
  if (templates.size() > kGraphTemplates) templates.pop_back();
  return g;
}

std::shared_ptr<const DesignEvaluation> evaluate(const ModelSpec& model, const ArchSpec& arch,
                                                 const DeviceSpec& device, const dataset::LengthHistogram* split,
                                                 Fidelity fidelity) {
  machine::check_buildable(arch);
  // The kernel tree's limits (encoders, factors, arena sizes) before the step's graph is
  // built: a model far beyond them would otherwise take that graph's memory first.
  machine::hls_design(model, arch, arch.source_file.empty() ? arch.name : arch.source_file);
  EngineOptions options;
  options.analytic = fidelity == Fidelity::kAnalytic;
  auto e = std::make_shared<DesignEvaluation>();
  e->step = simulate_step(model, arch, device, padded_graph(model, arch), options);
  e->machine = *e->step.machine;
  e->over_device = machine::over_device(e->machine, device);
  if (split) e->epoch = simulate_epoch(model, arch, device, *split, e->step, options);
  e->activity = step_activity(e->step, arch, device);
  e->luts = e->activity.kilo_lut.units * 1000;
  if (has_power_coefficients(device)) {
    e->power = fpga_power(device, e->activity);
    e->step_joules = e->power->total_watts() * e->step.run.schedule.makespan / (arch.clock_mhz * 1e6);
    if (e->epoch) e->epoch_joules = e->power->total_watts() * e->epoch->seconds;
  }
  return e;
}

}  // namespace

std::shared_ptr<const DesignEvaluation> evaluate_design(const ModelSpec& model, const ArchSpec& arch,
                                                        const DeviceSpec& device,
                                                        const dataset::LengthHistogram* split, Fidelity fidelity) {
  if (fidelity == Fidelity::kAnalytic) return evaluate(model, arch, device, split, fidelity);
  // The kSystemcCacheEntries most recently used evaluations (each holds a step's graph,
  // machine and schedule), so a sweep evaluating every point with SystemC keeps its memory
  // flat; callers holding an evaluation keep it alive past its eviction.
  static std::mutex mutex;
  static std::list<std::pair<std::string, std::shared_ptr<const DesignEvaluation>>> recent;  // most recent first
  static std::unordered_map<std::string, decltype(recent)::iterator> at;
  const std::string key = design_key(model, arch, device, split);
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = at.find(key);
    if (it != at.end()) {
      recent.splice(recent.begin(), recent, it->second);
      return it->second->second;
    }
  }
  auto e = evaluate(model, arch, device, split, fidelity);
  std::lock_guard<std::mutex> lock(mutex);
  if (auto it = at.find(key); it != at.end()) return it->second->second;  // another thread's, first in wins
  recent.emplace_front(key, std::move(e));
  at.emplace(key, recent.begin());
  if (recent.size() > kSystemcCacheEntries) {
    at.erase(recent.back().first);
    recent.pop_back();
  }
  return recent.front().second;
}

void require_fits(const DesignEvaluation& e, const ModelSpec& model, const ArchSpec& arch, const DeviceSpec& device,
                  const std::string& device_file) {
  if (e.over_device.empty()) return;
  std::string what;
  for (const auto& o : e.over_device) what += (what.empty() ? "" : "; ") + o;
  throw InputError(model.name + " on " + arch.name + " does not fit " + device.name + " (" + device_file + "): " + what);
}

}  // namespace ttsim
