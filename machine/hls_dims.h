#pragma once
// The HLS kernel tree's view of a model: ModelSpec (+ the arch's flows) → ttsim_hls::ModelDims
// and the arena Layout the top function declares (hls/kernels/model_step.h).

#include <string>

#include "hls/kernels/model_step.h"
#include "models/model_spec.h"
#include "hw/arch_spec.h"

namespace ttsim::machine {

/// The model shape and arena layout the HLS top builds for (model, arch).
struct HlsDesign {
  ttsim_hls::ModelDims dims;
  ttsim_hls::Layout layout;  ///< word offsets and sizes of every buffer in the arenas
  bool btt = true;           ///< every TT layer with the BTT flow (else sequential TT)
  bool recompute = false;    ///< every BTT layer recomputes its merges (ArchSpec::recompute_merges)
};

/// Converts `model` for the HLS kernel tree. `arch_file` names the arch in messages about
/// its flows; model problems name the model's source_file (or `model_file` when given).
/// Throws InputError when the kernel tree cannot build it: flows other than one of
/// btt / tt for every layer kind (/flows), merges recomputed without the BTT flow or
/// encoders recomputed in a model of fewer than 2 (/memory/recompute), a batch other than 1 (/batch: the top takes one
/// sample per step), a non-TTM token embedding, TT factors differing within a layer kind
/// (design_config.h holds one factorisation per kind; ranks may differ per layer,
/// kLayerRanks), non-TT encoder layers, a linear layer without a bias or a head other than
/// dense,
/// more factors or encoders than the kernels take, or arenas beyond 2^31 − 1 words (the
/// kernels index them with int: hls/host/host_capacity.h, checked in 64-bit arithmetic).
HlsDesign hls_design(const ModelSpec& model, const ArchSpec& arch, const std::string& arch_file,
                     const std::string& model_file = "");

/// As hls_design, into `d`: the same fields on return, without value-initialising a whole
/// HlsDesign (about 300 KB in a 128-encoder host build: its shape tables are sized for
/// 128 encoders) — of the tables only the entries `d` held and the model's are rewritten,
/// so a caller laying out one design after another (the sweep's evaluation) reuses one.
/// Throws as hls_design; `d` is then unspecified until the next call.
void hls_design_into(HlsDesign& d, const ModelSpec& model, const ArchSpec& arch, const std::string& arch_file,
                     const std::string& model_file = "");

}  // namespace ttsim::machine
