#include "dse/sim_evaluator.h"

#include <mutex>
#include <unordered_map>

#include "dse/point_power.h"
#include "machine/hls_dims.h"
#include "machine/machine.h"
#include "sim/design_eval.h"
#include "models/training_graph.h"
#include "sim/analytic.h"
#include "sim/arch_spec.h"
#include "sim/epoch.h"
#include "sim/kernel_latency.h"
#include "sim/occupancy.h"
#include "sim/plan_banks.h"
#include "sim/power/schedule_activity.h"
#include "sim/power/step_power.h"
#include "sim/sched_graph.h"
#include "sim/step_report.h"
#include "sim/step_sim.h"

namespace ttsim::dse {

/// Content-keyed caches. Values are immutable once inserted; a miss computes outside
/// the lock (two threads may compute the same entry; the first insert wins).
struct SimCache {
  std::mutex mutex;
  std::unordered_map<std::string, std::shared_ptr<const ModelSpec>> models;
  std::unordered_map<std::string, std::shared_ptr<const TaskGraph>> graphs;
  std::unordered_map<std::string, std::shared_ptr<const memplan::MemoryPlan>> plans;
  /// Schedulable graphs (dependencies + policy edges, latency classes) by graph and
  /// scheduling policy; each point copies one and re-prices it for its arch.
  std::unordered_map<std::string, std::shared_ptr<const SchedGraph>> sched_graphs;
  /// Per-task bank blocks of the padded graph on its plan's banks (power activity),
  /// keyed like `plans`.
  std::unordered_map<std::string, std::shared_ptr<const BankActivityShape>> bank_shapes;
  /// Machine descriptions (what the emitted build is) by model, flows and lanes.
  std::unordered_map<std::string, std::shared_ptr<const machine::Machine>> machines;

  template <typename T, typename F>
  std::shared_ptr<const T> get(std::unordered_map<std::string, std::shared_ptr<const T>>& map,
                               const std::string& key, F make) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      auto it = map.find(key);
      if (it != map.end()) return it->second;
    }
    auto value = std::make_shared<const T>(make());
    std::lock_guard<std::mutex> lock(mutex);
    return map.emplace(key, std::move(value)).first->second;
  }
};

SimContext make_sim_context(const DeviceSpec& device, const std::string& lengths_file,
                            const std::string& split) {
  SimContext c;
  c.device = device;
  if (!lengths_file.empty()) {
    c.train = dataset::load_dataset_lengths(lengths_file).split(split);
    c.has_lengths = true;
  }
  c.cache = std::make_shared<SimCache>();
  return c;
}

void calibrate_sim_context(const Calibration& c, const ArchSpec& base_arch,
                           const std::vector<double>& clocks_mhz, SimContext& ctx) {
  ArchSpec a = base_arch;
  for (double mhz : clocks_mhz) {
    a.clock_mhz = mhz;
    check_calibration_matches(c, a, ctx.device);
  }
  a = base_arch;
  if (!clocks_mhz.empty()) a.clock_mhz = clocks_mhz.front();
  apply_calibration(c, a, ctx.device);
  ctx.calibration = std::make_shared<const Calibration>(c);
  ctx.kernel_calibration = a.calibration;
}

