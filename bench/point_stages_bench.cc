// What one analytic design point costs, stage by stage (2 and 6 encoders, the u50_paper
// arch): model parse, task graph, machine description, instance binding and schedule
// graph, list schedule, bank map and activity, occupancy — each from scratch, as for the
// first point of a structure — and BM_ResimulatedPoint: evaluate_design of a point whose
// structure the thread has evaluated before (other TT ranks per layer: the graph reshaped
// and the step re-simulated in place, sim/design_eval.h), as for every later point of a
// sweep, and BM_RepricedPoint: one whose ranks are the thread's last (other lanes: only
// prices change, reprice_step).
// Run from the workspace (or via `bazel run`) so configs/ resolves.

#include <benchmark/benchmark.h>

#include "bench/presets.h"

#include "core/json_view.h"
#include "machine/machine.h"
#include "models/model_spec.h"
#include "models/training_graph.h"
#include "sim/analytic.h"
#include "hw/arch_spec.h"
#include "sim/design_eval.h"
#include "hw/device_spec.h"
#include "hw/kernel_latency.h"
#include "sim/machine_banks.h"
#include "sim/occupancy.h"
#include "sim/step_power.h"
#include "sim/sched_graph.h"
#include "sim/step_sim.h"

namespace ttsim {
namespace {

using bench::paper;
using bench::preset_file;
using bench::u50;

void BM_ParseModel(benchmark::State& state) {
  const Json doc = load_json_file(preset_file(state.range(0)));
  for (auto _ : state) benchmark::DoNotOptimize(parse_model_spec(doc, "model.json").linears.size());
}
BENCHMARK(BM_ParseModel)->Arg(2)->Arg(6)->Unit(benchmark::kMicrosecond);

void BM_BuildGraph(benchmark::State& state) {
  const ModelSpec m = load_model_spec(preset_file(state.range(0)));
  for (auto _ : state) benchmark::DoNotOptimize(build_training_graph(m, graph_options(paper(), 0)).tasks.size());
}
BENCHMARK(BM_BuildGraph)->Arg(2)->Arg(6)->Unit(benchmark::kMicrosecond);

void BM_Describe(benchmark::State& state) {
  const ModelSpec m = load_model_spec(preset_file(state.range(0)));
  const TaskGraph g = build_training_graph(m, graph_options(paper(), 0));
  for (auto _ : state) benchmark::DoNotOptimize(machine::describe(m, paper(), u50(), g).bram36());
}
BENCHMARK(BM_Describe)->Arg(2)->Arg(6)->Unit(benchmark::kMicrosecond);

void BM_BindAndSchedGraph(benchmark::State& state) {
  const ModelSpec m = load_model_spec(preset_file(state.range(0)));
  const TaskGraph g = build_training_graph(m, graph_options(paper(), 0));
  for (auto _ : state) {
    KernelLatencyModel lat(paper(), u50());
    lat.bind_instances(g);
    benchmark::DoNotOptimize(make_sched_graph(g, paper(), lat).tasks.size());
  }
}
BENCHMARK(BM_BindAndSchedGraph)->Arg(2)->Arg(6)->Unit(benchmark::kMicrosecond);

void BM_ActivityAndOccupancy(benchmark::State& state) {
  const ModelSpec m = load_model_spec(preset_file(state.range(0)));
  EngineOptions o;
  o.analytic = true;
  const StepResult r = simulate_step(m, paper(), u50(), StepOptions::with_engine(o));
  for (auto _ : state) {
    benchmark::DoNotOptimize(machine_bank_map(*r.machine));
    benchmark::DoNotOptimize(step_activity(r, paper(), u50()));
    benchmark::DoNotOptimize(compute_occupancy(r.graph(), r.run.schedule, r.footprint));
  }
}
BENCHMARK(BM_ActivityAndOccupancy)->Arg(2)->Arg(6)->Unit(benchmark::kMicrosecond);

void BM_HlsDesign(benchmark::State& state) {
  const ModelSpec m = load_model_spec(preset_file(state.range(0)));
  for (auto _ : state) benchmark::DoNotOptimize(machine::hls_design(m, paper(), "arch.json").layout.param_words);
}
BENCHMARK(BM_HlsDesign)->Arg(2)->Arg(6)->Unit(benchmark::kMicrosecond);

void BM_ResimulatedPoint(benchmark::State& state) {
  const ModelSpec base = load_model_spec(preset_file(state.range(0)));
  // Eight rank assignments of the same structure, each layer's bonds at its own rank.
  std::vector<ModelSpec> models;
  for (int v = 0; v < 8; ++v) {
    ModelSpec m = base;
    int i = 0;
    for (auto& l : m.linears) {
      if (l.format != WeightFormat::kTT) continue;
      for (std::size_t k = 1; k + 1 < l.tt.ranks.size(); ++k) l.tt.ranks[k] = 4 + 4 * ((v + i) % 8);
      ++i;
    }
    models.push_back(m);
  }
  std::size_t n = 0;
  for (auto _ : state) {
    const auto e = evaluate_design(models[n++ % models.size()], paper(), u50(), nullptr, Fidelity::kAnalytic);
    benchmark::DoNotOptimize(e->step.run.schedule.makespan);
  }
}
BENCHMARK(BM_ResimulatedPoint)->Arg(2)->Arg(6)->Unit(benchmark::kMicrosecond);

void BM_RepricedPoint(benchmark::State& state) {
  // One model under the five contraction lane counts of the shipped sweep in turn: after the
  // first, only prices change (reprice_step: latencies, the machine's instances, partition and
  // storage, bank map, schedule, activity; the graph and arrays kept).
  const ModelSpec m = load_model_spec(preset_file(state.range(0)));
  std::vector<ArchSpec> archs;
  for (int lanes : {1, 4, 16, 32, 64}) {
    ArchSpec a = paper();
    a.unit(UnitKind::kContraction).lanes = lanes;
    archs.push_back(a);
  }
  std::size_t n = 0;
  for (auto _ : state) {
    const auto e = evaluate_design(m, archs[n++ % archs.size()], u50(), nullptr, Fidelity::kAnalytic);
    benchmark::DoNotOptimize(e->step.run.schedule.makespan);
  }
}
BENCHMARK(BM_RepricedPoint)->Arg(2)->Arg(6)->Unit(benchmark::kMicrosecond);

void BM_AnalyticStep(benchmark::State& state) {
  const ModelSpec m = load_model_spec(preset_file(state.range(0)));
  EngineOptions o;
  o.analytic = true;
  for (auto _ : state) benchmark::DoNotOptimize(simulate_step(m, paper(), u50(), StepOptions::with_engine(o)).run.schedule.makespan);
}
BENCHMARK(BM_AnalyticStep)->Arg(2)->Arg(6)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace ttsim

// libsystemc.so defines main(), which would win over the one in libbenchmark_main.a.
BENCHMARK_MAIN();
