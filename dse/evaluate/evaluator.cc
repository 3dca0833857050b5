#include "dse/evaluate/evaluator.h"

namespace ttsim::dse {

namespace {
const Json& null_document() {
  static const Json null;
  return null;
}
}  // namespace

const Json& PointConfig::model() const { return model_doc ? *model_doc : null_document(); }

const Json& PointConfig::arch() const { return arch_doc ? *arch_doc : null_document(); }

const Json* PointConfig::axis_value(const std::string& name) const {
  if (!space) return nullptr;
  const auto& axes = space->axes();
  for (std::size_t i = 0; i < axes.size(); ++i) {
    if (axes[i].name == name) return space->value(id, i);
  }
  return nullptr;
}

}  // namespace ttsim::dse