namespace {

struct Resolved {
  std::shared_ptr<const ModelSpec> model;
  ArchSpec arch;
  std::string model_key;
};

Resolved resolve(const SimContext& ctx, const PointConfig& p) {
  Resolved r;
  r.model_key = p.model.dump();
  r.model = ctx.cache->get(ctx.cache->models, r.model_key,
                           [&] { return parse_model_spec(p.model, p.model_file); });
  r.arch = parse_arch_spec(p.arch, p.arch_file);
  // A design the emitted top cannot carry out is never simulated (the point is reported
  // not evaluated, with the ConfigError naming the arch field).
  machine::check_buildable(r.arch);
  // The kernel tree's limits (encoders, factors, arena sizes) before any graph is built:
  // a model far beyond them would otherwise take the memory of its whole task graph first.
  machine::hls_design(*r.model, r.arch, p.arch_file.empty() ? r.arch.name : p.arch_file, p.model_file);
  if (ctx.calibration) {
    // As `simulate --calibration` (apply_calibration): refuse another part or clock, then
    // apply the fit and run at the achievable clock when the reports missed timing.
    check_calibration_matches(*ctx.calibration, r.arch, ctx.device);
    r.arch.calibration = ctx.kernel_calibration;
    r.arch.clock_mhz = calibrated_clock_mhz(*ctx.calibration, r.arch.clock_mhz);
  }
  return r;
}

std::string flows_key(const ArchSpec& arch) {
  std::string k;
  for (const auto& [kind, flow] : arch.flow_by_kind) k += kind + "=" + to_string(flow) + ";";
  return k;
}

std::shared_ptr<const TaskGraph> graph_for(const SimContext& ctx, const Resolved& r,
                                           std::int64_t tokens) {
  const std::string key = r.model_key + "|" + flows_key(r.arch) + "|" + std::to_string(tokens);
  return ctx.cache->get(ctx.cache->graphs, key, [&] {
    return build_training_graph(*r.model, graph_options(r.arch, tokens));
  });
}

std::string plan_key(const Resolved& r) {
  std::string key = r.model_key + "|" + flows_key(r.arch) + "|" + to_string(r.arch.memory) +
                    "|fusion=" + (r.arch.fusion ? "1" : "0") + "|lanes=";
  for (const auto& u : r.arch.units) key += std::to_string(u.lanes) + ",";
  return key;
}

std::shared_ptr<const memplan::MemoryPlan> plan_for(const SimContext& ctx, const Resolved& r,
                                                    const TaskGraph& graph,
                                                    const std::vector<std::int64_t>& footprint) {
  const std::string key = plan_key(r);
  return ctx.cache->get(ctx.cache->plans, key, [&] {
    return plan_step_memory(graph, r.arch, ctx.device, footprint);
  });
}

/// The machine description of the design (machine/machine.h): instances, memories and
/// blocks of the emitted build; cached by model, flows and lane counts (all it depends on
/// for one device).
std::shared_ptr<const machine::Machine> machine_for(const SimContext& ctx, const Resolved& r,
                                                    const TaskGraph& graph) {
  std::string key = r.model_key + "|" + flows_key(r.arch) + "|lanes=";
  for (const auto& u : r.arch.units) key += std::to_string(u.lanes) + ",";
  return ctx.cache->get(ctx.cache->machines, key,
                        [&] { return machine::describe(*r.model, r.arch, ctx.device, graph); });
}

/// Hardware metrics of the emitted build: DSPs of its instances, BRAM36 / URAM288 of its
/// memories, on-chip bytes of its arrays.
void machine_metrics(const machine::Machine& m, Evaluation& e) {
  e.metrics[Metric::kOnchipBytes] = static_cast<double>(m.onchip_bytes());
  e.metrics[Metric::kBram36] = static_cast<double>(m.bram36());
  e.metrics[Metric::kUram288] = static_cast<double>(m.uram288());
  e.metrics[Metric::kDsp] = static_cast<double>(m.dsp());
}

/// Activity of the analytic schedule and the design's estimated LUTs.
struct PowerInputs {
  FpgaActivity activity;
  double luts = 0;
};

// Metrics common to both fidelities (memory plan, DSP, compression), and the inputs of
// the power metrics: the activity of `schedule` (the padded graph's) on the plan's banks.
PowerInputs static_metrics(const SimContext& ctx, const Resolved& r, const TaskGraph& graph,
                           const Schedule& schedule, Evaluation& e) {
  const auto fused = fused_buffers(graph, r.arch.fusion);
  const auto footprint = buffer_footprints(graph, fused);
  const auto plan = plan_for(ctx, r, graph, footprint);
  const auto shape = ctx.cache->get(ctx.cache->bank_shapes, plan_key(r), [&] {
    return bank_activity_shape(graph, bank_map_from_plan(*plan), footprint);
  });
  std::array<int, kUnitKinds> instances{};
  for (int k = 0; k < kUnitKinds; ++k) instances[k] = r.arch.units[k].count;
  const auto m = machine_for(ctx, r, graph);
  machine_metrics(*m, e);
  e.metrics[Metric::kCompression] =
      static_cast<double>(r.model->dense_params()) / static_cast<double>(r.model->compressed_params());
  // Power activity on the planner's banks of the buffers each task touches, as the
  // SystemC path (sim/power step_activity) computes it.
  const FpgaActivity activity =
      built_activity(schedule_activity(graph, schedule, instances, *shape, r.arch, ctx.device), *m, graph, schedule, r.arch);
  return {activity, activity.kilo_lut.units * 1000.0};
}

void step_metrics(const TaskGraph& graph, const Schedule& s, Evaluation& e) {
  const StageCycles st = stage_cycles(graph, s);
  e.metrics[Metric::kStepCycles] = static_cast<double>(s.makespan);
  e.metrics[Metric::kForwardCycles] = static_cast<double>(st.forward);
  e.metrics[Metric::kBackwardCycles] = static_cast<double>(st.backward);
  e.metrics[Metric::kUpdateCycles] = static_cast<double>(st.update);
}

Json breakdown_json(const TaskGraph& graph, const Schedule& s) {
  const StageCycles st = stage_cycles(graph, s);
  Json layers = Json::array();
  for (const auto& l : layer_breakdown(graph, s)) {
    layers.push_back({{"name", l.layer}, {"busy_cycles", l.busy_cycles},
                      {"start", l.start}, {"end", l.end}, {"macs", l.macs}});
  }
  return Json{{"stages", {{"forward", st.forward}, {"backward", st.backward}, {"update", st.update}}},
              {"step_cycles", s.makespan},
              {"layers", layers}};
}

Json configs_json(const SimContext& ctx, const Resolved& r) {
  return Json{{"model", r.model->to_json()}, {"arch", r.arch.to_json()},
              {"device", ctx.device.name}};
}

bool common_provides(const SimContext& ctx, Metric m) {
  switch (m) {
    case Metric::kEpochSeconds:
      return ctx.has_lengths;
    case Metric::kEpochEnergyJoules:
      return ctx.has_lengths && has_power_coefficients(ctx.device);
    case Metric::kPowerStaticWatts:
    case Metric::kPowerDynamicWatts:
    case Metric::kPowerTotalWatts:
      return has_power_coefficients(ctx.device);
    case Metric::kAccuracy:
    case Metric::kSlotF1:
      return false;  // from the rank-accuracy table (dse/sweep_evaluation.h)
    default:
      return true;
  }
}

}  // namespace

