// The reference design in a systemc_pareto run: the closing stage evaluates every
// reference point with SystemC, its figures are exactly those of `ttsim simulate` on the
// same model, arch, device and length histogram (same calls as cli/simulate_cmd.cc), and
// summary.md / chosen.json state the fidelity of the figures compared.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "core/errors.h"
#include "core/json_lines.h"

#include "machine/machine.h"
#include "sim/baseline/baseline.h"
#include "sim/baseline/fpga_card.h"
#include "models/gpu/gpu_spec.h"
#include "sim/design_eval.h"

#include "core/atomic_file.h"
#include "dse/space/axes.h"
#include "dse/run/explore.h"
#include "dse/evaluate/resolve.h"
#include "dse/space/sweep_spec.h"
#include "dse/run_setup.h"
#include "models/dataset/dataset_lengths.h"
#include "models/model_spec.h"
#include "sim/epoch.h"
#include "hw/fpga_power.h"
#include "sim/step_power.h"
#include "sim/step_sim.h"
#include "tests/testing/tmp_dir.h"

namespace ttsim::dse {
namespace {

namespace fs = std::filesystem;

using ::ttsim::testing::tmp_dir;

std::string read_text(const std::string& file) {
  std::ifstream in(file);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(ExploreReference, SystemcReferenceReproducesSimulate) {
  const std::string dir = tmp_dir("ref_systemc");
  // Base lanes (64) are off the lanes axis, so the reference is an extra point, and the
  // 32-lane point dominates it on the one objective (fewer DSPs): it is off the front, so
  // only the reference step of the SystemC stage can give it SystemC figures.
  write_file_atomic(dir + "/sweep.json", R"({
    "name": "ref",
    "base": {"model": "configs/models/atis_2enc.json", "arch": "configs/arch/u50_paper.json",
             "device": "configs/devices/u50.json"},
    "dataset": {"lengths": "configs/datasets/atis_lengths.json", "split": "train"},
    "axes": {"encoders": [2], "lanes": [32]},
    "reference": [{"label": "paper design", "values": {"encoders": 2}}],
    "objectives": ["dsp"],
    "search": {"strategy": "grid"},
    "fidelity": "systemc_pareto"
  })");
  const auto setup = make_run_setup(dir + "/sweep.json");
  ExploreOptions o;
  o.out_dir = dir + "/out";
  o.control.threads = 1;
  const auto r = run_explore(*setup->eval, dir + "/sweep.json", o);
  ASSERT_EQ(r.outcome, ExploreOutcome::kComplete);
  ASSERT_EQ(r.final.references.size(), 1u);
  const ReferenceStanding& ref = r.final.references[0];
  ASSERT_TRUE(ref.evaluated);
  ASSERT_FALSE(ref.on_front);
  EXPECT_EQ(ref.fidelity, Fidelity::kSystemC);

  // What `ttsim simulate --model ... --arch ... --device ... --dataset-lengths ...` computes.
  const ModelSpec model = load_model_spec("configs/models/atis_2enc.json");
  const ArchSpec arch = load_arch_spec("configs/arch/u50_paper.json");
  const DeviceSpec device = load_device_spec("configs/devices/u50.json");
  const StepResult step = simulate_step(model, arch, device);
  const EpochResult epoch = simulate_epoch(
      model, arch, device,
      dataset::load_dataset_lengths("configs/datasets/atis_lengths.json").split("train"), step);
  const PowerBreakdown power = fpga_power(device, step_activity(step, arch, device));

  const std::vector<Json> points = load_json_lines(o.out_dir + "/results.jsonl");
  const Json* point = nullptr;
  for (const auto& p : points) {
    if (p.at("id").get<PointId>() == ref.id) point = &p;
  }
  ASSERT_NE(point, nullptr);
  EXPECT_EQ(point->at("fidelity"), "systemc");
  const Json& m = point->at("metrics");
  // u50_paper prices every sample at its own length: the step metric is the epoch's mean
  // step (simulate prints the 32-token step and the epoch).
  ASSERT_EQ(arch.sequence_length, SequenceLength::kEffective);
  EXPECT_EQ(m.at("step_cycles").get<double>(), static_cast<double>(epoch.cycles) / static_cast<double>(epoch.samples));
  EXPECT_EQ(m.at("epoch_seconds").get<double>(), epoch.seconds);
  // Hardware figures are the emitted build's (machine/machine.h), as `simulate` prints them.
  const machine::Machine mach = machine::describe(model, arch, device, step.graph());
  EXPECT_EQ(m.at("onchip_bytes").get<double>(), static_cast<double>(mach.onchip_bytes()));
  EXPECT_EQ(m.at("bram36").get<double>(), static_cast<double>(mach.bram36()));
  EXPECT_EQ(m.at("uram288").get<double>(), static_cast<double>(mach.uram288()));
  EXPECT_EQ(m.at("dsp").get<double>(), static_cast<double>(mach.dsp()));
  EXPECT_DOUBLE_EQ(m.at("power_total_watts").get<double>(), power.total_watts());
  EXPECT_DOUBLE_EQ(m.at("epoch_energy_joules").get<double>(), power.total_watts() * epoch.seconds);
  // The analytic figures (no port contention) are kept apart; on the sequential machine no
  // two tasks share a port, so they agree at every sample length (the one-token step's
  // position add is charged the one table row it reads, sim/sc_engine.h task_bank_traffic).
  EXPECT_EQ(point->at("analytic_metrics").at("epoch_seconds").get<double>(), epoch.seconds);

  const Json chosen = load_json_file(o.out_dir + "/chosen.json");
  EXPECT_EQ(chosen.at("references").at(0).at("fidelity"), "systemc");
  EXPECT_EQ(chosen.at("references").at(0).at("metrics").at("epoch_seconds").get<double>(), epoch.seconds);

  const std::string summary = read_text(o.out_dir + "/summary.md");
  const std::string line = summary.substr(summary.find("- **paper design**"));
  EXPECT_NE(line.find(fmt::format("SystemC dsp {:.0f}", m.at("dsp").get<double>())), std::string::npos) << line;
  EXPECT_NE(line.find("analytic model (no port contention): dsp"), std::string::npos) << line;
  // The paper design fits by the one fit rule (hw/resource_fit.h), LUT estimate included.
  EXPECT_EQ(line.find("infeasible"), std::string::npos) << line;
  // Without the extra-outputs hook only the core files are written, and only they are listed.
  EXPECT_EQ(summary.find("hls_build"), std::string::npos);
  EXPECT_EQ(r.files, (std::vector<std::string>{"results.csv", "results.jsonl", "results.json", "pareto.csv",
                                                "chosen.json", "summary.md"}));
  EXPECT_EQ(chosen.at("name"), "atis_2enc-32lanes");
}

// configs/arch/u50_unit_lanes.json is what its sweep chooses: the fastest feasible point of
// configs/sweeps/atis_u50_unit_lanes.json is that arch (its every setting; the sweep prices the
// padded step, the arch file the samples' own lengths as the other shipped archs).
TEST(ExploreReference, TheUnitLanesSweepChoosesTheUnitLanesArch) {
  const std::string dir = tmp_dir("unit_lanes");
  const std::string sweep = "configs/sweeps/atis_u50_unit_lanes.json";
  const auto setup = make_run_setup(sweep);
  ExploreOptions o;
  o.out_dir = dir + "/out";
  const auto r = run_explore(*setup->eval, sweep, o);
  ASSERT_EQ(r.outcome, ExploreOutcome::kComplete);
  const Json chosen = load_json_file(o.out_dir + "/chosen.json");
  ASSERT_TRUE(chosen.at("id").is_number()) << chosen.dump();
  EXPECT_EQ(chosen.at("why").get<std::string>().rfind("feasible under every constraint", 0), 0u);
  ArchSpec want = load_arch_spec("configs/arch/u50_unit_lanes.json");
  ArchSpec got = parse_arch_spec(chosen.at("configs").at("arch"), o.out_dir + "/chosen.json");
  EXPECT_EQ(got.sequence_length, SequenceLength::kPadded);
  want.sequence_length = got.sequence_length;
  want.name = got.name;
  want.source_file = got.source_file;
  for (int k = 0; k < kUnitKinds; ++k) EXPECT_EQ(got.units[k].lanes, want.units[k].lanes) << "unit " << k;
  EXPECT_TRUE(got == want) << "chosen " << got.to_json().dump() << "\nfile   " << want.to_json().dump();
}

// Points the sweep could not evaluate (here the 16-lane contraction beside 16-lane units on a
// dual-port base: /contraction/lanes_per_bank) are counted apart in summary.md.
TEST(ExploreReference, PointsNotEvaluatedAreCounted) {
  const std::string dir = tmp_dir("not_evaluated");
  write_file_atomic(dir + "/sweep.json", R"({
    "name": "not_evaluated",
    "base": {"model": "configs/models/atis_2enc.json", "arch": "configs/arch/u50_dual_port.json",
             "device": "configs/devices/u50.json"},
    "axes": {"lanes": [16, 128]},
    "objectives": ["dsp"],
    "search": {"strategy": "grid"},
    "fidelity": "analytic"
  })");
  const auto setup = make_run_setup(dir + "/sweep.json");
  ExploreOptions o;
  o.out_dir = dir + "/out";
  const auto r = run_explore(*setup->eval, dir + "/sweep.json", o);
  ASSERT_EQ(r.outcome, ExploreOutcome::kComplete);
  EXPECT_EQ(r.final.evaluated, 2u);
  EXPECT_EQ(r.final.failed, 1u);
  EXPECT_EQ(r.final.feasible, 1u);
  const std::string summary = read_text(o.out_dir + "/summary.md");
  EXPECT_NE(summary.find("- evaluated: 2 points (1 feasible, 1 not evaluated: results.csv gives each one's reason)"),
            std::string::npos)
      << summary;
}

/// Writes `doc` as the base `role` file ("model", "arch" or "device") into `dir`, and a
/// two-point sweep over it with the shipped files for the other roles; returns the sweep's path.
std::string sweep_with_base(const std::string& dir, const std::string& role, const Json& doc) {
  write_file_atomic(dir + "/" + role + ".json", doc.dump(2));
  auto path = [&](const std::string& r, const char* shipped) { return r == role ? dir + "/" + r + ".json" : std::string(shipped); };
  write_file_atomic(dir + "/sweep.json", R"({
    "name": "edited_base",
    "base": {"model": ")" + path("model", "configs/models/atis_2enc.json") + R"(", "arch": ")" +
                                 path("arch", "configs/arch/u50_paper.json") + R"(",
             "device": ")" + path("device", "configs/devices/u50.json") + R"("},
    "axes": {"lanes": [16, 32]},
    "objectives": ["dsp"],
    "search": {"strategy": "grid"}
  })");
  return dir + "/sweep.json";
}

