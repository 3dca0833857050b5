#include "dse/evaluate/evaluator.h"

namespace ttsim::dse {

const Json* PointConfig::axis_value(const std::string& name) const {
  if (!space) return nullptr;
  const auto& axes = space->axes();
  for (std::size_t i = 0; i < axes.size(); ++i) {
    if (axes[i].name == name) return space->value(id, i);
  }
  return nullptr;
}

}  // namespace ttsim::dse
