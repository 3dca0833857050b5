// C-simulation testbench of ttsim_train_step (Vitis HLS csim_design / cosim_design):
// loads deterministic parameters, runs training steps on one fixed sample and checks
// that the loss is finite and falls and that the parameters read back changed.
// Returns 0 on success (the Vitis convention for a passing testbench).

#include <cmath>
#include <cstdio>
#include <vector>

#include "hls/include/design_config.h"
#include "hls/kernels/top.h"

int main() {
  using namespace ttsim_cfg;
  // Deterministic small-amplitude parameters (LCG), LayerNorm gains are not special-cased:
  // the test only needs a well-defined, trainable starting point.
  std::vector<float> params(kParamWords), back(kParamWords);
  unsigned s = 12345u;
  for (float& p : params) {
    s = s * 1664525u + 1013904223u;
    p = (static_cast<float>(s >> 8) / 16777216.0f - 0.5f) * 0.2f;
  }
  int tokens[kSeqLen] = {0}, tags[kSeqLen] = {0};
  // Ten tokens, or the whole sequence of a shorter model; the intent label within the
  // model's intents.
  const int K = kSeqLen < 10 ? kSeqLen : 10;
  const int intent = 3 % kIntents;
  for (int i = 0; i < K; ++i) {
    tokens[i] = (i * 37 + 11) % kVocab;
    tags[i] = (i * 5) % kSlotTags;
  }
  float losses[3] = {0, 0, 0};
  ttsim_train_step(kTtsimLoadParams, 0, tokens, tags, 0, 0.0f, 1.0f, params.data(), losses);
  if (losses[2] != 1.0f) {
    std::printf("csim_tb: load failed\n");
    return 1;
  }
  float first = 0, last = 0;
  for (int step = 0; step < 3; ++step) {
    ttsim_train_step(kTtsimTrainStep, K, tokens, tags, intent, 4e-3f, 1.0f, params.data(), losses);
    const float total = losses[0] + losses[1];
    std::printf("csim_tb: step %d loss %.6f (intent %.6f slot %.6f)\n", step, total, losses[0],
                losses[1]);
    if (losses[2] != 1.0f || !std::isfinite(total)) return 1;
    if (step == 0) first = total;
    last = total;
  }
  ttsim_train_step(kTtsimStoreParams, 0, tokens, tags, 0, 0.0f, 1.0f, back.data(), losses);
  if (!(last < first) || back == params) {
    std::printf("csim_tb: FAIL (loss %.6f -> %.6f)\n", first, last);
    return 1;
  }
  std::printf("csim_tb: PASS\n");
  return 0;
}
