// C-simulation testbench of ttsim_train_step against the Eigen reference: reads the
// reference step file that `ttsim emit` writes beside the build (reference_step.bin,
// hls/host/reference_step.h: parameters, one sample, the reference's losses and
// gradients), loads the parameters and
//  1. runs one gradient step (kTtsimGradStep: each update group's gradients written to
//     param_io where the train step would update) and requires both losses within 1e-5,
//     every gradient word finite and every parameter tensor's gradient within 1e-4
//     (relative L2; the denominator has a floor of 1e-6 because some gradients are zero in
//     exact arithmetic and only rounding noise remains);
//  2. reloads the parameters, runs one train step (kTtsimTrainStep, SGD fused into the
//     backward pass, lr kTbLr) and requires the step to have moved the parameters, every
//     updated parameter tensor within 1e-6 (relative L2) of p − lr·g with the step's own
//     gradients g of 1. (the fused update is exact), and within 1e-4 of the reference's
//     SGD, p − lr·g with the reference's gradients (the update adds nothing to the
//     gradients' error: a zero-initialised bias updates to −lr·g, whose error relative to
//     itself is its gradient's, so 1e-6 against the reference would test the gradients at
//     a hundredth of their tolerance).
// The lanes go through the bank networks synthesis builds (csim_direct_lanes off),
// not C simulation's direct copies. The file must be exactly what its header gives (no
// trailing bytes), its tensors must lie in the parameter words in order (between two at
// most the update groups' alignment padding), and its parameters, losses and gradients
// must be finite; else the testbench fails saying which. Returns 0 when they agree (the
// Vitis convention for a passing testbench).

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "hls/include/banked.h"
#include "hls/include/design_config.h"
#include "hls/kernels/model_step.h"
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
  if (std::fread(magic, 1, 4, f) != 4 || std::memcmp(magic, "TTRS", 4) != 0) {
    std::printf("reference_tb: %s: expected a reference step file (magic \"TTRS\"), found other bytes\n", path);
    std::fclose(f);
    return 1;
  }
  const std::int32_t version = r.one<std::int32_t>(), K = r.one<std::int32_t>(), intent = r.one<std::int32_t>();
  const std::int32_t words = r.one<std::int32_t>(), tensors = r.one<std::int32_t>();
  const float slot_scale = r.one<float>();
  const char* bad = !r.ok                             ? "a header cut short"
                    : version != 1                    ? "another version"
                    : K < 1 || K > kSeqLen            ? "a token count outside 1..kSeqLen"
                    : intent < 0 || intent >= kIntents ? "an intent label outside 0..kIntents-1"
                    : words != kParamWords            ? "another parameter count"
                    : tensors < 1 || tensors > words  ? "a tensor count outside 1..words"
                    : !std::isfinite(slot_scale)      ? "a non-finite slot loss scale"
                                                      : nullptr;
  if (bad) {
    std::printf("reference_tb: %s: expected a version-1 reference step of this design (K 1..%d, intent 0..%d, "
                "%d parameter words), found %s (version %d, K %d, intent %d, %d words, %d tensors)\n",
                path, kSeqLen, kIntents - 1, kParamWords, bad, version, K, intent, words, tensors);
    std::fclose(f);
    return 1;
  }
  int tokens[kSeqLen] = {0}, tags[kSeqLen] = {0};
  const std::vector<std::int32_t> tok = r.many<std::int32_t>(K), tag = r.many<std::int32_t>(K);
  for (int i = 0; i < K && r.ok; ++i) {
    if (tok[i] < 0 || tok[i] >= kVocab || tag[i] < -1 || tag[i] >= kSlotTags) {
      std::printf("reference_tb: %s: token %d is (%d, tag %d), expected a word id 0..%d and a tag -1..%d\n", path, i,
                  tok[i], tag[i], kVocab - 1, kSlotTags - 1);
      std::fclose(f);
      return 1;
    }
    tokens[i] = tok[i];
    tags[i] = tag[i];
  }
  const std::vector<std::int32_t> spans = r.many<std::int32_t>(2 * static_cast<std::int64_t>(tensors));
  std::vector<float> params = r.many<float>(words);
  const double want_intent = r.one<double>(), want_slot = r.one<double>();
  const std::vector<float> want = r.many<float>(words);
  const bool trailing = r.ok && std::fgetc(f) != EOF;
  std::fclose(f);
  if (!r.ok || trailing) {
    std::printf("reference_tb: %s: expected exactly the words its header gives, found %s\n", path,
                trailing ? "bytes after the reference gradients" : "the file ending early");
    return 1;
  }
  // The tensors must lie in the parameter words in order, each at least one word, with no
  // more than the update groups' alignment padding (model_step.h kParamGroupAlign) between
  // two of them.
  std::int64_t next = 0;
  for (int t = 0; t < tensors; ++t) {
    const std::int64_t off = spans[2 * t], n = spans[2 * t + 1];
    if (off < next || off - next >= ttsim_hls::kParamGroupAlign || n < 1 || off + n > words) {
      std::printf("reference_tb: %s: tensor %d spans words %lld..%lld, expected it to start within the %d words "
                  "of alignment padding after word %lld with at least one word within the %d parameter words\n",
                  path, t, static_cast<long long>(off), static_cast<long long>(off + n), ttsim_hls::kParamGroupAlign,
                  static_cast<long long>(next), words);
      return 1;
    }
    next = off + n;
  }
  if (next != words) {
    std::printf("reference_tb: %s: the tensors cover words 0..%lld, expected all %d parameter words\n", path,
                static_cast<long long>(next), words);
    return 1;
  }
  for (std::int32_t i = 0; i < words; ++i) {
    if (!std::isfinite(params[i]) || !std::isfinite(want[i])) {
      std::printf("reference_tb: %s: word %d of the %s is not finite\n", path, i,
                  std::isfinite(params[i]) ? "reference gradients" : "parameters");
      return 1;
    }
  }
  if (!std::isfinite(want_intent) || !std::isfinite(want_slot)) {
    std::printf("reference_tb: %s: a reference loss is not finite\n", path);
    return 1;
  }

  float losses[3] = {0, 0, 0};
  std::vector<float> got(kParamWords, 0.0f);
  ttsim_train_step(kTtsimLoadParams, 0, tokens, tags, 0, 0.0f, 1.0f, params.data(), losses);
  ttsim_train_step(kTtsimGradStep, K, tokens, tags, intent, 0.0f, slot_scale, got.data(), losses);
  if (losses[2] != 1.0f) {
    std::printf("reference_tb: the gradient step refused its arguments\n");
    return 1;
  }
  const float got_intent = losses[0], got_slot = losses[1];

  // Written as "within" so that a NaN (every comparison false) fails.
  bool pass = std::fabs(got_intent - want_intent) <= 1e-5 * std::fabs(want_intent) &&
              std::fabs(got_slot - want_slot) <= 1e-5 * std::fabs(want_slot);
  int non_finite = 0;
  for (std::int32_t i = 0; i < words; ++i) non_finite += !std::isfinite(got[i]);
  std::printf("reference_tb: loss intent %.7f (reference %.7f), slot %.7f (reference %.7f)\n", got_intent,
              want_intent, got_slot, want_slot);
  // The largest per-tensor relative L2 error of `have` against `ref` (a NaN error is the
  // largest), and the tensor.
  auto worst_error = [&](const std::vector<float>& have, const std::vector<float>& ref, int* tensor) {
    double worst = 0;
    *tensor = -1;
    for (int t = 0; t < tensors; ++t) {
      const std::int32_t off = spans[2 * t], n = spans[2 * t + 1];
      double num = 0, den = 1e-6;
      for (std::int32_t i = off; i < off + n; ++i) {
        num += (static_cast<double>(have[i]) - ref[i]) * (static_cast<double>(have[i]) - ref[i]);
        den += static_cast<double>(ref[i]) * ref[i];
      }
      const double rel = std::sqrt(num / den);
      if (!(rel <= worst)) {
        worst = rel;
        *tensor = t;
      }
    }
    return worst;
  };
  int worst_tensor = -1;
  const double worst = worst_error(got, want, &worst_tensor);
  if (non_finite > 0) std::printf("reference_tb: %d gradient words of the step are not finite\n", non_finite);
  pass = pass && non_finite == 0;
  pass = pass && worst <= 1e-4;  // false for a NaN error
  // Where the largest error is: "tensor t at word w", or that every word is exact.
  auto where = [&](int t) {
    char text[64];
    if (t < 0) return std::string("every word exact");
    std::snprintf(text, sizeof text, "tensor %d at word %d", t, spans[2 * t]);
    return std::string(text);
  };
  std::printf("reference_tb: %d gradient tensors, largest relative error %.3g (%s)\n", tensors, worst,
              where(worst_tensor).c_str());

  // The train step: SGD of every tensor fused into the backward pass.
  constexpr float kTbLr = 0.1f;
  std::vector<float> updated(kParamWords, 0.0f), want_updated(kParamWords, 0.0f);
  ttsim_train_step(kTtsimLoadParams, 0, tokens, tags, 0, 0.0f, 1.0f, params.data(), losses);
  ttsim_train_step(kTtsimTrainStep, K, tokens, tags, intent, kTbLr, slot_scale, params.data(), losses);
  const bool stepped = losses[2] == 1.0f;
  ttsim_train_step(kTtsimStoreParams, 0, tokens, tags, 0, 0.0f, 1.0f, updated.data(), losses);
  std::vector<float> own_updated(kParamWords, 0.0f);
  double moved = 0;
  for (std::int32_t i = 0; i < words; ++i) {
    want_updated[i] = params[i] - kTbLr * want[i];
    own_updated[i] = params[i] - kTbLr * got[i];
    moved += std::fabs(static_cast<double>(updated[i]) - params[i]);
  }
  int worst_own = -1, worst_updated = -1;
  const double own_p = worst_error(updated, own_updated, &worst_own);
  const double worst_p = worst_error(updated, want_updated, &worst_updated);
  pass = pass && stepped && moved > 0 && own_p <= 1e-6 && worst_p <= 1e-4;
  std::printf("reference_tb: train step (lr %g): %d parameter tensors, largest relative error %.3g against SGD "
              "with the step's own gradients (%s), %.3g against the reference's SGD (%s); parameters moved by %.4g in "
              "total%s\n",
              kTbLr, tensors, own_p, where(worst_own).c_str(), worst_p, where(worst_updated).c_str(), moved,
              stepped ? "" : " (the train step refused its arguments)");
  std::printf("reference_tb: %s\n", pass ? "PASS" : "FAIL");
  return pass ? 0 : 1;
}
