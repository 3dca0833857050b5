#pragma once
// The HLS kernel tree's view of a model: ModelSpec (+ the arch's flows) → ttsim_hls::ModelDims
// and the arena Layout the top function declares (hls/kernels/model_step.h).

#include <string>

#include "hls/kernels/model_step.h"
#include "models/model_spec.h"
#include "sim/arch_spec.h"

namespace ttsim::machine {

/// The model shape and arena layout the HLS top builds for (model, arch).
struct HlsDesign {
  ttsim_hls::ModelDims dims;
  ttsim_hls::Layout layout;  ///< word offsets and sizes of every buffer in the arenas
  bool btt = true;           ///< every TT layer with the BTT flow (else sequential TT)
};

/// Converts `model` for the HLS kernel tree. `file` names the source in messages.
/// Throws InputError when the kernel tree cannot build it: flows other than one of
/// btt / tt for every layer kind, a non-TTM token embedding, TT shapes differing within a
/// layer kind (design_config.h holds one shape per kind), non-TT encoder layers, or a
/// layout make_layout refuses (more than kMaxEncoders encoders, more than 6 factors).
HlsDesign hls_design(const ModelSpec& model, const ArchSpec& arch, const std::string& file);

}  // namespace ttsim::machine
