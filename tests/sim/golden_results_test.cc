// Pins every result the simulator prints for the shipped presets, so that speed work on
// the memory planner, the schedulers and the latency model provably changes nothing:
// for each case, the step JSON (`ttsim simulate --json`), the machine's banks (arrays,
// blocks, ports, buffers) the step ran on, every task's start/end/unit in the
// SystemC and analytic schedules, and the analytic list schedules of a lanes × engines
// sweep are serialised and reduced to a 64-bit FNV-1a digest, next to a few readable
// figures. The expected values live in tests/sim/testdata/golden_results.json.
//
// Regenerate (only when a result is meant to change):
//   bazel test //tests/sim:golden_results_test --test_env=TTSIM_GOLDEN_OUT=/tmp/golden.json
//   cp /tmp/golden.json tests/sim/testdata/golden_results.json
// (the test writes the file from the current code and reports itself skipped).

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "core/atomic_file.h"
#include "core/json_view.h"
#include "models/dataset/dataset_lengths.h"
#include "models/model_spec.h"
#include "models/training_graph.h"
#include "sim/analytic.h"
#include "hw/arch_spec.h"
#include "hw/device_spec.h"
#include "sim/epoch.h"
#include "hw/kernel_latency.h"
#include "sim/memplan/memory_plan.h"
#include "sim/memplan/plan_report.h"
#include "sim/sched_graph.h"
#include "sim/step_report.h"
#include "sim/step_sim.h"

