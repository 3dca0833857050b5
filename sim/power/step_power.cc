#include "sim/power/step_power.h"

#include <algorithm>

#include "sim/step_report.h"

namespace ttsim {

namespace {
double clamp01(double v) { return std::min(1.0, std::max(0.0, v)); }
}  // namespace

FpgaActivity step_activity(const StepResult& step, const ArchSpec& arch, const DeviceSpec& device) {
  FpgaActivity a;
  a.clock_mhz = arch.clock_mhz;
  const double cycles = static_cast<double>(step.run.schedule.makespan);

  const double dsp_units = static_cast<double>(arch_dsp(arch, device));
  double dsp_busy = 0, lanes_total = 0, instances = 0;
  for (const auto& k : kernel_breakdown(step, arch)) {
    dsp_busy += static_cast<double>(k.busy_cycles) * k.lanes * dsp_per_lane(k.kind, device);
    lanes_total += k.lanes;
    instances += 1;
  }
  a.dsp.units = dsp_units;
  a.dsp.busy_fraction = (dsp_units > 0 && cycles > 0) ? clamp01(dsp_busy / (dsp_units * cycles)) : 0;

  double bram_busy = 0, uram_busy = 0;
  for (const auto& s : step.run.bank_slices) {
    const auto& bank = step.banks.banks[s.bank];
    const double blocks_time = static_cast<double>(s.end - s.start) * static_cast<double>(bank.blocks);
    (bank.kind == BlockKind::kBram36 ? bram_busy : uram_busy) += blocks_time;
  }
  a.bram36.units = static_cast<double>(step.banks.bram36_blocks);
  a.uram288.units = static_cast<double>(step.banks.uram_blocks);
  a.bram36.busy_fraction =
      (a.bram36.units > 0 && cycles > 0) ? clamp01(bram_busy / (a.bram36.units * cycles)) : 0;
  a.uram288.busy_fraction =
      (a.uram288.units > 0 && cycles > 0) ? clamp01(uram_busy / (a.uram288.units * cycles)) : 0;

  const double control = 2000.0 * instances + 500.0 * static_cast<double>(step.banks.banks.size());
  a.kilo_lut.units = estimate_luts(lanes_total, control) / 1000.0;
  a.kilo_lut.busy_fraction = a.dsp.busy_fraction;
  return a;
}

}  // namespace ttsim
