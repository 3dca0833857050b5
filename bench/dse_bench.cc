// Explorer evaluation speed on the shipped ATIS/U50 sweep (configs/sweeps/atis_u50.json):
//   BM_AnalyticSweepPass: one full pass over the sweep's grid with the analytic evaluator
//     (evaluate_design at analytic fidelity: graph, machine description, list schedule,
//     epoch, power per point); items = points.
//   BM_PerLayerRankPoints: the per-point evaluation (resolve, analytic evaluation, verdict)
//     of 4,096 consecutive points of configs/sweeps/atis_u50_million.json (per-layer TT
//     ranks) from id 0 (2 encoders) and from id 600,000 (4 encoders), without the
//     evaluation log; items = points.
//   BM_ResolvePoint: the configs of those points (resolve_point: base documents with the
//     axis values written); items = points.
//   BM_RowText: a point's results.csv and results.jsonl lines (dse/run/result_stream.h) from its
//     resolved configs and evaluation; items = points.
//   BM_SystemcSixEncoderPoint: SystemC evaluation (step + epoch) of the sweep's
//     6-encoder points, each once; items = points.  Target >= 50 points/s/core.
// Single-threaded (one core): evaluations are called directly, not through oneTBB.

#include <benchmark/benchmark.h>

#include "dse/evaluate/resolve.h"
#include "dse/run/result_stream.h"
#include "dse/run_setup.h"
#include "dse/search/search.h"

namespace ttsim::dse {
namespace {

const char* kSweep = "configs/sweeps/atis_u50.json";

void BM_AnalyticSweepPass(benchmark::State& state) {
  std::size_t points = 0;
  for (auto _ : state) {
    state.PauseTiming();
    auto setup = make_run_setup(kSweep);  // fresh caches every pass
    const auto ids = grid_points(setup->sweep.space);
    state.ResumeTiming();
    for (PointId id : ids) {
      Evaluation e = setup->eval->evaluate(id, Fidelity::kAnalytic, false);
      benchmark::DoNotOptimize(e);
    }
    points += ids.size();
    state.PauseTiming();
    setup.reset();
    state.ResumeTiming();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(points));
}
BENCHMARK(BM_AnalyticSweepPass)->Unit(benchmark::kMillisecond);

void BM_PerLayerRankPoints(benchmark::State& state) {
  auto setup = make_run_setup("configs/sweeps/atis_u50_million.json");
  const PointId first = static_cast<PointId>(state.range(0));
  std::size_t points = 0;
  for (auto _ : state) {
    for (PointId id = first; id < first + 4096; ++id) {
      Evaluation e = setup->eval->evaluate(id, Fidelity::kAnalytic, false);
      benchmark::DoNotOptimize(PointSummary::of(*setup->eval, e));
    }
    points += 4096;
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(points));
}
BENCHMARK(BM_PerLayerRankPoints)->Arg(0)->Arg(600000)->Unit(benchmark::kMillisecond);

void BM_ResolvePoint(benchmark::State& state) {
  auto setup = make_run_setup("configs/sweeps/atis_u50_million.json");
  std::size_t points = 0;
  for (auto _ : state) {
    for (PointId id = 0; id < 4096; ++id) benchmark::DoNotOptimize(resolve_point(setup->sweep, id));
    points += 4096;
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(points));
}
BENCHMARK(BM_ResolvePoint)->Unit(benchmark::kMillisecond);

void BM_RowText(benchmark::State& state) {
  auto setup = make_run_setup("configs/sweeps/atis_u50_million.json");
  std::vector<std::pair<PointConfig, Evaluation>> points;
  for (PointId id = 0; id < 256; ++id) {
    std::optional<PointConfig> p;
    Evaluation e = setup->eval->evaluate(id, Fidelity::kAnalytic, false, &p);
    points.emplace_back(std::move(*p), std::move(e));
  }
  std::size_t rows = 0;
  for (auto _ : state) {
    state.PauseTiming();
    auto copies = points;  // the runner moves each point's configs into its row
    state.ResumeTiming();
    for (auto& [p, e] : copies) {
      PointRecord rec;
      rec.analytic = std::move(e);
      const PointId id = p.id;
      benchmark::DoNotOptimize(render_row(*setup->eval, make_row(*setup->eval, id, std::move(p), std::move(rec))));
    }
    rows += copies.size();
    state.PauseTiming();
    copies.clear();
    state.ResumeTiming();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(rows));
}
BENCHMARK(BM_RowText)->Unit(benchmark::kMillisecond);

void BM_SystemcSixEncoderPoint(benchmark::State& state) {
  auto setup = make_run_setup(kSweep);
  std::vector<PointId> six;
  const auto& axes = setup->sweep.space.axes();
  for (PointId id : grid_points(setup->sweep.space)) {
    for (std::size_t a = 0; a < axes.size(); ++a) {
      const Json* v = setup->sweep.space.value(id, a);
      if (axes[a].name == "encoders" && v && *v == 6) six.push_back(id);
    }
  }
  // Each point once: SystemC evaluations are cached by the canonical design
  // (sim/design_eval.h), so a second visit would time a lookup.
  if (six.size() < static_cast<std::size_t>(state.max_iterations)) {
    state.SkipWithError("fewer six-encoder points than iterations");
    return;
  }
  std::size_t i = 0;
  for (auto _ : state) {
    Evaluation e = setup->eval->evaluate(six[i++], Fidelity::kSystemC, false);
    benchmark::DoNotOptimize(e);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_SystemcSixEncoderPoint)->Iterations(40)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace ttsim::dse

// Our own main: libsystemc.so defines main(), which would win over libbenchmark_main's.
BENCHMARK_MAIN();