bool AnalyticSimEvaluator::provides(Metric m) const { return common_provides(ctx_, m); }
bool SystemcSimEvaluator::provides(Metric m) const { return common_provides(ctx_, m); }

Json AnalyticSimEvaluator::resolved_configs(const PointConfig& p) const {
  return configs_json(ctx_, resolve(ctx_, p));
}
Json SystemcSimEvaluator::resolved_configs(const PointConfig& p) const {
  return configs_json(ctx_, resolve(ctx_, p));
}

Evaluation AnalyticSimEvaluator::evaluate(const PointConfig& p, bool detailed) const {
  Evaluation e;
  e.fidelity = fidelity();
  const Resolved r = resolve(ctx_, p);
  const KernelLatencyModel latency(r.arch, ctx_.device);
  // The policy edges depend only on the graph and the scheduling options: build them
  // once per (graph, policy), then re-price a copy for this arch (same result as
  // make_sched_graph(graph, r.arch, latency)).
  auto step = [&](std::int64_t tokens, const TaskGraph& graph) {
    const std::string key = r.model_key + "|" + flows_key(r.arch) + "|" + std::to_string(tokens) +
                            "|" + to_string(r.arch.policy) + (r.arch.parallel_merges ? "|pm" : "|-") +
                            (r.arch.qkv_reschedule ? "|qkv" : "|-");
    KernelLatencyModel bound = latency;
    bound.bind_instances(graph);  // one static schedule per module instance
    const auto shape = ctx_.cache->get(ctx_.cache->sched_graphs, key,
                                       [&] { return make_sched_graph(graph, r.arch, bound); });
    SchedGraph sg = *shape;
    for (int k = 0; k < kUnitKinds; ++k) sg.unit_count[k] = r.arch.units[k].count;
    update_latencies(sg, graph, bound);
    return list_schedule(sg);
  };
  const auto graph = graph_for(ctx_, r, 0);
  const Schedule padded = step(0, *graph);
  step_metrics(*graph, padded, e);
  const PowerInputs power = static_metrics(ctx_, r, *graph, padded, e);
  if (ctx_.has_lengths) {
    // Same accounting as sim/epoch.h, with analytic step cycles.
    std::int64_t cycles = 0;
    if (r.arch.sequence_length == SequenceLength::kPadded) {
      cycles = ctx_.train.count * padded.makespan;
    } else {
      for (const auto& [len, samples] :
           dataset::processed_lengths(ctx_.train, r.model->seq_len).samples) {
        if (samples == 0) continue;
        const std::int64_t tokens = len * r.model->batch;
        const std::int64_t c =
            len == r.model->seq_len ? padded.makespan
                                    : step(tokens, *graph_for(ctx_, r, tokens)).makespan;
        cycles += samples * c;
      }
      // Mean step cycles over the epoch for effective-length designs.
      e.metrics[Metric::kStepCycles] = static_cast<double>(cycles) / static_cast<double>(ctx_.train.count);
    }
    e.metrics[Metric::kEpochSeconds] = static_cast<double>(cycles) / (r.arch.clock_mhz * 1e6);
  }
  set_power_metrics(ctx_.device, power.activity, power.luts, e.metrics);
  if (detailed) {
    e.breakdown = breakdown_json(*graph, padded);
    e.resolved = configs_json(ctx_, r);
  }
  return e;
}

