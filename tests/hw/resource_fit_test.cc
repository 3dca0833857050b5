// The one fit rule (hw/resource_fit.h): each limit over which a design is refused, its line,
// and the limits a device file without them does not check.

#include <gtest/gtest.h>

#include "hw/resource_fit.h"

namespace ttsim {
namespace {

DeviceSpec u50_like() {
  DeviceSpec d;
  d.bram36 = 1344;
  d.uram288 = 640;
  d.dsp = 5952;
  d.lut = 871680;
  d.ff = 1743360;
  d.max_clock_mhz = 500;
  d.achievable_clock_mhz = 250;
  d.card_idle_watts = 17.4;
  d.card_max_watts = 75;
  return d;
}

TEST(ResourceFit, EveryLimitAtItsBoundFits) {
  ResourceUse u;
  u.bram36 = 1276;  // floor(1344 · 0.95)
  u.uram288 = 608;
  u.dsp = 5654;
  u.lut = 828096;
  u.card_watts = 71.25;  // 75 · 0.95
  u.clock_mhz = 237.5;   // 250 · 0.95
  EXPECT_TRUE(resource_overruns(u, u50_like(), 5).empty());
  u.clock_mhz = 237.6;
  ASSERT_EQ(resource_overruns(u, u50_like(), 5).size(), 1u);
  EXPECT_EQ(resource_overruns(u, u50_like(), 5)[0].resource, "clock");
}

// The resource nearest its limit is the largest used / usable, over the limit or not.
TEST(ResourceFit, TheTightestResourceIsTheLargestShareOfItsLimit) {
  ResourceUse u;
  u.bram36 = 638;   // 50 % of 1,276
  u.uram288 = 304;  // 50 % of 608
  u.dsp = 5000;     // 88.4 % of 5,654
  u.lut = 823956;   // 99.5 % of 828,096
  u.ff = 10;
  auto t = tightest_resource(u, u50_like(), 5);
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->resource, "LUT");
  EXPECT_EQ(t->limit, 828096);
  u.dsp = 6000;  // over its limit: the tightest, and the one overrun
  t = tightest_resource(u, u50_like(), 5);
  EXPECT_EQ(t->resource, "DSP");
  ASSERT_EQ(resource_overruns(u, u50_like(), 5).size(), 1u);
  EXPECT_EQ(resource_limits(u, u50_like(), 5).size(), 5u);
  EXPECT_FALSE(tightest_resource(u, DeviceSpec{}, 5).has_value());  // no totals: no limit
}

TEST(ResourceFit, CardPowerAndClockOverTheirLimitsAreNamed) {
  ResourceUse u;
  u.card_watts = 71.6;
  u.clock_mhz = 300;
  const auto over = resource_overruns(u, u50_like(), 5);
  ASSERT_EQ(over.size(), 2u);
  EXPECT_EQ(over[0].line(), "card power 71.6 W needed, 71.2 W usable (75 W on the device at /card/max_watts, 5 % headroom)");
  EXPECT_EQ(over[1].line(),
            "clock 300 MHz asked, 237.5 MHz usable (250 MHz achievable; the device at /clocks/achievable_mhz, 5 % "
            "headroom)");
  // Both keep the rule's headroom: with none, 74 W is within the card and 250 MHz is usable.
  u.card_watts = 74;
  EXPECT_TRUE(resource_overruns(u, u50_like(), 0).size() == 1u);
  EXPECT_EQ(resource_overruns(u, u50_like(), 0)[0].resource, "clock");
  u.clock_mhz = 250;
  EXPECT_TRUE(resource_overruns(u, u50_like(), 0).empty());
}

TEST(ResourceFit, ADesignAboveOneSlrsShareIsHeldToTheMultiSlrClock) {
  DeviceSpec d = u50_like();
  d.slrs = 2;
  d.multi_slr_clock_mhz = 147;
  // One SLR holds half of each resource less the 5 % headroom and the 10 % infrastructure
  // share (UG1393): floor(1,344 / 2 · 0.85) = 571 BRAM36, and so on.
  EXPECT_EQ(one_slr_usable(1344, 2, 5), 571);
  EXPECT_EQ(one_slr_usable(871680, 2, 5), 370464);
  EXPECT_EQ(one_slr_usable(871680, 2, 0), 392256);
  EXPECT_EQ(one_slr_usable(1344, 2, 95), 0);
  ResourceUse u;
  u.bram36 = 571;  // exactly what one SLR holds of every resource: the device's figure
  u.uram288 = 272;
  u.dsp = 2529;
  u.lut = 370464;
  u.ff = 740928;
  u.clock_mhz = 237.5;
  ClockEstimate c = achievable_clock(u, d, 5);
  EXPECT_EQ(c.mhz, 250);
  EXPECT_STREQ(c.device_pointer, "/clocks/achievable_mhz");
  EXPECT_EQ(c.basis(), "");
  EXPECT_TRUE(resource_overruns(u, d, 5).empty());
  // One BRAM36 more: the multi-SLR figure; with less headroom the same design fits one SLR.
  u.bram36 = 572;
  EXPECT_EQ(achievable_clock(u, d, 5).mhz, 147);
  EXPECT_EQ(achievable_clock(u, d, 0).mhz, 250);
  // Named by the resource furthest above what one SLR holds (BRAM36 769 / 571 = 1.35 beats
  // LUT 470k / 370k = 1.27).
  u.bram36 = 769;
  u.lut = 470000;
  c = achievable_clock(u, d, 5);
  EXPECT_EQ(c.mhz, 147);
  EXPECT_STREQ(c.device_pointer, "/clocks/multi_slr_mhz");
  EXPECT_EQ(c.basis(), "spans 2 SLRs: BRAM36 769 > 571 usable in one SLR");
  const auto over = resource_overruns(u, d, 5);
  ASSERT_EQ(over.size(), 1u);
  EXPECT_EQ(over[0].line(),
            "clock 237.5 MHz asked, 139.65 MHz usable (147 MHz achievable: spans 2 SLRs: BRAM36 769 > 571 usable in "
            "one SLR; the device at /clocks/multi_slr_mhz, 5 % headroom)");
  u.clock_mhz = 139.65;
  EXPECT_TRUE(resource_overruns(u, d, 5).empty());
  // A one-SLR device, or one that states no multi-SLR figure, keeps the device's figure.
  d.multi_slr_clock_mhz = 0;
  EXPECT_EQ(achievable_clock(u, d, 5).mhz, 250);
  d.multi_slr_clock_mhz = 147;
  d.slrs = 1;
  EXPECT_EQ(achievable_clock(u, d, 5).mhz, 250);
  // No achievable clock stated: nothing is checked.
  d.achievable_clock_mhz = 0;
  EXPECT_EQ(achievable_clock(u, d, 5).mhz, 0);
}

TEST(ResourceFit, ADeviceWithoutACardChecksNoPowerAndAnUnknownPowerIsNotChecked) {
  DeviceSpec d = u50_like();
  d.card_max_watts = 0;
  ResourceUse u;
  u.card_watts = 500;
  EXPECT_TRUE(resource_overruns(u, d, 5).empty());
  u.card_watts = 0;  // not known (a device without power coefficients)
  EXPECT_TRUE(resource_overruns(u, u50_like(), 5).empty());
  d.achievable_clock_mhz = 0;  // the device file states no achievable clock
  u.clock_mhz = 450;
  EXPECT_TRUE(resource_overruns(u, d, 5).empty());
}

TEST(ResourceFit, TheFfEstimateOverItsLimitIsNamed) {
  ResourceUse u;
  u.ff = 1656192;  // floor(1,743,360 · 0.95)
  EXPECT_TRUE(resource_overruns(u, u50_like(), 5).empty());
  u.ff = 1700000;
  const auto over = resource_overruns(u, u50_like(), 5);
  ASSERT_EQ(over.size(), 1u);
  EXPECT_EQ(over[0].line(), "FF 1,700,000 estimated, 1,656,192 usable (1,743,360 on the device at /resources/ff, 5 % headroom)");
}

TEST(ResourceFit, BlocksOverTheirLimitComeFirstInTheRuleOrder) {
  ResourceUse u;
  u.bram36 = 1345;
  u.lut = 900000;
  u.clock_mhz = 260;
  const auto over = resource_overruns(u, u50_like(), 5);
  ASSERT_EQ(over.size(), 3u);
  EXPECT_EQ(over[0].line(), "BRAM36 1,345 needed, 1,276 usable (1,344 on the device at /resources/bram36, 5 % headroom)");
  EXPECT_EQ(over[1].resource, "LUT");
  EXPECT_EQ(over[2].resource, "clock");
  EXPECT_THROW(resource_overruns(u, u50_like(), 100), std::invalid_argument);
}

}  // namespace
}  // namespace ttsim
