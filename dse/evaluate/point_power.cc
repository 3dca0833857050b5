#include "dse/evaluate/point_power.h"

namespace ttsim::dse {

void set_power_metrics(const DeviceSpec& device, const FpgaActivity& activity, double luts,
                       MetricValues& m) {
  m[Metric::kLut] = luts;
  if (!has_power_coefficients(device)) return;
  const PowerBreakdown p = fpga_power(device, activity);
  m[Metric::kPowerStaticWatts] = p.static_watts;
  m[Metric::kPowerDynamicWatts] = p.dynamic_watts();
  m[Metric::kPowerTotalWatts] = p.total_watts();
  if (m.has(Metric::kEpochSeconds)) {
    m[Metric::kEpochEnergyJoules] = p.total_watts() * m[Metric::kEpochSeconds];
  }
}

}  // namespace ttsim::dse
