// Speed of the simulator: one SystemC training step (6 encoders), one ATIS epoch over
// the length histogram, and the analytic evaluators the DSE calls per design point.
// Run from the workspace (or via `bazel run`) so configs/ resolves.

#include <benchmark/benchmark.h>

#include "bench/presets.h"

#include "models/dataset/dataset_lengths.h"
#include "models/model_spec.h"
#include "sim/analytic.h"
#include "hw/arch_spec.h"
#include "hw/device_spec.h"
#include "sim/epoch.h"
#include "hw/kernel_latency.h"
#include "sim/sc_engine.h"
#include "sim/sched_graph.h"
#include "sim/step_sim.h"

namespace ttsim {
namespace {

using bench::paper;
using bench::preset;
using bench::u50;

// Whole step: task graph, latencies, machine description, SystemC run, occupancy.
void BM_Step(benchmark::State& state) {
  const ModelSpec m = preset(static_cast<int>(state.range(0)));
  std::uint64_t events = 0;
  for (auto _ : state) {
    StepResult r = simulate_step(m, paper(), u50());
    events += r.run.schedule.events;
    benchmark::DoNotOptimize(r.run.schedule.makespan);
  }
  state.counters["events/s"] = benchmark::Counter(static_cast<double>(events), benchmark::Counter::kIsRate);
  state.counters["steps/s"] = benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_Step)->Arg(2)->Arg(6)->Unit(benchmark::kMillisecond);

// A step on already described hardware (machine reused): graph, latencies, SystemC
// run, occupancy — what each further length of an epoch or each schedule-only DSE
// point costs.
void BM_StepOnPlannedHardware(benchmark::State& state) {
  const ModelSpec m = preset(static_cast<int>(state.range(0)));
  const StepResult hw = simulate_step(m, paper(), u50());
  std::uint64_t events = 0;
  for (auto _ : state) {
    StepResult r = simulate_step(m, paper(), u50(), StepOptions::on_hardware(hw, 0));
    events += r.run.schedule.events;
    benchmark::DoNotOptimize(r.run.schedule.makespan);
  }
  state.counters["events/s"] = benchmark::Counter(static_cast<double>(events), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_StepOnPlannedHardware)->Arg(6)->Unit(benchmark::kMillisecond);

// SystemC run alone on a prepared graph (elaboration of a fresh context included).
void BM_SystemCRun(benchmark::State& state) {
  const ModelSpec m = preset(static_cast<int>(state.range(0)));
  const StepResult r = simulate_step(m, paper(), u50());
  const auto traffic = task_bank_traffic(r.graph(), r.banks, r.footprint);
  std::uint64_t events = 0;
  for (auto _ : state) {
    EngineResult e = run_systemc(r.sched, r.banks, traffic, EngineOptions{});
    events += e.schedule.events;
    benchmark::DoNotOptimize(e.schedule.makespan);
  }
  state.counters["events/s"] = benchmark::Counter(static_cast<double>(events), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_SystemCRun)->Arg(6)->Unit(benchmark::kMillisecond);

// One ATIS train epoch over the length histogram with effective lengths (one step per
// distinct length) — the expensive case; padded designs need one step.
void BM_EpochEffective(benchmark::State& state) {
  const ModelSpec m = preset(static_cast<int>(state.range(0)));
  ArchSpec a = paper();
  a.sequence_length = SequenceLength::kEffective;
  const auto lengths = dataset::load_dataset_lengths("configs/datasets/atis_lengths.json");
  const auto& train = lengths.split("train");
  for (auto _ : state) {
    const StepResult padded = simulate_step(m, a, u50());
    EpochResult e = simulate_epoch(m, a, u50(), train, padded);
    benchmark::DoNotOptimize(e.cycles);
  }
  state.counters["samples"] = static_cast<double>(train.count);
}
BENCHMARK(BM_EpochEffective)->Arg(2)->Arg(6)->Unit(benchmark::kMillisecond);

// DSE inner loop: re-price a prepared graph for a new arch point, then evaluate.
void BM_AnalyticPoint(benchmark::State& state) {
  const ModelSpec m = preset(static_cast<int>(state.range(0)));
  const bool finite = state.range(1) != 0;
  const TaskGraph g = build_training_graph(m, graph_options(paper(), 0));
  ArchSpec a = paper();
  SchedGraph sg = make_sched_graph(g, a, KernelLatencyModel(a, u50()));
  int lanes = 16;
  for (auto _ : state) {
    a.unit(UnitKind::kContraction).lanes = lanes;
    lanes = lanes == 128 ? 16 : lanes * 2;
    update_latencies(sg, g, KernelLatencyModel(a, u50()));
    const std::int64_t c = finite ? list_schedule(sg).makespan : critical_path_cycles(sg);
    benchmark::DoNotOptimize(c);
  }
  state.counters["points/s"] = benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
  state.counters["tasks"] = static_cast<double>(g.tasks.size());
}
BENCHMARK(BM_AnalyticPoint)->Args({2, 0})->Args({2, 1})->Args({6, 0})->Args({6, 1})->Unit(benchmark::kMicrosecond);

// Evaluation alone on fixed latencies (the graph and prices reused across points).
void BM_ListScheduleOnly(benchmark::State& state) {
  const ModelSpec m = preset(static_cast<int>(state.range(0)));
  const TaskGraph g = build_training_graph(m, graph_options(paper(), 0));
  const SchedGraph sg = make_sched_graph(g, paper(), KernelLatencyModel(paper(), u50()));
  for (auto _ : state) benchmark::DoNotOptimize(list_schedule(sg).makespan);
  state.counters["points/s"] = benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_ListScheduleOnly)->Arg(2)->Arg(6)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace ttsim

// Our own main: libsystemc.so defines main(), which would win over the one in
// libbenchmark_main.a.
BENCHMARK_MAIN();