Evaluation SystemcSimEvaluator::evaluate(const PointConfig& p, bool detailed) const {
  Evaluation e;
  e.fidelity = fidelity();
  const Resolved r = resolve(ctx_, p);
  // The same evaluation as `ttsim simulate` (sim/design_eval.h).
  const auto ev = evaluate_design(*r.model, r.arch, ctx_.device, ctx_.has_lengths ? &ctx_.train : nullptr);
  const StepResult& s = ev->step;
  step_metrics(s.graph, s.run.schedule, e);
  machine_metrics(ev->machine, e);
  e.metrics[Metric::kCompression] =
      static_cast<double>(r.model->dense_params()) / static_cast<double>(r.model->compressed_params());
  if (ev->epoch) {
    e.metrics[Metric::kEpochSeconds] = ev->epoch->seconds;
    if (r.arch.sequence_length == SequenceLength::kEffective) {
      e.metrics[Metric::kStepCycles] =
          static_cast<double>(ev->epoch->cycles) / static_cast<double>(ev->epoch->samples);
    }
  }
  const FpgaActivity activity =
      built_activity(step_activity(s, r.arch, ctx_.device), ev->machine, s.graph, s.run.schedule, r.arch);
  set_power_metrics(ctx_.device, activity, activity.kilo_lut.units * 1000.0, e.metrics);
  if (detailed) {
    e.breakdown = breakdown_json(s.graph, s.run.schedule);
    e.resolved = configs_json(ctx_, r);
  }
  return e;
}

}  // namespace ttsim::dse
