#include "dse/report/front_views.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace ttsim::dse {

std::vector<FrontView> front_views(const std::vector<Metric>& objectives, Metric choose) {
  std::vector<FrontView> views;
  if (objectives.size() < 2) return views;
  const Metric x = std::find(objectives.begin(), objectives.end(), choose) != objectives.end()
                       ? choose
                       : objectives.front();
  for (Metric y : objectives) {
    if (y != x) views.push_back({x, y});
  }
  return views;
}

std::vector<bool> pair_front(const std::vector<double>& xs, bool max_x,
                             const std::vector<double>& ys, bool max_y) {
  const std::size_t n = xs.size();
  std::vector<bool> on(n, false);
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < n; ++i) {
    if (!std::isnan(xs[i]) && !std::isnan(ys[i])) order.push_back(i);
  }
  // Both coordinates as minimised values; sweep by x, keep the best y seen.
  auto x = [&](std::size_t i) { return max_x ? -xs[i] : xs[i]; };
  auto y = [&](std::size_t i) { return max_y ? -ys[i] : ys[i]; };
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return x(a) != x(b) ? x(a) < x(b) : (y(a) != y(b) ? y(a) < y(b) : a < b);
  });
  double best = INFINITY;
  std::size_t last = n;  // the last flagged point
  for (std::size_t i : order) {
    if (y(i) < best) {
      on[i] = true;
      best = y(i);
      last = i;
    } else if (last != n && x(i) == x(last) && y(i) == y(last)) {
      on[i] = true;  // equal to a non-dominated point: not dominated either
    }
  }
  return on;
}

std::vector<LineVertex> pair_staircase(const std::vector<double>& xs, bool max_x,
                                       const std::vector<double>& ys, bool max_y) {
  const auto on = pair_front(xs, max_x, ys, max_y);
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < on.size(); ++i) {
    if (on[i]) order.push_back(i);
  }
  // Improving x first; on the pair front a better x means a worse y.
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return xs[a] != xs[b] ? (max_x ? xs[a] > xs[b] : xs[a] < xs[b]) : a < b;
  });
  std::vector<LineVertex> line;
  for (std::size_t i : order) {
    const LineVertex p{xs[i], ys[i]};
    if (!line.empty()) {
      const LineVertex last = line.back();
      if (last.x == p.x && last.y == p.y) continue;
      line.push_back({p.x, last.y});
    }
    line.push_back(p);
  }
  return line;
}

std::pair<double, double> padded_range(const std::vector<double>& values, bool log_axis, double pad,
                                       double linear_margin) {
  double lo = INFINITY, hi = -INFINITY;
  for (double v : values) {
    if (!std::isfinite(v) || (log_axis && v <= 0)) continue;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  if (lo > hi) return {0, 0};
  if (log_axis) return {lo / pad, hi * pad};
  double margin = (hi - lo) * linear_margin;
  if (margin == 0) margin = lo == 0 ? 1 : std::abs(lo) * linear_margin;
  // Non-negative data (energy, DSPs, MiB): the axis starts at 0 at the lowest.
  return {lo >= 0 ? std::max(0.0, lo - margin) : lo - margin, hi + margin};
}

bool log_axis_wanted(const std::vector<double>& values) {
  double lo = INFINITY, hi = 0;
  for (double v : values) {
    if (!std::isfinite(v)) continue;
    if (v <= 0) return false;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  return lo <= hi && hi >= kLogAxisSpread * lo;
}

PlotAxis plot_axis(Metric m) {
  switch (m) {
    case Metric::kEpochSeconds: return {"epoch_seconds", "epoch latency (s)", 1};
    case Metric::kStepCycles: return {"step_cycles", "training step (cycles)", 1};
    case Metric::kForwardCycles: return {"forward_cycles", "forward stage (cycles)", 1};
    case Metric::kBackwardCycles: return {"backward_cycles", "backward stage (cycles)", 1};
    case Metric::kUpdateCycles: return {"update_cycles", "update stage (cycles)", 1};
    case Metric::kEpochEnergyJoules: return {"epoch_energy_joules", "energy per epoch (J)", 1};
    case Metric::kPowerStaticWatts: return {"power_static_watts", "static power (W)", 1};
    case Metric::kPowerDynamicWatts: return {"power_dynamic_watts", "dynamic power (W)", 1};
    case Metric::kPowerTotalWatts: return {"power_total_watts", "total power (W)", 1};
    case Metric::kOnchipBytes:
      return {"onchip_mib", "on-chip arrays of the build (MiB)", 1.0 / (1024.0 * 1024.0)};
    case Metric::kBram36: return {"bram36", "BRAM36 (blocks)", 1};
    case Metric::kUram288: return {"uram288", "URAM288 (blocks)", 1};
    case Metric::kDsp: return {"dsp", "DSP48E2 (slices)", 1};
    case Metric::kLut: return {"lut", "LUTs, estimated (LUTs)", 1};
    case Metric::kCompression: return {"compression", "compression (dense / stored parameters, x)", 1};
    case Metric::kAccuracy: return {"accuracy_pct", "test intent accuracy, 95 % lower bound (%)", 100};
    case Metric::kSlotF1: return {"slot_f1_pct", "test slot F1 (%)", 100};
    case Metric::kClockMhz: return {"kernel_clock_mhz", "kernel clock (MHz)", 1};
    case Metric::kFf: return {"ff", "FFs, estimated (FFs)", 1};
    case Metric::kCount: break;
  }
  return {metric_info(m).name, metric_info(m).name, 1};
}

}  // namespace ttsim::dse
