#pragma once
// The Eigen reference's training step in the form the emitted build's C simulation reads
// (hls/tb/reference_tb.cc, `make csim`): the parameters the reference starts from, one
// sample, and what one forward-backward of the reference gives — the two losses and every
// gradient — so the emitted kernels at the emitted lanes are checked against the reference
// (losses to 1e-5, each parameter tensor's gradient to 1e-4, relative).
//
// File layout (native byte order; i32 / f32 / f64):
//   char[4] "TTRS"; i32 version (1); i32 K; i32 intent; i32 param_words; i32 tensors;
//   f32 slot_scale; i32 tokens[K]; i32 slot_tags[K]; i32 {offset, words}[tensors];
//   f32 params[param_words]; f64 intent_loss; f64 slot_loss; f32 gradients[param_words].
// Parameters and gradients are in the parameter arena's Layout order (the top's param_io).

#include <string>

#include "models/model_spec.h"

namespace ttsim {

/// The reference step file of `model` (the reference's default seed; K = seq_len tokens of
/// a fixed pattern, every tenth tag ignored; FP64 reference rounded to FP32 parameters).
/// Throws InputError when the HLS host model or the reference refuse the model.
std::string reference_step_file(const ModelSpec& model);

}  // namespace ttsim
