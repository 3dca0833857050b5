#include "sim/design_eval.h"

#include "core/errors.h"

#include <list>
#include <map>
#include <mutex>
#include <unordered_map>

#include "machine/hls_dims.h"
#include "models/graph_reshape.h"
#include "models/training_graph.h"
#include "sim/schedule_activity.h"
#include "sim/step_power.h"
#include "sim/step_reuse.h"

#include <algorithm>
#include <array>
#include <atomic>

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

/// What `step` leaves to price: fit on the device, the epoch over `split`, activity,
/// LUTs, power and energy (every field but `step` is overwritten).
void finish_evaluation(DesignEvaluation& e, const ModelSpec& model, const ArchSpec& arch, const DeviceSpec& device,
                       const dataset::LengthHistogram* split, const EngineOptions& options) {
  e.epoch.reset();
  if (split) e.epoch = simulate_epoch(model, arch, device, *split, e.step, options);
  e.activity = step_activity(e.step, arch, device, &e.lut_terms);
  e.luts = e.lut_terms.total();
  e.ff_terms = design_ff_terms(arch);
  e.over_device = machine::over_device(e.machine(), e.luts, e.ff_terms.total(), arch.clock_mhz, device);
  e.power.reset();
  e.step_joules.reset();
  e.epoch_joules.reset();
  if (has_power_coefficients(device)) {
    e.power = fpga_power(device, e.activity);
    e.step_joules = e.power->total_watts() * e.step.run.schedule.makespan / (arch.clock_mhz * 1e6);
    if (e.epoch) e.epoch_joules = e.power->total_watts() * e.epoch->seconds;
  }
}

/// True when a step of `arch` has the task graph, schedule-graph dependencies and fused
/// buffers of a step of `other` for the same model: the same flows and recomputation
/// (the graph), scheduling
/// policy and refinements (the policy's edges) and fusion. Lanes, clock, unit overheads,
/// calibration and the memory and sequence-length settings may differ: they change
/// latencies, the machine and the figures, which re-simulation recomputes.
bool same_step_structure(const ArchSpec& arch, const ArchSpec& other) {
  return arch.flow_by_kind == other.flow_by_kind && arch.recompute_merges == other.recompute_merges &&
         arch.recompute_encoders == other.recompute_encoders &&
         arch.policy == other.policy &&
         arch.parallel_merges == other.parallel_merges && arch.qkv_reschedule == other.qkv_reschedule &&
         arch.fusion == other.fusion;
}

/// The last evaluation of one design structure (model structure, the arch's step structure
/// (same_step_structure), device) on this thread, kept to evaluate the next design of that
/// structure in place.
struct StepTemplate {
  ModelSpec model;  ///< the model the template was built for (its reshaper's origin)
  ArchSpec arch;    ///< the arch last evaluated on the template
  DeviceSpec device;
  std::shared_ptr<TaskGraph> graph;           ///< also evaluation->step.graph_ptr
  std::shared_ptr<machine::Machine> machine;  ///< also evaluation->step.machine
  std::shared_ptr<DesignEvaluation> evaluation;
  std::unique_ptr<GraphReshaper> reshaper;    ///< null until the structure is seen again
  /// The TT and TTM ranks of the model last evaluated on the template (rank_signature):
  /// the graph, footprints and arrays are that model's.
  std::vector<std::int64_t> ranks;
  /// The graph's accumulate_by_add choices for the last model and arch (partial buffers and
  /// adds are tasks and buffers of the graph, so part of its structure).
  std::vector<char> by_add;

  /// Gives the template its own copies of what an earlier caller still holds (the
  /// evaluation, or its graph or machine), so re-evaluating never changes a result
  /// handed out.
  void detach() {
    if (evaluation.use_count() == 1 && graph.use_count() == 2 && machine.use_count() == 2) {
      // Another thread may just have dropped its reference (an evaluation of the SystemC
      // cache): its reads happen before the writes that follow.
      std::atomic_thread_fence(std::memory_order_acquire);
      return;
    }
    graph = std::make_shared<TaskGraph>(*graph);
    machine = std::make_shared<machine::Machine>(*machine);
    evaluation = std::make_shared<DesignEvaluation>(*evaluation);
    evaluation->step.graph_ptr = graph;
    evaluation->step.machine = machine;
  }
};

thread_local EvaluationPaths paths;  // this thread's, evaluation_paths()

/// This thread's kernel latency model of (arch, device), from the kLatencyModels it made
/// last (most recent first): a sweep moves each template through a few lane settings in
/// turn, and making one prices every loop of every kernel on every unit kind. Its instance
/// IIs are those of whichever graph it was bound to last; reprice_step and resimulate_step
/// bind it before they read them.
KernelLatencyModel& latency_model(const ArchSpec& arch, const DeviceSpec& device) {
  constexpr std::size_t kLatencyModels = 16;
  struct Entry {
    ArchSpec arch;
    DeviceSpec device;
    KernelLatencyModel model;
  };
  thread_local std::list<Entry> recent;
  for (auto it = recent.begin(); it != recent.end(); ++it) {
    if (it->arch == arch && it->device == device) {
      recent.splice(recent.begin(), recent, it);
      return recent.front().model;
    }
  }
  KernelLatencyModel model(arch, device);  // a throw leaves the list as it was
  recent.push_front(Entry{arch, device, std::move(model)});
  if (recent.size() > kLatencyModels) recent.pop_back();
  return recent.front().model;
}


