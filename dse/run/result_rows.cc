#include "dse/run/result_rows.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "dse/space/axes.h"
#include "dse/evaluate/resolve.h"

namespace ttsim::dse {

ResultRow make_row(const SweepEvaluator& eval, PointId id, PointConfig point, PointRecord rec) {
  const auto& sweep = eval.sweep();
  ResultRow r;
  r.id = id;
  sweep.space.is_reference(id, &r.ref_label);
  r.point = std::move(point);
  r.values.reserve(sweep.editors.size());
  for (const AxisEditor& a : sweep.editors) r.values.push_back(a.current(r.point.model(), r.point.arch()));
  r.rec = std::move(rec);
  r.verdict = eval.judge(r.rec.best());
  return r;
}

ResultRow result_row(const SweepEvaluator& eval, const RunState& state, const FinalResult& f,
                     PointId id) {
  ResultRow r = make_row(eval, id, resolve_point(eval.sweep(), id), state.record(id));
  r.on_front = f.on_front(id);
  return r;
}

std::size_t sample_stride(std::size_t count, std::size_t max) { return count <= max ? 1 : (count + max - 1) / max; }

bool in_sample(std::size_t index, std::size_t count, std::size_t max) { return index % sample_stride(count, max) == 0; }

void for_each_row(const SweepEvaluator& eval, const RunState& state, const FinalResult& f,
                  const std::function<void(const ResultRow&)>& fn, std::size_t max_rows) {
  std::size_t i = 0;
  for (const auto& [id, s] : state.points) {
    (void)s;
    if (in_sample(i++, state.points.size(), max_rows)) fn(result_row(eval, state, f, id));
  }
}

std::vector<ResultRow> front_rows(const SweepEvaluator& eval, const RunState& state,
                                  const FinalResult& f) {
  std::vector<ResultRow> rows;
  for (PointId id : f.front) rows.push_back(result_row(eval, state, f, id));
  const Metric first = eval.objectives().front();
  std::stable_sort(rows.begin(), rows.end(), [&](const ResultRow& a, const ResultRow& b) {
    const double va = a.rec.best().metrics[first], vb = b.rec.best().metrics[first];
    return metric_info(first).maximize ? va > vb : va < vb;
  });
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

std::string csv_cell(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char ch : s) {
    if (ch == '"') out += '"';
    out += ch;
  }
  return out + "\"";
}

std::string number_text(double v) {
  if (std::isnan(v)) return "";
  return fmt::format("{}", v);
}

}  // namespace ttsim::dse