// `simulate`, `explore` and `baseline` answer "does u50_paper fit" by the one rule: on the U50
// all three say yes; on a device file with fewer LUTs than the design's estimate, all three
// say no, naming the LUT limit.
TEST(ExploreReference, SimulateExploreAndBaselineAgreeWhetherTheReferenceFits) {
  const ModelSpec model = load_model_spec("configs/models/atis_2enc.json");
  const ArchSpec arch = load_arch_spec("configs/arch/u50_paper.json");
  const dataset::LengthHistogram split =
      dataset::load_dataset_lengths("configs/datasets/atis_lengths.json").split("train");
  const GpuSpec gpu = load_gpu_spec("configs/devices/rtx3090.json");
  const FpgaCardSpec card = load_fpga_card_spec("configs/devices/u50_card.json");
  const Json u50 = load_json_file("configs/devices/u50.json");
  const double luts = evaluate_design(model, arch, load_device_spec("configs/devices/u50.json"), nullptr)->luts;
  for (const bool small : {false, true}) {
    const std::string dir = tmp_dir(small ? "fit_rule_small" : "fit_rule_u50");
    Json dev = u50;
    // 5 % headroom: a device of luts / 0.97 LUTs leaves about 0.92 · luts usable.
    if (small) dev["resources"]["lut"] = static_cast<std::int64_t>(luts / 0.97);
    write_file_atomic(dir + "/device.json", dev.dump(2));
    const DeviceSpec device = load_device_spec(dir + "/device.json");

    const auto sim = evaluate_design(model, arch, device, &split);
    const BaselineResult base = run_baseline(model, arch, device, gpu, card, split);
    write_file_atomic(dir + "/sweep.json", Json{{"name", "fit"},
                                                {"base", {{"model", fs::absolute("configs/models/atis_2enc.json")},
                                                          {"arch", fs::absolute("configs/arch/u50_paper.json")},
                                                          {"device", dir + "/device.json"}}},
                                                {"dataset", {{"lengths", fs::absolute("configs/datasets/atis_lengths.json")},
                                                             {"split", "train"}}},
                                                {"axes", {{"encoders", {2}}}},
                                                // 4 %: explore applies its sweep's headroom
                                                // (the others 5 %; the verdicts here do not
                                                // depend on the difference) and says so.
                                                {"constraints", {{"resource_headroom_pct", 4}}},
                                                {"objectives", {"epoch_seconds"}},
                                                {"search", {{"strategy", "grid"}}},
                                                {"fidelity", "analytic"}}
                                              .dump(2));
    const auto setup = make_run_setup(dir + "/sweep.json");
    ExploreOptions o;
    o.out_dir = dir + "/out";
    o.control.threads = 1;
    run_explore(*setup->eval, dir + "/sweep.json", o);
    const std::vector<Json> points = load_json_lines(o.out_dir + "/results.jsonl");
    ASSERT_EQ(points.size(), 1u);
    const bool explore_fits = points[0].at("feasible").get<bool>();
    const Json results = load_json_file(o.out_dir + "/results.json");
    EXPECT_EQ(results.at("defaults_used").at(0).at("fit_rule").at("resource_headroom_pct").at("value").get<double>(), 4);

    EXPECT_EQ(sim->over_device.empty(), !small) << (small ? "small" : "u50");
    EXPECT_EQ(explore_fits, !small) << points[0].dump();
    EXPECT_EQ(base.fpga_over_device.empty(), !small);
    if (small) {
      EXPECT_NE(sim->over_device.at(0).find("LUT "), std::string::npos) << sim->over_device.at(0);
      EXPECT_EQ(base.fpga_over_device, sim->over_device);
      // The same LUT figure over its limit ("LUT 717,712 estimated, ..."; explore's usable
      // count is its own headroom's).
      const std::string& line = sim->over_device.at(0);
      EXPECT_NE(points[0].at("reason").get<std::string>().find(line.substr(0, line.find(" estimated") + 10)), std::string::npos)
          << points[0].dump();
      EXPECT_NE(points[0].at("reason").get<std::string>().find("4 % headroom"), std::string::npos) << points[0].dump();
    }
  }
}

