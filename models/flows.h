#pragma once
// Contraction flows of a TT linear layer Y = X·W, X ∈ R^{K×M}, W ∈ R^{M×N} in TT form
// (models/model_spec.h TtShape), and their exact costs per training stage.
//
//   MM  : merge the cores into W (left merge, right merge, W = L·R), then Y = X·W.
//   TT  : contract X through the cores one after the other; every step carries K.
//   BTT : merge the input-side cores into L (M × r_d) and the output-side cores into
//         R (r_d × N) independently, then Z = X·L (K × r_d) and Y = Z·R.
// A dense-format layer always runs as one dense product (flow kMM, no merges).

#include <cstdint>
#include <string>
#include <vector>

#include "models/model_spec.h"

namespace ttsim {

enum class Flow { kMM, kTT, kBTT };
/// "mm", "tt", "btt".
const char* to_string(Flow f);
/// Parses "mm" / "tt" / "btt"; throws InputError otherwise.
Flow parse_flow(const std::string& s);

/// Training stages whose costs are reported separately.
enum class FlowStage {
  kForward,      ///< Y from X
  kGradInput,    ///< dX from dY
  kGradWeights,  ///< gradients of every core (or of W for a dense layer) from dY
};

}  // namespace ttsim
