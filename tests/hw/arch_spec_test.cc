// Arch config loading, validation errors and the DSP accounting of the presets.

#include <optional>

#include <gtest/gtest.h>

#include "core/errors.h"
#include "hw/arch_spec.h"
#include "hw/device_spec.h"

namespace ttsim {
namespace {

/// The ConfigError parse_arch_spec raises for `j` (as file "a.json"), or none.
std::optional<ConfigError> refusal(const Json& j) {
  try {
    parse_arch_spec(j, "a.json");
  } catch (const ConfigError& e) {
    return e;
  }
  return std::nullopt;
}

TEST(ArchSpec, PaperPresetLoadsAndRoundTrips) {
  ArchSpec a = load_arch_spec("configs/arch/u50_paper.json");
  EXPECT_EQ(a.clock_mhz, 100);
  // What the emitted top builds: one call at a time, one instance per module.
  EXPECT_EQ(a.policy, SchedulePolicy::kSequential);
  EXPECT_FALSE(a.qkv_reschedule);
  EXPECT_EQ(a.unit(UnitKind::kContraction).count, 1);
  EXPECT_EQ(a.flow_by_kind.at("attention"), Flow::kBTT);
  ArchSpec b = parse_arch_spec(a.to_json(), "roundtrip");
  EXPECT_EQ(b.to_json(), a.to_json());
}

TEST(ArchSpec, PresetsFitTheDeviceDsps) {
  // One instance of each kernel module (the emitted top, machine/machine.h): 64 contraction
  // lanes and 8-lane nonlinear units use about 31 % of the U50's DSPs — below the 40-67 %
  // the reference design reports with its parallel engines, which the emitted top does not
  // build.
  const DeviceSpec u50 = load_device_spec("configs/devices/u50.json");
  for (const char* f : {"configs/arch/u50_paper.json", "configs/arch/u50_tt_sequential.json",
                        "configs/arch/u50_mm_baseline.json"}) {
    const ArchSpec a = load_arch_spec(f);
    const double share = static_cast<double>(arch_dsp(a, u50)) / u50.dsp;
    EXPECT_GE(share, 0.25) << f;
    EXPECT_LE(arch_dsp(a, u50), u50.dsp) << f;
  }
}

TEST(ArchSpec, KernelDspsComeFromTheSpecificationChains) {
  const DeviceSpec u50 = load_device_spec("configs/devices/u50.json");
  const std::int64_t fadd = u50.op("fadd").dsp, fmul = u50.op("fmul").dsp, fexp = u50.op("fexp").dsp;
  const std::int64_t fdiv = u50.op("fdiv").dsp, fsqrt = u50.op("fsqrt").dsp;
  const std::int64_t mul32 = u50.int_mul32_dsp;
  ASSERT_EQ(mul32, 3);  // mul_32s_32s_32_1_1 in the real reports
  for (int L : {1, 16, 64}) {
    // Contraction: the four loops are separate pipelined loops (separate modules):
    // column and column_acc = one alpha fmul + L (fmul + fadd) each; dot = L fmul + (L − 1)
    // tree fadds + the alpha fmul and the slot fadd after the tree; scalar = two fmul + one
    // fadd. Setup: three 32-bit trip-count products per loop (slots, · reduction steps,
    // · batch): each loop function computes its own.
    EXPECT_EQ(kernel_dsp(TaskOp::kContraction, L, u50),
              2 * (fmul + L * (fmul + fadd)) + (L * fmul + (L - 1) * fadd + fmul + fadd) + (2 * fmul + fadd) +
                  12 * mul32)
        << L;
    // Dual-port lanes (2L lanes on L banks): the column loops take an A word, and its alpha
    // fmul, per lane window (two rows per iteration, kernel_spec.h column_rows_paired); the
    // dot loop an alpha fmul and a slot fadd per window (two outputs, dot_cols_paired: at
    // L >= 2 banks, pair_windows).
    EXPECT_EQ(kernel_dsp(TaskOp::kContraction, 2 * L, u50, L),
              2 * (2 * fmul + 2 * L * (fmul + fadd)) + (2 * L * fmul + (2 * L - 1) * fadd + (L >= 2 ? 2 : 1) * (fmul + fadd)) +
                  (2 * fmul + fadd) + 12 * mul32)
        << L;
    // SGD: L (fmul + fadd) and one setup product (an upper bound: its R is a literal 1).
    EXPECT_EQ(kernel_dsp(TaskOp::kSgdUpdate, L, u50), L * (fmul + fadd) + mul32) << L;
    // Softmax: max (fcmp only, no DSP), exp_sum (L fadd, L fexp, L − 1 tree fadds, then the
    // slot fadd and the fdiv per row), normalize (L fmul); setup: the row-slot trip of max and
    // exp_sum (one product, the same extents) and the element-wise trip of normalize.
    EXPECT_EQ(kernel_dsp(TaskOp::kSoftmax, L, u50),
              L * (fadd + fexp) + (L - 1) * fadd + fadd + fdiv + L * fmul + 2 * mul32)
        << L;
    // A unit runs several modules: the LayerNorm unit is ttsim_layernorm + ttsim_layernorm_grad.
    EXPECT_EQ(unit_dsp(UnitKind::kLayerNorm, L, u50),
              kernel_dsp(TaskOp::kLayerNorm, L, u50) + kernel_dsp(TaskOp::kLayerNormGrad, L, u50));
  }
  (void)fsqrt;
}

// A build that runs its accumulating products by add omits column_acc (ttsim_spec::
// omitted_loops): its contraction loses that loop's L (fmul + fadd) + alpha fmul and its three
// setup products, and nothing else of any unit changes; the arch's DSPs follow the key.
TEST(ArchSpec, AnOmittedColumnAccCostsNoDsp) {
  const DeviceSpec u50 = load_device_spec("configs/devices/u50.json");
  const std::int64_t fadd = u50.op("fadd").dsp, fmul = u50.op("fmul").dsp, mul32 = u50.int_mul32_dsp;
  const unsigned omit = ttsim_spec::kOmitContractColumnAcc;
  for (int L : {16, 64}) {
    EXPECT_EQ(kernel_dsp(TaskOp::kContraction, L, u50) - kernel_dsp(TaskOp::kContraction, L, u50, 0, omit),
              fmul + L * (fmul + fadd) + 3 * mul32)
        << L;
    // Dual-port: an A word and its alpha fmul per lane window.
    EXPECT_EQ(kernel_dsp(TaskOp::kContraction, 2 * L, u50, L) - kernel_dsp(TaskOp::kContraction, 2 * L, u50, L, omit),
              2 * fmul + 2 * L * (fmul + fadd) + 3 * mul32)
        << L;
    for (int k = 0; k < kUnitKinds; ++k) {
      if (static_cast<UnitKind>(k) == UnitKind::kContraction) continue;
      EXPECT_EQ(unit_dsp(static_cast<UnitKind>(k), L, u50, L, omit), unit_dsp(static_cast<UnitKind>(k), L, u50, L)) << k;
    }
  }
  ArchSpec by_add = load_arch_spec("configs/arch/u50_unit_lanes.json");
  ASSERT_TRUE(by_add.accumulate_by_add);
  EXPECT_EQ(omitted_loops(by_add), omit);
  ArchSpec in_place = by_add;
  in_place.accumulate_by_add = false;
  EXPECT_EQ(omitted_loops(in_place), 0u);
  EXPECT_EQ(arch_dsp(in_place, u50) - arch_dsp(by_add, u50), 2 * fmul + 128 * (fmul + fadd) + 3 * mul32);
}

TEST(ArchSpec, AnIiKeyIsRefusedAtItsPointer) {
  for (const char* pointer : {"/contraction", "/nonlinear/softmax", "/nonlinear/update"}) {
    Json j = load_json_file("configs/arch/u50_paper.json");
    j[Json::json_pointer(pointer)]["ii"] = 1;
    {
      const std::optional<ConfigError> e = refusal(j);
      ASSERT_TRUE(e) << "an \"ii\" key was accepted at " << pointer;
      EXPECT_EQ(e->file(), "a.json");
      EXPECT_EQ(e->pointer(), std::string(pointer) + "/ii");
      EXPECT_NE(e->expected().find("hls/include/kernel_spec.h"), std::string::npos) << e->what();
      EXPECT_NE(e->expected().find("derived"), std::string::npos) << e->what();
      EXPECT_NE(e->expected().find("operator latencies"), std::string::npos) << e->what();
    }
  }
  // The shipped arch files have none, and the resolved spec writes none back.
  for (const char* f : {"configs/arch/u50_paper.json", "configs/arch/u50_tt_sequential.json",
                        "configs/arch/u50_mm_baseline.json"}) {
    const Json j = load_arch_spec(f).to_json();
    EXPECT_FALSE(j["contraction"].contains("ii")) << f;
    for (const auto& [name, unit] : j["nonlinear"].items()) EXPECT_FALSE(unit.contains("ii")) << f << " " << name;
  }
}

Json paper_json() {
  return load_json_file("configs/arch/u50_paper.json");
}

TEST(ArchSpec, ErrorsNameFilePointerExpectedAndFound) {
  Json j = paper_json();
  j["contraction"]["lanes"] = 0;
  {
    const std::optional<ConfigError> e = refusal(j);
    ASSERT_TRUE(e) << "no error";
    EXPECT_EQ(e->file(), "a.json");
    EXPECT_EQ(e->pointer(), "/contraction/lanes");
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
  {
    const std::optional<ConfigError> e = refusal(j);
    ASSERT_TRUE(e) << "no error";
    EXPECT_EQ(e->pointer(), "/nonlinear/dropout");
  }
  j = paper_json();
  j["nonlinear"].erase("loss");
  EXPECT_THROW(parse_arch_spec(j, "a.json"), ConfigError);
  // Dual-port lanes: 1 or 2 lanes per bank, and 2 only where the contraction is wider than
  // every nonlinear unit (otherwise the arenas keep a bank per contraction lane).
  for (int bad : {0, 3}) {
    j = paper_json();
    j["contraction"]["lanes_per_bank"] = bad;
    {
      const std::optional<ConfigError> e = refusal(j);
      ASSERT_TRUE(e) << "no error for lanes_per_bank " << bad;
      EXPECT_EQ(e->pointer(), "/contraction/lanes_per_bank");
    }
  }
  j = paper_json();
  j["contraction"]["lanes"] = 8;
  j["contraction"]["lanes_per_bank"] = 2;
  {
    const std::optional<ConfigError> e = refusal(j);
    ASSERT_TRUE(e) << "no error for 8 contraction lanes on 8-lane units";
    EXPECT_EQ(e->pointer(), "/contraction/lanes_per_bank");
    EXPECT_NE(std::string(e->what()).find("do not exceed the widest nonlinear unit's (8, /nonlinear/"), std::string::npos)
        << e->what();
  }
  j = paper_json();
  j["nonlinear"]["gelu"]["lanes_per_bank"] = 2;  // a contraction key only
  EXPECT_THROW(parse_arch_spec(j, "a.json"), ConfigError);
  // Accumulating by adds: "in_place" or "by_add", the latter with dual-port lanes only; it
  // round-trips through to_json.
  for (const char* bad : {"adds", "BY_ADD"}) {
    j = paper_json();
    j["contraction"]["accumulate"] = bad;
    {
      const std::optional<ConfigError> e = refusal(j);
      ASSERT_TRUE(e) << "no error for accumulate " << bad;
      EXPECT_EQ(e->pointer(), "/contraction/accumulate");
    }
  }
  j = paper_json();
  j["contraction"]["accumulate"] = "by_add";
  {
    const std::optional<ConfigError> e = refusal(j);
    ASSERT_TRUE(e) << "no error for by_add at one lane per bank";
    EXPECT_EQ(e->pointer(), "/contraction/accumulate");
    EXPECT_NE(std::string(e->what()).find("lanes_per_bank is 1"), std::string::npos) << e->what();
  }
  j = paper_json();
  j["contraction"]["lanes"] = 128;
  j["contraction"]["lanes_per_bank"] = 2;
  j["contraction"]["accumulate"] = "by_add";
  const ArchSpec by_add = parse_arch_spec(j, "a.json");
  EXPECT_TRUE(by_add.accumulate_by_add);
  EXPECT_TRUE(parse_arch_spec(by_add.to_json(), "b.json").accumulate_by_add);
  j["contraction"]["accumulate"] = "in_place";
  EXPECT_FALSE(parse_arch_spec(j, "a.json").accumulate_by_add);
}

TEST(ArchSpec, ArenaBanksFollowTheLanesPerBank) {
  ArchSpec a = parse_arch_spec(paper_json(), "a.json");
  EXPECT_EQ(arena_banks(a), 64);  // the largest lane count
  Json j = paper_json();
  j["contraction"]["lanes"] = 128;
  j["contraction"]["lanes_per_bank"] = 2;
  a = parse_arch_spec(j, "a.json");
  EXPECT_EQ(a.lanes_per_bank, 2);
  EXPECT_EQ(arena_banks(a), 64);  // half the contraction's lanes
  EXPECT_EQ(parse_arch_spec(a.to_json(), "a.json").lanes_per_bank, 2);
  j["contraction"]["lanes"] = 12;  // ceil(12 / 2) = 6 < the 8-lane units: 8 banks
  a = parse_arch_spec(j, "a.json");
  EXPECT_EQ(arena_banks(a), 8);
}

TEST(ArchSpec, EqualityComparesEveryField) {
  const ArchSpec a = load_arch_spec("configs/arch/u50_paper.json");
  EXPECT_TRUE(a == load_arch_spec("configs/arch/u50_paper.json"));
  std::vector<void (*)(ArchSpec&)> edits = {
      [](ArchSpec& x) { x.name += "x"; },
      [](ArchSpec& x) { x.source_file += "x"; },
      [](ArchSpec& x) { x.clock_mhz += 1; },
      [](ArchSpec& x) { x.unit(UnitKind::kGelu).lanes += 1; },
      [](ArchSpec& x) { x.unit(UnitKind::kUpdate).count += 1; },
      [](ArchSpec& x) { x.unit(UnitKind::kSoftmax).overhead += 1; },
      [](ArchSpec& x) { x.policy = x.policy == SchedulePolicy::kParallel ? SchedulePolicy::kSequential : SchedulePolicy::kParallel; },
      [](ArchSpec& x) { x.parallel_merges = !x.parallel_merges; },
      [](ArchSpec& x) { x.qkv_reschedule = !x.qkv_reschedule; },
      [](ArchSpec& x) { x.fusion = !x.fusion; },
      [](ArchSpec& x) { x.flow_by_kind["ffn_in"] = Flow::kMM; },
      [](ArchSpec& x) { x.memory = x.memory == MemoryStrategy::kNaive ? MemoryStrategy::kGrouped : MemoryStrategy::kNaive; },
      [](ArchSpec& x) { x.sequence_length = x.sequence_length == SequenceLength::kPadded ? SequenceLength::kEffective : SequenceLength::kPadded; },
      [](ArchSpec& x) { x.port_contention = !x.port_contention; },
      [](ArchSpec& x) { x.lanes_per_bank = 2; },
      [](ArchSpec& x) { x.calibration = std::make_shared<KernelCalibration>(); },
  };
  for (std::size_t i = 0; i < edits.size(); ++i) {
    ArchSpec b = a;
    edits[i](b);
    EXPECT_FALSE(a == b) << "edit " << i;
    EXPECT_TRUE(a != b) << "edit " << i;
  }
}

}  // namespace
}  // namespace ttsim