// The clock and card-power limits of the fit rule (hw/resource_fit.h): explore of u50_paper
// at 100, 200 and 300 MHz on the U50 (card limit 72 W less 5 %) gives each point its clock,
// its achievable clock with what sets it (u50_paper is above one SLR's share of LUTs, so the
// multi-SLR figure, 147 MHz, not the device's 250 MHz) and the operator latencies it was
// priced with; 200 MHz is infeasible by the clock, 300 MHz by both limits, with the lines
// `simulate` (evaluate_design) and `baseline` give; the card figure is the card's idle draw
// plus the dynamic power simulate prints.
TEST(ExploreReference, AClockAboveTheAchievableOrACardPowerOverTheLimitIsInfeasibleEverywhere) {
  const ModelSpec model = load_model_spec("configs/models/atis_2enc.json");
  const dataset::LengthHistogram split =
      dataset::load_dataset_lengths("configs/datasets/atis_lengths.json").split("train");
  const std::string dir = tmp_dir("clock_and_card");
  // The U50 with a 56 W card (53.2 W usable): the reference at 300 MHz (about 56.7 W) is over
  // it, at 200 MHz (about 43.6 W) within.
  Json dev = load_json_file("configs/devices/u50.json");
  dev["card"]["max_watts"] = 56;
  const std::string device_file = dir + "/u50_56w.json";
  write_file_atomic(device_file, dev.dump(2));
  const DeviceSpec device = load_device_spec(device_file);
  ASSERT_EQ(device.achievable_clock_mhz, 250);
  ASSERT_EQ(device.multi_slr_clock_mhz, 147);
  ASSERT_EQ(device.card_max_watts, 56);
  Json card_json = load_json_file("configs/devices/u50_card.json");  // baseline's card file agrees with it
  card_json["constants"]["card_max_watts"]["value"] = 56;
  write_file_atomic(dir + "/u50_card_56w.json", card_json.dump(2));
  write_file_atomic(dir + "/sweep.json", Json{{"name", "clock"},
                                              {"base", {{"model", fs::absolute("configs/models/atis_2enc.json")},
                                                        {"arch", fs::absolute("configs/arch/u50_paper.json")},
                                                        {"device", fs::absolute(device_file)}}},
                                              {"dataset", {{"lengths", fs::absolute("configs/datasets/atis_lengths.json")},
                                                           {"split", "train"}}},
                                              {"axes", {{"clock_mhz", {100, 200, 300}}}},
                                              {"objectives", {"epoch_seconds"}},
                                              {"search", {{"strategy", "grid"}}},
                                              {"fidelity", "analytic"}}
                                            .dump(2));
  const auto setup = make_run_setup(dir + "/sweep.json");
  ExploreOptions o;
  o.out_dir = dir + "/out";
  o.control.threads = 1;
  run_explore(*setup->eval, dir + "/sweep.json", o);
  const std::vector<Json> points = load_json_lines(o.out_dir + "/results.jsonl");
  ASSERT_EQ(points.size(), 3u);
  const GpuSpec gpu = load_gpu_spec("configs/devices/rtx3090.json");
  const FpgaCardSpec card = load_fpga_card_spec(dir + "/u50_card_56w.json");
  const std::map<double, int> fadd = {{100, 3}, {200, 4}, {300, 6}};
  const std::map<double, int> fexp = {{100, 7}, {200, 12}, {300, 13}};
  for (const Json& p : points) {
    const double mhz = p.at("clock").at("mhz").get<double>();
    EXPECT_EQ(p.at("metrics").at("kernel_clock_mhz").get<double>(), mhz);
    EXPECT_EQ(p.at("clock").at("achievable_mhz").get<double>(), 147);
    const std::string basis = p.at("clock").at("achievable_basis").get<std::string>();
    // The reference's LUT estimate (554,122 of 370,464) is the share of one SLR furthest over
    // (its URAM288, 384 of 272, is over too).
    EXPECT_EQ(basis.rfind("/clocks/multi_slr_mhz: spans 2 SLRs: LUT (estimated) 554,122 > 370,464 usable in one SLR",
                          0),
              0u)
        << basis;
    EXPECT_EQ(p.at("clock").at("operator_latencies").at("fadd").get<int>(), fadd.at(mhz)) << p.dump();
    EXPECT_EQ(p.at("clock").at("operator_latencies").at("fexp").get<int>(), fexp.at(mhz)) << p.dump();
    ArchSpec arch = load_arch_spec("configs/arch/u50_paper.json");
    arch.clock_mhz = mhz;
    const auto sim = evaluate_design(model, arch, device, &split);
    EXPECT_NEAR(machine::card_watts(sim->machine(), sim->luts, mhz, device),
                device.card_idle_watts + sim->power->dynamic_watts(), 1e-9);
    const BaselineResult base = run_baseline(model, arch, device, gpu, card, split);
    EXPECT_EQ(base.fpga_over_device, sim->over_device);
    EXPECT_EQ(p.at("feasible").get<bool>(), mhz < 139.65) << p.dump();
    EXPECT_EQ(sim->over_device.empty(), mhz < 139.65);
    const std::string clock_line = fmt::format(
        "clock {:g} MHz asked, 139.65 MHz usable (147 MHz achievable: spans 2 SLRs: LUT (estimated) ", mhz);
    if (mhz == 200) {
      ASSERT_EQ(sim->over_device.size(), 1u);
      EXPECT_EQ(sim->over_device.at(0).rfind(clock_line, 0), 0u) << sim->over_device.at(0);
      EXPECT_NE(sim->over_device.at(0).find(" 554,122 > 370,464 usable in one SLR; the device at "
                                            "/clocks/multi_slr_mhz, 5 % headroom)"),
                std::string::npos)
          << sim->over_device.at(0);
      EXPECT_NE(p.at("reason").get<std::string>().find(sim->over_device.at(0)), std::string::npos) << p.dump();
    }
    if (mhz == 300) {
      ASSERT_EQ(sim->over_device.size(), 2u);
      EXPECT_EQ(sim->over_device.at(0).rfind("card power ", 0), 0u) << sim->over_device.at(0);
      EXPECT_NE(sim->over_device.at(0).find(" W needed, 53.2 W usable (56 W on the device at /card/max_watts, 5 % "
                                            "headroom)"),
                std::string::npos)
          << sim->over_device.at(0);
      EXPECT_EQ(sim->over_device.at(1).rfind(clock_line, 0), 0u) << sim->over_device.at(1);
      for (const std::string& line : sim->over_device) {
        EXPECT_NE(p.at("reason").get<std::string>().find(line), std::string::npos) << p.dump();
      }
    }
  }
}

