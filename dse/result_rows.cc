#include "dse/result_rows.h"

#include <cmath>

#include <fmt/format.h>

#include "dse/axes.h"
#include "dse/resolve.h"

namespace ttsim::dse {

std::vector<ResultRow> result_rows(const SweepEvaluation& eval, const RunState& state,
                                   const FinalResult& f) {
  std::vector<ResultRow> rows;
  const auto& sweep = eval.sweep();
  for (std::size_t i = 0; i < f.ids.size(); ++i) {
    ResultRow r{f.ids[i], "", {}, &state.points.at(f.ids[i]), &f.verdicts[i], f.on_front[i]};
    sweep.space.is_reference(r.id, &r.ref_label);
    const PointConfig p = resolve_point(sweep, r.id);
    for (const auto& a : sweep.space.axes()) {
      r.values.push_back(axis_current_value(a.name, p.model, p.arch));
    }
    rows.push_back(std::move(r));
  }
  return rows;
}

std::string metric_text(Metric m, double v) {
  if (std::isnan(v)) return "n/a";
  switch (m) {
    case Metric::kOnchipBytes:
      return fmt::format("{:.3f} MiB", v / (1024.0 * 1024.0));
    case Metric::kEpochSeconds:
      return fmt::format("{:.4g} s", v);
    case Metric::kEpochEnergyJoules:
      return fmt::format("{:.4g} J", v);
    case Metric::kPowerStaticWatts:
    case Metric::kPowerDynamicWatts:
    case Metric::kPowerTotalWatts:
      return fmt::format("{:.2f} W", v);
    case Metric::kCompression:
      return fmt::format("{:.1f}x", v);
    case Metric::kAccuracy:
    case Metric::kSlotF1:
      return fmt::format("{:.2f} %", 100 * v);
    default:
      return fmt::format("{:.0f}", v);
  }
}

}  // namespace ttsim::dse
