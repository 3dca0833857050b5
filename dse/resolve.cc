#include "dse/resolve.h"

#include "dse/axes.h"

namespace ttsim::dse {

PointConfig resolve_point(const SweepSpec& sweep, PointId id) {
  PointConfig p;
  p.id = id;
  p.space = &sweep.space;
  p.model = sweep.model_doc;
  p.arch = sweep.arch_doc;
  p.model_file = sweep.model_file;
  p.arch_file = sweep.arch_file;
  const auto idx = sweep.space.decode(id);
  for (std::size_t i = 0; i < idx.size(); ++i) {
    if (idx[i] == kBaseValue) continue;
    const Axis& a = sweep.space.axes()[i];
    apply_axis(a.name, a.values[idx[i]], p.model, p.arch);
  }
  return p;
}

}  // namespace ttsim::dse
