#include "hw/fpga_power.h"

#include <string>

#include "core/errors.h"

namespace ttsim {

namespace {
void check_fraction(const ResourceActivity& a, const char* name) {
  if (!(a.busy_fraction >= 0.0 && a.busy_fraction <= 1.0) || a.units < 0) {
    throw InputError(std::string("power model: ") + name + " activity must have units >= 0 and a busy fraction in [0, 1], found units " +
                     std::to_string(a.units) + ", busy " + std::to_string(a.busy_fraction));
  }
}
}  // namespace

bool has_power_coefficients(const DeviceSpec& device) {
  const auto& c = device.power;
  return c.static_watts > 0 || c.dsp_watts_per_mhz > 0 || c.logic_watts_per_kilolut_mhz > 0;
}

const char* to_string(PowerScenario s) { return s == PowerScenario::kClocked ? "clocked" : "busy_scaled"; }

PowerBreakdown fpga_power(const DeviceSpec& device, const FpgaActivity& a, PowerScenario scenario) {
  const auto& c = device.power;
  if (!has_power_coefficients(device)) {
    throw InputError(device.source_file + ": /power: expected power coefficients for device \"" +
                     device.name + "\", found none (add a \"power\" object or calibrate it from a report_power file)");
  }
  if (!(a.clock_mhz > 0)) throw InputError("power model: clock must be positive");
  check_fraction(a.dsp, "DSP");
  check_fraction(a.bram36, "BRAM36");
  check_fraction(a.uram288, "URAM288");
  check_fraction(a.kilo_lut, "LUT");
  const bool busy = scenario == PowerScenario::kBusyScaled;
  auto charged = [&](const ResourceActivity& r) { return busy ? r.busy_fraction : 1.0; };
  PowerBreakdown p;
  p.static_watts = c.static_watts;
  p.dsp_watts = c.dsp_watts_per_mhz * a.dsp.units * a.clock_mhz * charged(a.dsp);
  p.bram_watts = c.bram36_watts_per_mhz * a.bram36.units * a.clock_mhz * charged(a.bram36);
  p.uram_watts = c.uram_watts_per_mhz * a.uram288.units * a.clock_mhz * charged(a.uram288);
  p.logic_watts = c.logic_watts_per_kilolut_mhz * a.kilo_lut.units * a.clock_mhz * charged(a.kilo_lut);
  p.clock_watts = c.clock_watts_per_kilolut_mhz * a.kilo_lut.units * a.clock_mhz;
  return p;
}

}  // namespace ttsim
