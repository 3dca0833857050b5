// `explore --calibration`: the calibration is applied to every point (kernel parameters
// and power coefficients), refused for another part or any clock of the sweep exactly
// as `simulate --calibration` refuses it, recorded in results.json and state.json, and a
// resumed run must use the same one.
#include <filesystem>

#include <gtest/gtest.h>

#include "core/atomic_file.h"
#include "core/json_lines.h"
#include "dse/run/explore.h"
#include "dse/evaluate/resolve.h"
#include "dse/run_setup.h"
#include "hw/calibration.h"
#include "sim/design_eval.h"
#include "tests/testing/tmp_dir.h"

namespace ttsim::dse {
namespace {

namespace fs = std::filesystem;

using ::ttsim::testing::tmp_dir;

Calibration calibration(const std::string& file, const std::string& part, double clock_ns) {
  Calibration c;
  c.file = file;
  c.tool_version = "2023.2";
  c.part = part;
  c.target_clock_ns = clock_ns;
  c.arch = "u50_paper";
  c.device = "u50";
  c.model = "atis_2enc";
  c.reports = {"synthetic/csynth.xml"};
  KernelFitRecord k;
  k.module = "ttsim_contraction";
  k.lanes = 64;
  k.params.overhead = 400;  // far above the arch file's 16: visible in every point's cycles
  k.samples = 2;
  k.reports = c.reports;
  c.kernels[TaskOp::kContraction] = k;
  PowerFitRecord p;
  p.static_watts = 3.5;
  p.reports = {"synthetic/power.rpt"};
  c.power = p;
  write_calibration(file, c);
  return c;
}

std::string sweep_file(const std::string& dir, const std::string& clocks,
                       const std::string& name = "sweep.json") {
  write_file_atomic(dir + "/" + name, R"({
    "name": "calibrated",
    "base": {"model": "configs/models/atis_2enc.json", "arch": "configs/arch/u50_paper.json",
             "device": "configs/devices/u50.json"},
    "dataset": {"lengths": "configs/datasets/atis_lengths.json", "split": "train"},
    "axes": {"lanes": [32, 64], "clock_mhz": )" + clocks + R"(},
    "objectives": ["epoch_seconds", "epoch_energy_joules"],
    "search": {"strategy": "grid"},
    "fidelity": "analytic"
  })");
  return dir + "/" + name;
}

TEST(ExploreCalibration, AppliedToEveryPointAndRecorded) {
  const std::string dir = tmp_dir("cal_applied");
  const std::string sweep = sweep_file(dir, "[100]");
  calibration(dir + "/cal.json", "xcu50-fsvh2104-2-e", 10.0);
  const auto plain = make_run_setup(sweep);
  const auto cal = make_run_setup(sweep, dir + "/cal.json");
  for (PointId id = 0; id < 2; ++id) {
    const Evaluation a = plain->eval->evaluate(id, Fidelity::kAnalytic, false);
    const Evaluation b = cal->eval->evaluate(id, Fidelity::kAnalytic, false);
    ASSERT_TRUE(a.error.empty() && b.error.empty()) << a.error << b.error;
    EXPECT_GT(b.metrics[Metric::kStepCycles], a.metrics[Metric::kStepCycles]);  // contraction overhead
    EXPECT_DOUBLE_EQ(b.metrics[Metric::kPowerStaticWatts], 3.5);                 // fitted static power
    EXPECT_NE(a.metrics[Metric::kPowerStaticWatts], 3.5);
    const Evaluation s = cal->eval->evaluate(id, Fidelity::kSystemC, false);  // SystemC sees it too
    ASSERT_TRUE(s.error.empty()) << s.error;
    EXPECT_GE(s.metrics[Metric::kStepCycles], b.metrics[Metric::kStepCycles]);
    EXPECT_DOUBLE_EQ(s.metrics[Metric::kPowerStaticWatts], 3.5);
  }
  ExploreOptions o;
  o.out_dir = dir + "/out";
  ASSERT_EQ(run_explore(*cal->eval, sweep, o).outcome, ExploreOutcome::kComplete);
  const Json results = load_json_file(o.out_dir + "/results.json");
  EXPECT_EQ(results["calibration"]["file"], dir + "/cal.json");
  EXPECT_EQ(results["calibration"]["part"], "xcu50-fsvh2104-2-e");
  EXPECT_EQ(results["calibration"]["kernels"], Json::array({"contraction"}));
  EXPECT_EQ(results["calibration"]["power_fitted"], Json::array({"static_watts"}));
  for (const auto& p : load_json_lines(o.out_dir + "/results.jsonl")) {
    EXPECT_DOUBLE_EQ(p["power_watts"]["static"].get<double>(), 3.5);
    EXPECT_GT(p["energy_joules_per_epoch"].get<double>(), 0);
  }
  EXPECT_EQ(load_json_file(o.out_dir + "/state.json")["calibration"], results["calibration"]);
  // defaults_used lists the figures the points were priced with: the fitted power.
  ASSERT_EQ(results["defaults_used"].size(), 1u);
  EXPECT_DOUBLE_EQ(results["defaults_used"][0]["device"]["power"]["static_watts"].get<double>(), 3.5);
  // Resuming without the calibration (or with another) is refused.
  o.resume = true;
  EXPECT_THROW(run_explore(*plain->eval, sweep, o), InputError);
  EXPECT_NO_THROW(run_explore(*cal->eval, sweep, o));
}

std::string refusal(const std::string& sweep, const std::string& cal) {
  try {
    make_run_setup(sweep, cal);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(ExploreCalibration, RefusesAnotherPartOrClockAsSimulateDoes) {
  const std::string dir = tmp_dir("cal_refused");
  const Calibration other_part = calibration(dir + "/part.json", "xcu280-fsvh2892-2L-e", 10.0);
  const Calibration at_125 = calibration(dir + "/clk.json", "xcu50-fsvh2104-2-e", 8.0);
  calibration(dir + "/ok.json", "xcu50-fsvh2104-2-e", 10.0);
  const std::string at100 = sweep_file(dir, "[100]");

  // The same message `simulate --calibration` gives (check_calibration_matches).
  ArchSpec arch = load_arch_spec("configs/arch/u50_paper.json");
  DeviceSpec device = load_device_spec("configs/devices/u50.json");
  std::string expected;
  try {
    check_calibration_matches(other_part, arch, device);
  } catch (const InputError& e) {
    expected = e.what();
  }
  ASSERT_FALSE(expected.empty());
  EXPECT_EQ(refusal(at100, dir + "/part.json"), expected);
  EXPECT_NE(refusal(at100, dir + "/clk.json").find("refusing to apply it"), std::string::npos);

  // A sweep over 100 and 125 MHz cannot use a 100 MHz calibration, nor a 125 MHz one.
  const std::string both = sweep_file(dir, "[100, 125]", "both.json");
  EXPECT_NE(refusal(both, dir + "/ok.json").find("125 MHz"), std::string::npos);
  EXPECT_NE(refusal(both, dir + "/clk.json").find("100 MHz"), std::string::npos);
  EXPECT_EQ(refusal(at100, dir + "/ok.json"), "");
  (void)at_125;
}

TEST(ExploreCalibration, ClocksOfTheSweep) {
  const std::string dir = tmp_dir("cal_clocks");
  EXPECT_EQ(sweep_clocks_mhz(load_sweep_spec(sweep_file(dir, "[125, 100]"))), (std::vector<double>{100, 125}));
  write_file_atomic(dir + "/noclock.json", R"({
    "name": "noclock",
    "base": {"model": "configs/models/atis_2enc.json", "arch": "configs/arch/u50_paper.json",
             "device": "configs/devices/u50.json"},
    "axes": {"lanes": [32, 64]},
    "objectives": ["epoch_seconds"], "fidelity": "analytic"
  })");
  EXPECT_EQ(sweep_clocks_mhz(load_sweep_spec(dir + "/noclock.json")), (std::vector<double>{100}));
}

// A calibration whose reports missed timing: explore runs every point at the achievable
// clock, as `simulate --calibration` does (same epoch seconds as evaluate_design on the
// arch apply_calibration returns).
TEST(ExploreCalibration, RunsAtTheAchievableClockAsSimulateDoes) {
  const std::string dir = tmp_dir("cal_achievable");
  Calibration c = calibration(dir + "/cal.json", "xcu50-fsvh2104-2-e", 10.0);
  c.achievable_clock_ns = 12.5;  // 80 MHz
  write_calibration(dir + "/cal.json", c);
  write_file_atomic(dir + "/one.json", R"({
    "name": "achievable",
    "base": {"model": "configs/models/atis_2enc.json", "arch": "configs/arch/u50_paper.json",
             "device": "configs/devices/u50.json"},
    "dataset": {"lengths": "configs/datasets/atis_lengths.json", "split": "train"},
    "axes": {"clock_mhz": [100]},
    "objectives": ["epoch_seconds"], "search": {"strategy": "grid"}, "fidelity": "analytic"
  })");
  const auto setup = make_run_setup(dir + "/one.json", dir + "/cal.json");
  const Evaluation explored = setup->eval->evaluate(0, Fidelity::kSystemC, false);
  ASSERT_TRUE(explored.error.empty()) << explored.error;

  // What `simulate --calibration` computes for the same design.
  ArchSpec arch = load_arch_spec("configs/arch/u50_paper.json");
  DeviceSpec device = load_device_spec("configs/devices/u50.json");
  apply_calibration(load_calibration(dir + "/cal.json"), arch, device);
  ASSERT_DOUBLE_EQ(arch.clock_mhz, 80.0);
  const auto lengths = dataset::load_dataset_lengths("configs/datasets/atis_lengths.json");
  const auto simulated =
      evaluate_design(load_model_spec("configs/models/atis_2enc.json"), arch, device, &lengths.split("train"));
  ASSERT_TRUE(simulated->epoch.has_value());
  EXPECT_DOUBLE_EQ(explored.metrics[Metric::kEpochSeconds], simulated->epoch->seconds);

  // The analytic fidelity prices the same clock: its seconds are its cycles at 80 MHz.
  const Evaluation analytic = setup->eval->evaluate(0, Fidelity::kAnalytic, false);
  ASSERT_TRUE(analytic.error.empty()) << analytic.error;
  const auto uncal = make_run_setup(dir + "/one.json");
  const Evaluation at_target = uncal->eval->evaluate(0, Fidelity::kAnalytic, false);
  EXPECT_GT(analytic.metrics[Metric::kEpochSeconds], at_target.metrics[Metric::kEpochSeconds]);
}

}  // namespace
}  // namespace ttsim::dse
