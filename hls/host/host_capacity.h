#pragma once
// Word counts of the HLS host model's arenas computed in 64-bit arithmetic, checked
// against what the host model can hold, before anything is allocated.

#include <cstdint>
#include <string>

#include "hls/kernels/model_step.h"

namespace ttsim {

/// Largest word count of one arena (parameter, gradient, activation, scratch, index):
/// the kernels index every arena with int offsets, so it is INT_MAX = 2^31 − 1 words.
constexpr std::int64_t kHlsMaxArenaWords = 2147483647;
/// Largest total of the host model's arenas (2·param + act + scratch + index words):
/// 2^31 words = 8 GiB of 4-byte floats/ints.
constexpr std::int64_t kHlsMaxHostWords = std::int64_t{1} << 31;

/// Arena sizes (words) of ModelDims, mirroring ttsim_hls::make_layout in int64
/// (saturating at INT64_MAX on overflow). With ModelDims::recompute_encoders the activation
/// count keeps every encoder's activations apart: an upper bound of the layout, whose
/// encoders share one region.
struct HlsArenaWords {
  std::int64_t param = 0, act = 0, scratch = 0, index = 0;
  std::int64_t grad = 0;  ///< the grad arena: the largest update group (make_layout)
  /// 2·param (parameters and the gradient read-back) + grad + act + scratch + index.
  std::int64_t host_total() const;
};

/// Computes the arena sizes of `m` and throws InputError("<source>: ...") naming the
/// layer (e.g. "enc0.q", "embedding.token") whose array or whose addition to an arena
/// first exceeds kHlsMaxArenaWords, or the total when it exceeds kHlsMaxHostWords.
/// `source` names the model (its file). Dims must already satisfy make_layout's
/// structural limits (factor counts, encoders).
HlsArenaWords check_hls_host_capacity(const ttsim_hls::ModelDims& m, const std::string& source);

}  // namespace ttsim