TEST(ExploreReference, AnUnbuildableBaseArchIsRefusedBeforeAnyWork) {
  // A base arch asking for two contraction engines: the emitted top builds one instance per
  // module, so the run is refused at the arch file's pointer before any point is evaluated.
  const std::string dir = tmp_dir("ref_unbuildable");
  Json arch = load_json_file("configs/arch/u50_paper.json");
  arch["contraction"]["engines"] = 2;
  const std::string sweep = sweep_with_base(dir, "arch", arch);
  try {
    make_run_setup(sweep);
    FAIL() << "an unbuildable base arch was accepted";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("/contraction/engines"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("arch.json"), std::string::npos) << e.what();
  }
}

TEST(ExploreReference, ABaseModelItsLoaderRefusesIsRefusedBeforeAnyWork) {
  // A base model with a member the model loader does not know: refused at the model file's
  // pointer before any point is evaluated (not every point "not evaluated").
  const std::string dir = tmp_dir("ref_bad_model");
  Json model = load_json_file("configs/models/atis_2enc.json");
  model["bogus_key"] = 3;
  const std::string sweep = sweep_with_base(dir, "model", model);
  try {
    make_run_setup(sweep);
    FAIL() << "a base model its loader refuses was accepted";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.file(), dir + "/model.json") << e.what();
    EXPECT_EQ(e.pointer(), "/bogus_key") << e.what();
  }
}

