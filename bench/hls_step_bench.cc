// Speed of one HLS-kernel training step (C simulation, natively compiled) on the
// 2-encoder ATIS preset: what `ttsim train` pays per sample. Run from the repository
// root: bazel run //bench:hls_step_bench (reads configs/models/atis_2enc.json).

#include <benchmark/benchmark.h>

#include <vector>

#include "hls/host/hls_model.h"
#include "models/model_spec.h"

namespace {

void BM_HlsTrainStepAtis2Enc(benchmark::State& state) {
  const ttsim::ModelSpec spec = ttsim::load_model_spec("configs/models/atis_2enc.json");
  ttsim::HlsModel model(spec);
  const int K = static_cast<int>(state.range(0));
  std::vector<int> tokens(K), tags(K);
  for (int i = 0; i < K; ++i) {
    tokens[i] = (i * 97 + 5) % 2500;
    tags[i] = i % 127;
  }
  for (auto _ : state) {
    const ttsim::HlsLosses l = model.train_step(tokens, 3, tags, 4e-3f);
    benchmark::DoNotOptimize(l);
  }
  state.SetItemsProcessed(state.iterations());
}
// K = 12 is a typical ATIS utterance, 32 the padded preset length.
BENCHMARK(BM_HlsTrainStepAtis2Enc)->Arg(12)->Arg(32)->Unit(benchmark::kMillisecond);

}  // namespace
