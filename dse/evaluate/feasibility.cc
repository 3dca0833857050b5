#include "dse/evaluate/feasibility.h"

#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "hw/resource_fit.h"

namespace ttsim::dse {

ResourceUse point_use(const Evaluation& e, const DeviceSpec& device) {
  ResourceUse use;
  auto metric = [&](Metric m) { return e.metrics.has(m) ? e.metrics[m] : 0.0; };
  use.bram36 = metric(Metric::kBram36);
  use.uram288 = metric(Metric::kUram288);
  use.dsp = metric(Metric::kDsp);
  use.lut = metric(Metric::kLut);
  use.ff = metric(Metric::kFf);
  // Card power: the card's idle draw plus the point's dynamic power (the clocked figure
  // machine::card_watts gives the other commands).
  if (device.card_max_watts > 0 && e.metrics.has(Metric::kPowerDynamicWatts)) {
    use.card_watts = device.card_idle_watts + e.metrics[Metric::kPowerDynamicWatts];
  }
  use.clock_mhz = metric(Metric::kClockMhz);
  return use;
}

Verdict judge(const Evaluation& e, const ConstraintSpec& c, const DeviceSpec& device,
              const std::vector<Metric>& objectives, bool check_accuracy) {
  Verdict v;
  if (!e.error.empty()) {
    v.violation = 1e9;
    v.reason = "not evaluated: " + e.error;
    return v;
  }
  std::vector<std::string> fails;
  // The one fit rule (hw/resource_fit.h), with the sweep's headroom.
  const ResourceUse use = point_use(e, device);
  for (const ResourceOverrun& o : resource_overruns(use, device, c.resource_headroom_pct)) {
    v.violation += o.limit > 0 ? o.used / o.limit - 1 : 1;
    fails.push_back(o.line());
  }
  if (c.max_epoch_seconds && e.metrics.has(Metric::kEpochSeconds) &&
      e.metrics[Metric::kEpochSeconds] > *c.max_epoch_seconds) {
    v.violation += e.metrics[Metric::kEpochSeconds] / *c.max_epoch_seconds - 1;
    fails.push_back(fmt::format("epoch {:.4g} s > {:g} s", e.metrics[Metric::kEpochSeconds],
                                *c.max_epoch_seconds));
  }
  if (c.min_compression && e.metrics.has(Metric::kCompression) &&
      e.metrics[Metric::kCompression] < *c.min_compression) {
    v.violation += 1 - e.metrics[Metric::kCompression] / *c.min_compression;
    fails.push_back(fmt::format("compression {:.3g}x < {:g}x", e.metrics[Metric::kCompression],
                                *c.min_compression));
  }
  if (c.max_compression && e.metrics.has(Metric::kCompression) &&
      e.metrics[Metric::kCompression] > *c.max_compression) {
    v.violation += e.metrics[Metric::kCompression] / *c.max_compression - 1;
    fails.push_back(fmt::format("compression {:.3g}x > {:g}x", e.metrics[Metric::kCompression],
                                *c.max_compression));
  }
  if (check_accuracy && c.min_accuracy) {
    if (!e.metrics.has(Metric::kAccuracy)) {
      v.violation += 1;
      // The lookup's reason, without a "not measured: " the message already says.
      std::string why = e.accuracy_unknown;
      if (why.rfind("not measured: ", 0) == 0) why = why.substr(14);
      fails.push_back(e.tt_rank ? fmt::format("accuracy unknown (not measured) at TT rank {}{}", e.tt_rank,
                                              why.empty() ? "" : ": " + why)
                                : "accuracy unknown: " + (e.accuracy_unknown.empty()
                                                              ? std::string("per-layer TT ranks the table cannot estimate")
                                                              : e.accuracy_unknown));
    } else if (e.metrics[Metric::kAccuracy] < *c.min_accuracy) {
      v.violation += 1 - e.metrics[Metric::kAccuracy] / *c.min_accuracy;
      fails.push_back(fmt::format("accuracy bound {:.4g} < {:g}", e.metrics[Metric::kAccuracy],
                                  *c.min_accuracy));
    }
  }
  for (Metric m : objectives) {
    if (!e.metrics.has(m)) {
      v.violation += 1e9;
      fails.push_back(std::string("objective ") + metric_info(m).name + " unavailable");
    }
  }
  for (std::size_t i = 0; i < fails.size(); ++i) v.reason += (i ? "; " : "") + fails[i];
  v.feasible = fails.empty();
  return v;
}

double objective_value(Metric m, double x) {
  if (std::isnan(x)) return std::numeric_limits<double>::infinity();
  return metric_info(m).maximize ? -x : x;
}

}  // namespace ttsim::dse
