#pragma once
// ttsim_train_step: the synthesis top. One call runs one whole training step of one
// sample of the design_config.h model (forward, loss, backward, and the SGD of every
// parameter tensor fused into the backward pass), with every parameter, the gradients of
// one update group, saved activations and temporaries held in static on-chip arenas
// (BIND_STORAGE per design_config.h), as the reference design does.

#include "hls/include/design_config.h"

/// Top-function commands.
enum TtsimTopMode {
  kTtsimTrainStep = 0,   ///< one SGD step on (tokens, slot_tags, intent); losses written
  kTtsimLoadParams = 1,  ///< param_io (kParamWords) → parameter arena; gradient arena zeroed
  kTtsimStoreParams = 2, ///< parameter arena → param_io
  kTtsimGradStep = 3,    ///< forward and backward, no update: the gradients → param_io
                         ///< (Layout order, as the parameters; the reference test's read-back)
};

/// mode: TtsimTopMode. K: tokens of the sample (1 <= K <= kSeqLen). tokens / slot_tags:
/// K valid entries (tags -1 ignored). lr: SGD learning rate. slot_scale: weight of the
/// summed slot cross-entropy. param_io: kParamWords words (AXI master, Layout order).
/// losses[0] = intent loss, losses[1] = weighted slot loss (train and gradient modes).
/// Returns (through losses[2]) 1 on success, 0 when an argument is out of range.
void ttsim_train_step(int mode, int K, const int tokens[ttsim_cfg::kSeqLen],
                      const int slot_tags[ttsim_cfg::kSeqLen], int intent, float lr,
                      float slot_scale, float* param_io, float losses[3]);

namespace ttsim_hls {
struct ModelDims;
/// The model shape of design_config.h.
ModelDims design_config_dims();
}  // namespace ttsim_hls
