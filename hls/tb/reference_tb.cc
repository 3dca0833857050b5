// C-simulation testbench of ttsim_train_step against the Eigen reference: reads the
// reference step file that `ttsim emit` writes beside the build (reference_step.bin,
// hls/host/reference_step.h: parameters, one sample, the reference's losses and
// gradients), loads the parameters, runs one forward-backward (kTtsimGradStep), reads the
// gradients back (kTtsimStoreGrads) and requires both losses within 1e-5 and every
// parameter tensor's gradient within 1e-4 (relative L2; the denominator has a floor of
// 1e-6 because some gradients are zero in exact arithmetic and only rounding noise
// remains). The lanes go through the bank networks synthesis builds (csim_direct_lanes off),
// not C simulation's direct copies. Returns 0 when they agree (the Vitis convention for a
// passing testbench).

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "hls/include/banked.h"
#include "hls/include/design_config.h"
#include "hls/kernels/top.h"

namespace {

struct Reader {
  std::FILE* f;
  bool ok = true;
  template <typename T>
  T one() {
    T v{};
    ok = ok && std::fread(&v, sizeof(T), 1, f) == 1;
    return v;
  }
  template <typename T>
  std::vector<T> many(std::int64_t n) {
    std::vector<T> v(n > 0 ? static_cast<std::size_t>(n) : 0);
    if (n > 0) ok = ok && std::fread(v.data(), sizeof(T), v.size(), f) == v.size();
    return v;
  }
};

}  // namespace

int main(int argc, char** argv) {
  using namespace ttsim_cfg;
#if !defined(__SYNTHESIS__)
  ttsim_hls::csim_direct_lanes() = false;  // the lane networks the kernels synthesize to
#endif
  const char* path = argc > 1 ? argv[1] : "reference_step.bin";
  std::FILE* f = std::fopen(path, "rb");
  if (!f) {
    std::printf("reference_tb: %s: cannot open (written by ttsim emit)\n", path);
    return 1;
  }
  Reader r{f};
  char magic[4] = {0, 0, 0, 0};
  r.ok = std::fread(magic, 1, 4, f) == 4 && std::memcmp(magic, "TTRS", 4) == 0;
  const std::int32_t version = r.one<std::int32_t>(), K = r.one<std::int32_t>(), intent = r.one<std::int32_t>();
  const std::int32_t words = r.one<std::int32_t>(), tensors = r.one<std::int32_t>();
  const float slot_scale = r.one<float>();
  if (!r.ok || version != 1 || K < 1 || K > kSeqLen || words != kParamWords || tensors < 1) {
    std::printf("reference_tb: %s: expected a version-1 reference step of this design (K <= %d, %d parameter "
                "words), found version %d, K %d, %d words\n",
                path, kSeqLen, kParamWords, version, K, words);
    return 1;
  }
  int tokens[kSeqLen] = {0}, tags[kSeqLen] = {0};
  const std::vector<std::int32_t> tok = r.many<std::int32_t>(K), tag = r.many<std::int32_t>(K);
  for (int i = 0; i < K && r.ok; ++i) {
    tokens[i] = tok[i];
    tags[i] = tag[i];
  }
  const std::vector<std::int32_t> spans = r.many<std::int32_t>(2 * static_cast<std::int64_t>(tensors));
  std::vector<float> params = r.many<float>(words);
  const double want_intent = r.one<double>(), want_slot = r.one<double>();
  const std::vector<float> want = r.many<float>(words);
  std::fclose(f);
  if (!r.ok) {
    std::printf("reference_tb: %s: file ends early\n", path);
    return 1;
  }

  float losses[3] = {0, 0, 0};
  ttsim_train_step(kTtsimLoadParams, 0, tokens, tags, 0, 0.0f, 1.0f, params.data(), losses);
  ttsim_train_step(kTtsimGradStep, K, tokens, tags, intent, 0.0f, slot_scale, params.data(), losses);
  if (losses[2] != 1.0f) {
    std::printf("reference_tb: the gradient step refused its arguments\n");
    return 1;
  }
  const float got_intent = losses[0], got_slot = losses[1];
  std::vector<float> got(kParamWords);
  ttsim_train_step(kTtsimStoreGrads, 0, tokens, tags, 0, 0.0f, 1.0f, got.data(), losses);

  bool pass = std::fabs(got_intent - want_intent) <= 1e-5 * std::fabs(want_intent) &&
              std::fabs(got_slot - want_slot) <= 1e-5 * std::fabs(want_slot);
  std::printf("reference_tb: loss intent %.7f (reference %.7f), slot %.7f (reference %.7f)\n", got_intent,
              want_intent, got_slot, want_slot);
  double worst = 0;
  int worst_tensor = -1;
  for (int t = 0; t < tensors; ++t) {
    const std::int32_t off = spans[2 * t], n = spans[2 * t + 1];
    if (off < 0 || n < 0 || off + n > words) {
      std::printf("reference_tb: tensor %d spans words %d..%d outside the %d parameter words\n", t, off, off + n, words);
      return 1;
    }
    double num = 0, den = 1e-6;
    for (std::int32_t i = off; i < off + n; ++i) {
      num += (static_cast<double>(got[i]) - want[i]) * (static_cast<double>(got[i]) - want[i]);
      den += static_cast<double>(want[i]) * want[i];
    }
    const double rel = std::sqrt(num / den);
    if (rel > worst) {
      worst = rel;
      worst_tensor = t;
    }
  }
  pass = pass && worst <= 1e-4;
  std::printf("reference_tb: %d gradient tensors, largest relative error %.3g (tensor %d at word %d)\n", tensors,
              worst, worst_tensor, worst_tensor >= 0 ? spans[2 * worst_tensor] : -1);
  std::printf("reference_tb: %s\n", pass ? "PASS" : "FAIL");
  return pass ? 0 : 1;
}
