// Arch config loading, validation errors and the DSP accounting of the presets.

#include <gtest/gtest.h>

#include "core/errors.h"
#include "sim/arch_spec.h"
#include "sim/device_spec.h"

namespace ttsim {
namespace {

TEST(ArchSpec, PaperPresetLoadsAndRoundTrips) {
  ArchSpec a = load_arch_spec("configs/arch/u50_paper.json");
  EXPECT_EQ(a.clock_mhz, 100);
  EXPECT_EQ(a.policy, SchedulePolicy::kParallel);
  EXPECT_TRUE(a.qkv_reschedule);
  EXPECT_EQ(a.flow_by_kind.at("attention"), Flow::kBTT);
  ArchSpec b = parse_arch_spec(a.to_json(), "roundtrip");
  EXPECT_EQ(b.to_json(), a.to_json());
}

TEST(ArchSpec, PresetsUseDspInsideTheReferenceBand) {
  const DeviceSpec u50 = load_device_spec("configs/devices/u50.json");
  for (const char* f : {"configs/arch/u50_paper.json", "configs/arch/u50_tt_sequential.json",
                        "configs/arch/u50_mm_baseline.json"}) {
    const ArchSpec a = load_arch_spec(f);
    const double share = static_cast<double>(arch_dsp(a, u50)) / u50.dsp;
    EXPECT_GE(share, 0.40) << f;
    EXPECT_LE(share, 0.67) << f;
  }
}

TEST(ArchSpec, DspPerLaneComesFromTheDeviceOperators) {
  const DeviceSpec u50 = load_device_spec("configs/devices/u50.json");
  EXPECT_EQ(dsp_per_lane(UnitKind::kContraction, u50), u50.op("fmul").dsp + u50.op("fadd").dsp);
  EXPECT_EQ(dsp_per_lane(UnitKind::kElementwise, u50), u50.op("fadd").dsp);
}

Json paper_json() {
  return load_json_file("configs/arch/u50_paper.json");
}

TEST(ArchSpec, ErrorsNameFilePointerExpectedAndFound) {
  Json j = paper_json();
  j["contraction"]["lanes"] = 0;
  try {
    parse_arch_spec(j, "a.json");
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.file(), "a.json");
    EXPECT_EQ(e.pointer(), "/contraction/lanes");
  }
  j = paper_json();
  j["scheduling"]["policy"] = "greedy";
  EXPECT_THROW(parse_arch_spec(j, "a.json"), ConfigError);
  j = paper_json();
  j["flows"]["attention"] = "ttm";
  EXPECT_THROW(parse_arch_spec(j, "a.json"), ConfigError);
  j = paper_json();
  j["sequence_length"] = "32";
  EXPECT_THROW(parse_arch_spec(j, "a.json"), ConfigError);
  j = paper_json();
  j["nonlinear"]["dropout"] = j["nonlinear"]["gelu"];
  try {
    parse_arch_spec(j, "a.json");
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.pointer(), "/nonlinear/dropout");
  }
  j = paper_json();
  j["nonlinear"].erase("loss");
  EXPECT_THROW(parse_arch_spec(j, "a.json"), ConfigError);
}

}  // namespace
}  // namespace ttsim
