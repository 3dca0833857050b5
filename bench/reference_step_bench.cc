// Wall time of one full reference training step (forward, backward, SGD) on the
// atis_2enc preset: the tensorized model (TT layers via BTT, TTM embedding) and its
// dense baseline (every weight dense). Target: the dense step well under a second.
// Run: bazel run -c opt //bench:reference_step_bench (from the workspace root).

#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "models/reference/reference_model.h"

namespace {

void run_step(benchmark::State& state, bool dense, ttsim::Flow flow) {
  ttsim::ModelSpec spec = ttsim::load_model_spec("configs/models/atis_2enc.json");
  if (dense) spec = ttsim::reference::densified(spec);
  ttsim::reference::ReferenceModel model(spec, {1, flow});
  std::vector<int> tokens, slots;
  for (int t = 0; t < spec.seq_len; ++t) {
    tokens.push_back((t * 977 + 13) % static_cast<int>(spec.vocab));
    slots.push_back(t % static_cast<int>(spec.slot_tags));
  }
  for (auto _ : state) {
    auto r = model.train_step(tokens, 3, slots, 4e-3);
    benchmark::DoNotOptimize(r.loss);
  }
  state.counters["tokens"] = static_cast<double>(tokens.size());
}

void BM_ReferenceStepAtis2EncTtBtt(benchmark::State& s) { run_step(s, false, ttsim::Flow::kBTT); }
void BM_ReferenceStepAtis2EncTtSequential(benchmark::State& s) { run_step(s, false, ttsim::Flow::kTT); }
void BM_ReferenceStepAtis2EncDense(benchmark::State& s) { run_step(s, true, ttsim::Flow::kMM); }

BENCHMARK(BM_ReferenceStepAtis2EncTtBtt)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ReferenceStepAtis2EncTtSequential)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ReferenceStepAtis2EncDense)->Unit(benchmark::kMillisecond);

}  // namespace