namespace ttsim {
namespace {

const char* kGolden = "tests/sim/testdata/golden_results.json";

std::uint64_t fnv1a(const std::string& s, std::uint64_t h = 1469598103934665603ull) {
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

std::string schedule_text(const Schedule& s) {
  std::string t = fmt::format("makespan={} events={}\n", s.makespan, s.events);
  for (const TaskTime& tt : s.tasks) t += fmt::format("{} {} {}\n", tt.start, tt.end, tt.unit_index);
  return t;
}

const DeviceSpec& u50() {
  static const DeviceSpec d = load_device_spec("configs/devices/u50.json");
  return d;
}
ArchSpec arch(const std::string& name) { return load_arch_spec("configs/arch/" + name + ".json"); }
ModelSpec model(const std::string& name) { return load_model_spec("configs/models/" + name + ".json"); }

Json step_case(const StepResult& r, const ArchSpec& a) {
  std::string text = step_json(r, a).dump();
  for (const auto& b : r.banks.banks) text += fmt::format("{} {} {} {}\n", b.name, b.blocks, b.ports, b.buffers.size());
  text += schedule_text(r.run.schedule);
  text += schedule_text(list_schedule(r.sched));
  return Json{{"step_cycles", r.run.schedule.makespan},
              {"analytic_cycles", r.analytic_cycles},
              {"bram36", r.banks.bram36_blocks},
              {"uram", r.banks.uram_blocks},
              {"peak_bytes", r.occupancy.peak_total_bytes},
              {"digest", fmt::format("{:016x}", fnv1a(text))}};
}

// Arch variants of the reference design exercised on every preset.
std::vector<std::pair<std::string, ArchSpec>> arch_variants() {
  std::vector<std::pair<std::string, ArchSpec>> v;
  v.emplace_back("u50_paper", arch("u50_paper"));
  v.emplace_back("u50_tt_sequential", arch("u50_tt_sequential"));
  ArchSpec a = arch("u50_paper");
  a.memory = MemoryStrategy::kNaive;
  v.emplace_back("u50_paper+naive", a);
  a = arch("u50_paper");
  a.fusion = false;
  a.qkv_reschedule = false;
  a.parallel_merges = false;
  v.emplace_back("u50_paper-refinements", a);
  a = arch("u50_paper");
  a.unit(UnitKind::kContraction).lanes = 16;
  a.unit(UnitKind::kContraction).count = 2;
  v.emplace_back("u50_paper+lanes16x2", a);
  a = arch("u50_paper");
  a.unit(UnitKind::kContraction).lanes = 96;
  v.emplace_back("u50_paper+lanes96", a);
  return v;
}

Json compute() {
  Json out = Json::object();
  // 1. Whole steps (graph, latencies, memory plan, SystemC, occupancy).
  for (const char* m : {"atis_2enc", "atis_4enc", "atis_6enc"}) {
    const ModelSpec spec = model(m);
    for (const auto& [an, a] : arch_variants()) {
      out["step/" + std::string(m) + "/" + an] = step_case(simulate_step(spec, a, u50(), StepOptions::what_if_study()), a);
    }
  }
  // 2. Effective lengths: shorter steps on the padded step's hardware, and an epoch.
  {
    ArchSpec a = arch("u50_paper");
    a.sequence_length = SequenceLength::kEffective;
    const auto lengths = dataset::load_dataset_lengths("configs/datasets/atis_lengths.json");
    for (const char* m : {"atis_2enc", "atis_6enc"}) {
      const ModelSpec spec = model(m);
      const StepResult hw = simulate_step(spec, a, u50(), StepOptions::what_if_study());
      const StepResult s = simulate_step(spec, a, u50(), StepOptions::on_hardware(hw, 11 * spec.batch));
      out["short_step/" + std::string(m)] = step_case(s, a);
      const EpochResult e = simulate_epoch(spec, a, u50(), lengths.split("train"), hw);
      std::string text;
      for (const auto& l : e.by_length) text += fmt::format("{} {} {}\n", l.length, l.samples, l.step_cycles);
      out["epoch/" + std::string(m)] = Json{{"cycles", e.cycles},
                                            {"samples", e.samples},
                                            {"digest", fmt::format("{:016x}", fnv1a(text))}};
    }
  }
  // 3. Memory plans alone: every strategy, models that fit and models that do not
  //    (the BRAM/URAM rebalance path), and other lane counts.
  for (const char* m : {"atis_2enc", "atis_6enc", "atis_12enc_r64", "atis_2enc_dense",
                        "bert_like_ffn3072"}) {
    const ModelSpec spec = model(m);
    const ArchSpec a = arch("u50_paper");
    GraphOptions g;
    g.flow_by_kind = a.flow_by_kind;
    const TaskGraph graph = build_training_graph(spec, g);
    for (int lanes : {16, 64, 96}) {
      for (auto s : {memplan::Strategy::kNaive, memplan::Strategy::kGrouped, memplan::Strategy::kIdeal}) {
        memplan::MemoryOptions o;
        o.strategy = s;
        for (int k = 0; k < kUnitKinds; ++k) o.lanes[static_cast<UnitKind>(k)] = a.units[k].lanes;
        o.lanes[UnitKind::kContraction] = lanes;
        const memplan::MemoryPlan plan = memplan::plan_memory(graph, u50(), o);
        const std::string text = s == memplan::Strategy::kIdeal
                                     ? memplan::plan_summary_json(plan).dump()
                                     : memplan::plan_detail_json(plan, graph).dump();
        out[fmt::format("plan/{}/lanes{}/{}", m, lanes, memplan::to_string(s))] =
            Json{{"bram36", plan.bram36_blocks},
                 {"uram", plan.uram_blocks},
                 {"fits", plan.fit.fits},
                 {"digest", fmt::format("{:016x}", fnv1a(text))}};
      }
    }
  }
  // 4. The DSE's analytic inner loop: one graph, re-priced per (lanes, engines).
  for (const char* m : {"atis_2enc", "atis_6enc"}) {
    const ModelSpec spec = model(m);
    ArchSpec a = arch("u50_paper");
    const TaskGraph graph = build_training_graph(spec, graph_options(a, 0));
    SchedGraph sg = make_sched_graph(graph, a, KernelLatencyModel(a, u50()));
    std::string text;
    Json makespans = Json::array();
    for (int engines : {1, 3, 6}) {
      for (int lanes : {16, 32, 64, 96, 128}) {
        a.unit(UnitKind::kContraction).lanes = lanes;
        a.unit(UnitKind::kContraction).count = engines;
        update_latencies(sg, graph, KernelLatencyModel(a, u50()));
        auto units = sg.unit_count;
        units[static_cast<int>(UnitKind::kContraction)] = engines;
        const Schedule s = list_schedule(sg, units);
        text += schedule_text(s);
        text += fmt::format("cp={}\n", critical_path_cycles(sg));
        makespans.push_back(s.makespan);
      }
    }
    out["analytic/" + std::string(m)] =
        Json{{"makespans", makespans}, {"digest", fmt::format("{:016x}", fnv1a(text))}};
  }
  return out;
}

TEST(GoldenResults, PresetsMatchThePinnedResults) {
  const Json got = compute();
  if (const char* path = std::getenv("TTSIM_GOLDEN_OUT")) {
    write_file_atomic(path, got.dump(1) + "\n");
    GTEST_SKIP() << "wrote " << path;
  }
  std::ifstream in(kGolden);
  ASSERT_TRUE(in) << "missing " << kGolden;
  std::stringstream ss;
  ss << in.rdbuf();
  const Json want = Json::parse(ss.str());
  ASSERT_EQ(want.size(), got.size());
  for (const auto& [key, value] : want.items()) {
    ASSERT_TRUE(got.contains(key)) << key;
    EXPECT_EQ(got[key], value) << key;
  }
}

}  // namespace
}  // namespace ttsim
