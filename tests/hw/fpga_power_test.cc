#include "hw/fpga_power.h"

#include <gtest/gtest.h>

namespace ttsim {
namespace {

DeviceSpec device_with_power() {
  DeviceSpec d;
  d.name = "test";
  d.power.static_watts = 2.0;
  d.power.dsp_watts_per_mhz = 1e-5;
  d.power.bram36_watts_per_mhz = 2e-5;
  d.power.uram_watts_per_mhz = 3e-5;
  d.power.logic_watts_per_kilolut_mhz = 1e-4;
  d.power.clock_watts_per_kilolut_mhz = 1e-5;
  return d;
}

TEST(FpgaPower, ClockedResourcesAreChargedEveryCycleByDefault) {
  FpgaActivity a;
  a.clock_mhz = 100;
  a.dsp = {1000, 0.5};
  a.bram36 = {100, 1.0};
  a.uram288 = {10, 0.2};
  a.kilo_lut = {50, 0.4};
  PowerBreakdown p = fpga_power(device_with_power(), a);
  EXPECT_DOUBLE_EQ(p.dsp_watts, 1e-5 * 1000 * 100);
  EXPECT_DOUBLE_EQ(p.bram_watts, 2e-5 * 100 * 100);
  EXPECT_DOUBLE_EQ(p.uram_watts, 3e-5 * 10 * 100);
  EXPECT_DOUBLE_EQ(p.logic_watts, 1e-4 * 50 * 100);
  EXPECT_DOUBLE_EQ(p.clock_watts, 1e-5 * 50 * 100);
  // Activity does not change the clocked figure; the busy-scaled scenario is never above it.
  FpgaActivity idle = a;
  idle.dsp.busy_fraction = idle.bram36.busy_fraction = idle.uram288.busy_fraction = idle.kilo_lut.busy_fraction = 0;
  EXPECT_DOUBLE_EQ(fpga_power(device_with_power(), idle).total_watts(), p.total_watts());
  EXPECT_LT(fpga_power(device_with_power(), a, PowerScenario::kBusyScaled).total_watts(), p.total_watts());
}

TEST(FpgaPower, BusyScaledScenarioScalesEachTermWithActivity) {
  FpgaActivity a;
  a.clock_mhz = 100;
  a.dsp = {1000, 0.5};
  a.bram36 = {100, 1.0};
  a.uram288 = {10, 0.2};
  a.kilo_lut = {50, 0.4};
  PowerBreakdown p = fpga_power(device_with_power(), a, PowerScenario::kBusyScaled);
  EXPECT_DOUBLE_EQ(p.static_watts, 2.0);
  EXPECT_DOUBLE_EQ(p.dsp_watts, 1e-5 * 1000 * 100 * 0.5);
  EXPECT_DOUBLE_EQ(p.bram_watts, 2e-5 * 100 * 100 * 1.0);
  EXPECT_DOUBLE_EQ(p.uram_watts, 3e-5 * 10 * 100 * 0.2);
  EXPECT_DOUBLE_EQ(p.logic_watts, 1e-4 * 50 * 100 * 0.4);
  EXPECT_DOUBLE_EQ(p.clock_watts, 1e-5 * 50 * 100);
  EXPECT_DOUBLE_EQ(p.total_watts(), p.static_watts + p.dynamic_watts());

  a.clock_mhz = 200;
  PowerBreakdown p2 = fpga_power(device_with_power(), a, PowerScenario::kBusyScaled);
  EXPECT_DOUBLE_EQ(p2.dynamic_watts(), 2 * p.dynamic_watts());
  EXPECT_DOUBLE_EQ(p2.static_watts, p.static_watts);
}

TEST(FpgaPower, IdleDesignPaysStaticAndClockOnlyWhenBusyScaled) {
  FpgaActivity a;
  a.clock_mhz = 100;
  a.dsp = {1000, 0.0};
  a.kilo_lut = {10, 0.0};
  PowerBreakdown p = fpga_power(device_with_power(), a, PowerScenario::kBusyScaled);
  EXPECT_DOUBLE_EQ(p.total_watts(), 2.0 + 1e-5 * 10 * 100);
}

TEST(FpgaPower, MissingCoefficientsAndBadActivityAreErrors) {
  FpgaActivity a;
  a.clock_mhz = 100;
  DeviceSpec none;
  none.name = "bare";
  none.source_file = "bare.json";
  EXPECT_THROW(fpga_power(none, a), InputError);
  a.dsp = {10, 1.5};
  EXPECT_THROW(fpga_power(device_with_power(), a), InputError);
  a.dsp = {10, 0.5};
  a.clock_mhz = 0;
  EXPECT_THROW(fpga_power(device_with_power(), a), InputError);
}

TEST(FpgaPower, ShippedU50CoefficientsGiveAPlausibleReportPowerForTheKnnBuild) {
  // The U50 KNN build (33 DSP, 6.1 kLUT, 125 MHz) reported 2.432 W total on chip.
  DeviceSpec u50 = load_device_spec("configs/devices/u50.json");
  FpgaActivity a;
  a.clock_mhz = 125;
  a.dsp = {33, 1.0};
  a.kilo_lut = {6.147, 1.0};
  PowerBreakdown p = fpga_power(u50, a);
  // Coefficients are means over two designs, not fitted to this one: allow 5 %.
  EXPECT_NEAR(p.total_watts(), 2.432, 0.12);
}

}  // namespace
}  // namespace ttsim