TEST(ExploreReference, PerLayerRankAxesComeBeforeTheArchAxesAndOlderRunsNumberedOtherwiseAreRefused) {
  // The point ids vary the lanes fastest, the per-layer ranks before them (consecutive points
  // differ in prices only); a run folder of the older numbering (ranks fastest: a format-2
  // state, which records no axis order) is refused on resume rather than read with ids that
  // name other designs.
  const std::string dir = tmp_dir("numbering");
  write_file_atomic(dir + "/sweep.json", R"({
    "name": "numbering",
    "base": {"model": "configs/models/atis_2enc.json", "arch": "configs/arch/u50_paper.json",
             "device": "configs/devices/u50.json"},
    "axes": {"lanes": [16, 32], "tt_rank.enc0.ffn_in": [4, 8]},
    "objectives": ["dsp"],
    "search": {"strategy": "grid"},
    "fidelity": "analytic"
  })");
  auto setup = make_run_setup(dir + "/sweep.json");
  const auto& axes = setup->sweep.space.axes();
  ASSERT_EQ(axes.size(), 2u);
  EXPECT_EQ(axes[0].name, "tt_rank.enc0.ffn_in");
  EXPECT_EQ(axes[1].name, "lanes");
  EXPECT_EQ(legacy_axis_order({"tt_rank.enc0.ffn_in", "lanes"}),
            (std::vector<std::string>{"lanes", "tt_rank.enc0.ffn_in"}));
  ExploreOptions o;
  o.out_dir = dir + "/run";
  ASSERT_EQ(run_explore(*setup->eval, dir + "/sweep.json", o).outcome, ExploreOutcome::kComplete);
  Json state = load_json_file(o.out_dir + "/state.json");
  EXPECT_EQ(state.at("format"), "ttsim-explore-state-3");
  EXPECT_EQ(state.at("axes"), Json::array({"tt_rank.enc0.ffn_in", "lanes"}));
  // As an older ttsim wrote it.
  state["format"] = "ttsim-explore-state-2";
  state.erase("axes");
  write_file_atomic(o.out_dir + "/state.json", state.dump(1));
  o.resume = true;
  try {
    run_explore(*setup->eval, dir + "/sweep.json", o);
    FAIL() << "a run numbered in the older axis order was resumed";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("number the axes in the order lanes, tt_rank.enc0.ffn_in"),
              std::string::npos)
        << e.what();
  }
}