/// Re-prices template `t`, whose last model had `model`'s ranks, for `arch` (only prices
/// change: reprice_step) and finishes its evaluation.
std::shared_ptr<const DesignEvaluation> reprice_template(StepTemplate& t, const ModelSpec& model, const ArchSpec& arch,
                                                         const DeviceSpec& device,
                                                         const dataset::LengthHistogram* split,
                                                         const EngineOptions& options) {
  t.detach();
  KernelLatencyModel& latency = latency_model(arch, device);
  t.arch = arch;
  DesignEvaluation& e = *t.evaluation;
  reprice_step(e.step, *t.machine, arch, device, latency, options);
  finish_evaluation(e, model, arch, device, split, options);
  ++paths.repriced;
  return t.evaluation;
}

/// Evaluates (model, arch, device): on this thread's template of the same structure when
/// there is one — reprice_step when the template's last model had the same ranks (only
/// prices change), else the graph reshaped to the model's ranks and resimulate_step; the
/// same figures as a fresh evaluation either way (sim/step_sim.h) —, else from scratch, keeping the result
/// as the template of its structure. Each thread keeps its kStepTemplates most recent
/// templates.
std::shared_ptr<const DesignEvaluation> evaluate(const ModelSpec& model, const ArchSpec& arch,
                                                 const DeviceSpec& device, const dataset::LengthHistogram* split,
                                                 Fidelity fidelity) {
  constexpr std::size_t kStepTemplates = 8;
  thread_local std::list<StepTemplate> templates;  // most recent first
  thread_local std::vector<std::int64_t> ranks;
  machine::check_buildable(arch);
  EngineOptions options;
  options.analytic = fidelity == Fidelity::kAnalytic;
  options.occupancy = !options.analytic;  // no analytic figure reads it
  thread_local std::vector<char> by_add;
  rank_signature(model, ranks);
  const GraphOptions graph_opts = graph_options(arch, 0);
  accumulate_by_add_choices(model, graph_opts, by_add);
  auto it = templates.begin();
  while (it != templates.end() &&
         (!same_step_structure(it->arch, arch) || it->device != device || it->by_add != by_add ||
          !same_graph_structure(it->model, model))) {
    ++it;
  }
  if (it != templates.end() && it->ranks == ranks) {
    // The template's last model again (its ranks; the kernel tree's view passed then):
    // only prices change.
    templates.splice(templates.begin(), templates, it);
    return reprice_template(templates.front(), model, arch, device, split, options);
  }
  // The kernel tree's limits (encoders, factors, arena sizes) before the step's graph is
  // built: a model far beyond them would otherwise take that graph's memory first.
  // One per thread, laid out again for each design (machine::hls_design_into).
  thread_local machine::HlsDesign design;
  machine::hls_design_into(design, model, arch, arch.source_file.empty() ? arch.name : arch.source_file);
  const machine::HlsDesign& hd = design;
  if (it != templates.end()) {
    templates.splice(templates.begin(), templates, it);
    StepTemplate& t = templates.front();
    // Made on the first reuse (t.graph is still the graph of t.model then): a lone
    // evaluation (`simulate`) never pays for it.
    if (!t.reshaper) t.reshaper = std::make_unique<GraphReshaper>(t.model, graph_opts, *t.graph);
    t.detach();
    // Until the step is the new model's: a throw from here on (the reshape, the arch's
    // latency model, the re-simulation) leaves a template no later point re-prices on.
    t.ranks.clear();
    if (t.reshaper->reshape(model, *t.graph)) {
      KernelLatencyModel& latency = latency_model(arch, device);
      t.arch = arch;
      DesignEvaluation& e = *t.evaluation;
      resimulate_step(e.step, *t.machine, model, arch, device, latency, hd, options);
      t.ranks = ranks;
      t.by_add = by_add;
      finish_evaluation(e, model, arch, device, split, options);
      ++paths.resimulated;
      return t.evaluation;
    }
    templates.pop_front();  // plans of another structure: build
  }
  StepTemplate t;
  t.model = model;
  t.arch = arch;
  t.device = device;
  t.graph = std::make_shared<TaskGraph>(build_training_graph(model, graph_opts));
  t.evaluation = std::make_shared<DesignEvaluation>();
  DesignEvaluation& e = *t.evaluation;
  StepOptions step_options = StepOptions::with_engine(options);
  step_options.padded_graph = t.graph;
  e.step = simulate_step(model, arch, device, step_options);
  t.machine = std::make_shared<machine::Machine>(*e.step.machine);
  e.step.machine = t.machine;
  t.ranks = ranks;
  t.by_add = by_add;
  finish_evaluation(e, model, arch, device, split, options);
  ++paths.built;
  std::shared_ptr<const DesignEvaluation> result = t.evaluation;
  templates.push_front(std::move(t));
  if (templates.size() > kStepTemplates) templates.pop_back();
  return result;
}

}  // namespace

EvaluationPaths evaluation_paths() { return paths; }

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
  const std::string arch_where = arch.source_file.empty() ? arch.name : arch.name + " (" + arch.source_file + ")";
  throw InputError(model.name + " on " + arch_where + " does not fit " + device.name + " (" + device_file + "): " + what);
}

}  // namespace ttsim