TEST(ExploreReference, ABaseNameTheEmittedBuildCannotCarryIsRefusedBeforeAnyWork) {
  // The device's name is written into the emitted build at the end of the run: a name with
  // a space is refused at the device file's /name before any point is evaluated.
  const std::string dir = tmp_dir("ref_bad_name");
  Json device = load_json_file("configs/devices/u50.json");
  device["name"] = "a b";
  const std::string sweep = sweep_with_base(dir, "device", device);
  try {
    make_run_setup(sweep);
    FAIL() << "a device name the emitted build cannot carry was accepted";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.file(), dir + "/device.json") << e.what();
    EXPECT_EQ(e.pointer(), "/name") << e.what();
  }
}

TEST(ExploreReference, ResolvedPointsHaveDescriptiveNames) {
  const SweepSpec sweep = load_sweep_spec("configs/sweeps/atis_u50.json");
  auto id_of = [&](const Json& values) {
    std::vector<int> idx;
    for (const auto& a : sweep.space.axes()) {
      const auto& vs = a.values;
      idx.push_back(static_cast<int>(std::find(vs.begin(), vs.end(), values.at(a.name)) - vs.begin()));
    }
    return sweep.space.encode(idx);
  };
  // clock_mhz has one value: no token; encoders rewrites the model name's "2enc".
  EXPECT_EQ(point_name(sweep, id_of({{"encoders", 2}, {"tt_rank", 4}, {"flow", "btt"}, {"lanes", 4},
                                     {"lanes_per_bank", 1}, {"nonlinear_lanes", 8}, {"recompute", "btt_merges"},
                                     {"clock_mhz", 100}})),
            "atis_2enc-r4-btt-4lanes-8nonlinear_lanes-merges_recomputed");
  // Dual-port lanes are named; one lane per bank (the default layout) is not.
  EXPECT_EQ(point_name(sweep, id_of({{"encoders", 2}, {"tt_rank", 4}, {"flow", "btt"}, {"lanes", 128},
                                     {"lanes_per_bank", 2}, {"nonlinear_lanes", 16}, {"recompute", "none"},
                                     {"clock_mhz", 100}})),
            "atis_2enc-r4-btt-128lanes-dual_port_lanes-16nonlinear_lanes-all_kept");
  EXPECT_EQ(point_name(sweep, id_of({{"encoders", 4}, {"tt_rank", 12}, {"flow", "tt"}, {"lanes", 16},
                                     {"lanes_per_bank", 1}, {"nonlinear_lanes", 4}, {"recompute", "none"},
                                     {"clock_mhz", 100}})),
            "atis_4enc-r12-tt-16lanes-4nonlinear_lanes-all_kept");
  // The reference point is the grid point of the base files' values (paper design: the base
  // arch says recompute "none"), so it has that point's name.
  EXPECT_EQ(point_name(sweep, sweep.space.references().front()), "atis_2enc-r12-btt-64lanes-8nonlinear_lanes-all_kept");
  EXPECT_EQ(sweep.space.references().front(),
            id_of({{"encoders", 2}, {"tt_rank", 12}, {"flow", "btt"}, {"lanes", 64}, {"lanes_per_bank", 1},
                   {"nonlinear_lanes", 8}, {"recompute", "none"}, {"clock_mhz", 100}}));
}

}  // namespace
}  // namespace ttsim::dse
