// evaluate_design: one SystemC evaluation per canonical design while it is among the
// kSystemcCacheEntries most recently used, re-evaluated (same figures) once evicted; the
// analytic fidelity is computed afresh every call, on the thread's last evaluation of the
// same structure re-simulated in place (graph reshaped, machine re-described): every
// field equal to an evaluation on a fresh thread, and an evaluation still held keeps its
// own graph and figures.

#include "sim/design_eval.h"

#include <gtest/gtest.h>

#include <iomanip>
#include <random>
#include <sstream>
#include <thread>

#include "models/model_spec.h"
#include "models/training_graph.h"
#include "sim/step_sim.h"
#include "hw/arch_spec.h"
#include "hw/device_spec.h"
#include "tests/machine/machine_text.h"

namespace ttsim {
namespace {

TEST(DesignEval, SystemcEvaluationsAreCachedByDesignAndTheCacheIsBounded) {
  const ModelSpec model = load_model_spec("configs/models/atis_2enc.json");
  const DeviceSpec device = load_device_spec("configs/devices/u50.json");
  ArchSpec arch = load_arch_spec("configs/arch/u50_paper.json");
  arch.unit(UnitKind::kContraction).lanes = 4;
  const auto first = evaluate_design(model, arch, device, nullptr, Fidelity::kSystemC);
  EXPECT_EQ(evaluate_design(model, arch, device, nullptr, Fidelity::kSystemC), first);  // the same object
  EXPECT_NE(evaluate_design(model, arch, device, nullptr, Fidelity::kAnalytic), first);
  // As many other designs as the cache holds (clocks from 101 MHz) evict the first.
  for (std::size_t k = 0; k < kSystemcCacheEntries; ++k) {
    ArchSpec other = arch;
    other.clock_mhz = 101 + static_cast<double>(k);
    evaluate_design(model, other, device, nullptr, Fidelity::kSystemC);
  }
  const auto again = evaluate_design(model, arch, device, nullptr, Fidelity::kSystemC);
  EXPECT_NE(again, first);
  EXPECT_EQ(again->step.run.schedule.makespan, first->step.run.schedule.makespan);
}

/// `m` with every interior bond of the TT layers of encoder `e` and kind `kind` at `rank`.
ModelSpec with_rank(ModelSpec m, int e, const std::string& kind, std::int64_t rank) {
  for (auto& l : m.linears) {
    if (l.encoder != e || l.kind != kind || l.format != WeightFormat::kTT) continue;
    for (std::size_t k = 1; k + 1 < l.tt.ranks.size(); ++k) l.tt.ranks[k] = rank;
  }
  return m;
}

TEST(DesignEval, ReshapedGraphsPriceAsBuiltOnesAndHeldEvaluationsKeepTheirs) {
  const ModelSpec base = load_model_spec("configs/models/atis_2enc.json");
  const DeviceSpec device = load_device_spec("configs/devices/u50.json");
  const ArchSpec arch = load_arch_spec("configs/arch/u50_paper.json");
  EngineOptions analytic;
  analytic.analytic = true;
  const ModelSpec a = with_rank(base, 0, "ffn_in", 4), b = with_rank(with_rank(base, 1, "attention", 16), 0, "ffn_out", 8);
  const auto held = evaluate_design(a, arch, device, nullptr, Fidelity::kAnalytic);
  const TaskGraph held_graph = held->step.graph();
  // Same structure, other ranks: reshaped (the first graph is held, so copied first).
  for (const ModelSpec* m : {&b, &a, &b}) {
    const auto e = evaluate_design(*m, arch, device, nullptr, Fidelity::kAnalytic);
    const StepResult fresh = simulate_step(*m, arch, device, StepOptions::with_engine(analytic));
    EXPECT_EQ(e->step.run.schedule.makespan, fresh.run.schedule.makespan);
    EXPECT_EQ(e->machine().bram36(), fresh.machine->bram36());
    EXPECT_EQ(e->machine().uram288(), fresh.machine->uram288());
    EXPECT_EQ(e->machine().onchip_bytes(), fresh.machine->onchip_bytes());
    ASSERT_EQ(e->step.graph().buffers.size(), fresh.graph().buffers.size());
    for (std::size_t i = 0; i < fresh.graph().buffers.size(); ++i) {
      EXPECT_EQ(e->step.graph().buffers[i].words, fresh.graph().buffers[i].words) << fresh.graph().buffers[i].name;
    }
    for (std::size_t i = 0; i < fresh.graph().tasks.size(); ++i) {
      EXPECT_EQ(e->step.graph().tasks[i].macs, fresh.graph().tasks[i].macs) << fresh.graph().tasks[i].name;
    }
  }
  ASSERT_NE(a.compressed_params(), b.compressed_params());  // the two graphs differ
  // The held evaluation's graph did not change under it.
  ASSERT_EQ(held->step.graph().buffers.size(), held_graph.buffers.size());
  for (std::size_t i = 0; i < held_graph.buffers.size(); ++i) {
    EXPECT_EQ(held->step.graph().buffers[i].words, held_graph.buffers[i].words);
  }
  const TaskGraph built_a = build_training_graph(a, graph_options(arch, 0));
  for (std::size_t i = 0; i < built_a.tasks.size(); ++i) {
    EXPECT_EQ(held->step.graph().tasks[i].macs, built_a.tasks[i].macs);
  }
}

/// Every figure of `e` as text (machine, graph sizes, latencies, schedule, occupancy, bank
/// map, epoch, activity, power): two evaluations are the same when their texts are.
std::string fingerprint(const DesignEvaluation& e) {
  std::ostringstream o;
  o << std::setprecision(17);
  o << testing::machine_text(e.machine());
  o << "over:";
  for (const auto& s : e.over_device) o << " " << s;
  const StepResult& r = e.step;
  o << "\ntokens " << r.tokens << " analytic " << r.analytic_cycles << " makespan " << r.run.schedule.makespan << "\n";
  for (const auto& b : r.graph().buffers) o << b.words << ",";
  for (const auto& t : r.sched.tasks) o << t.unit << "/" << t.cycles << "/" << t.deps.size() << ",";
  for (int c : r.sched.unit_count) o << c << ",";
  for (const auto& t : r.run.schedule.tasks) o << t.start << "-" << t.end << "@" << t.unit_index << ",";
  for (int c : r.run.instances) o << c << ",";
  for (auto f : r.footprint) o << f << ",";
  for (bool f : r.fused) o << f;
  o << "\nbanks " << r.banks.bram36_blocks << " " << r.banks.uram_blocks << " " << r.banks.origin << "\n";
  for (const auto& b : r.banks.banks) {
    o << b.name << " " << static_cast<int>(b.kind) << " " << b.blocks << " " << b.ports << " "
      << b.words_per_port_cycle << " " << b.partitions << " " << b.buffers.size() << "\n";
  }
  for (int b : r.banks.bank_of_buffer) o << b << ",";
  o << "\noccupancy " << r.occupancy.peak_total_bytes;
  for (auto b : r.occupancy.peak_bytes) o << " " << b;
  for (const auto& smp : r.occupancy.series) {
    o << " " << smp.time;
    for (auto b : smp.bytes) o << "/" << b;
  }
  if (e.epoch) {
    o << "\nepoch " << e.epoch->samples << " " << e.epoch->cycles << " " << e.epoch->seconds;
    for (const auto& l : e.epoch->by_length) o << " " << l.length << "/" << l.samples << "/" << l.step_cycles;
  }
  const FpgaActivity& a = e.activity;
  o << "\nactivity " << a.clock_mhz;
  for (const ResourceActivity* x : {&a.dsp, &a.bram36, &a.uram288, &a.kilo_lut}) o << " " << x->units << "/" << x->busy_fraction;
  o << " luts " << e.luts;
  if (e.power) o << " power " << e.power->static_watts << " " << e.power->dynamic_watts();
  if (e.step_joules) o << " step_j " << *e.step_joules;
  if (e.epoch_joules) o << " epoch_j " << *e.epoch_joules;
  return o.str();
}

/// evaluate_design on a new thread: no template of this structure, built from scratch. The
/// arch is renamed so that the SystemC cache (keyed by the resolved design, its name
/// included) cannot answer with the evaluation being checked.
std::shared_ptr<const DesignEvaluation> fresh_evaluation(const ModelSpec& m, const ArchSpec& arch,
                                                         const DeviceSpec& device,
                                                         const dataset::LengthHistogram* split, Fidelity fidelity) {
  ArchSpec renamed = arch;
  renamed.name += " (fresh)";
  std::shared_ptr<const DesignEvaluation> e;
  std::thread t([&] { e = evaluate_design(m, renamed, device, split, fidelity); });
  t.join();
  return e;
}

TEST(DesignEval, ResimulatedEvaluationsEqualFreshOnesFieldByField) {
  const ModelSpec base = load_model_spec("configs/models/atis_2enc.json");
  const DeviceSpec device = load_device_spec("configs/devices/u50.json");
  const ArchSpec paper = load_arch_spec("configs/arch/u50_paper.json");
  ArchSpec tt = paper;
  for (auto& [kind, flow] : tt.flow_by_kind) flow = Flow::kTT;
  tt.unit(UnitKind::kContraction).lanes = 16;
  dataset::LengthHistogram split;
  split.samples = {{7, 3}, {12, 5}, {base.seq_len, 2}};
  split.count = 10;
  std::mt19937 rng(17);
  const std::int64_t ranks[] = {1, 2, 4, 8, 12, 16, 24, 32};
  int compared = 0;
  for (int point = 0; point < 16; ++point) {
    // Per-layer ranks, each bond drawn on its own: the structure is kept, the plans may not be.
    ModelSpec m = base;
    for (auto& l : m.linears) {
      if (l.format != WeightFormat::kTT) continue;
      for (std::size_t k = 1; k + 1 < l.tt.ranks.size(); ++k) l.tt.ranks[k] = ranks[rng() % 8];
    }
    // The TT arch now and then; otherwise the paper arch at other lanes, clocks and overheads
    // (the same step structure: re-simulated on the last one's template).
    ArchSpec arch = point % 3 == 2 ? tt : paper;
    if (point % 3 == 1) {
      // Padded now and then (the shipped archs price each sample at its own length: the
      // epoch simulates one step per length on the padded step's machine).
      if (point % 2) arch.sequence_length = SequenceLength::kPadded;
      const int lanes[] = {1, 4, 16, 64};
      arch.unit(UnitKind::kContraction).lanes = lanes[rng() % 4];
      arch.clock_mhz = 100 + 50 * static_cast<double>(rng() % 4);
      arch.unit(UnitKind::kSoftmax).overhead += static_cast<int>(rng() % 7);
    }
    const Fidelity fidelity = point % 4 == 3 ? Fidelity::kSystemC : Fidelity::kAnalytic;
    const dataset::LengthHistogram* sp = point % 2 ? &split : nullptr;
    const auto e = evaluate_design(m, arch, device, sp, fidelity);
    const auto fresh = fresh_evaluation(m, arch, device, sp, fidelity);
    ASSERT_NE(fresh.get(), e.get());
    EXPECT_EQ(fingerprint(*e), fingerprint(*fresh)) << "point " << point;
    ++compared;
  }
  EXPECT_EQ(compared, 16);
}

TEST(DesignEval, EpochStepsOfOtherGraphsAreNotTakenForEachOther) {
  // Each thread keeps the graphs of the epoch's per-length steps by model structure, ranks,
  // flows, recomputation, tokens and accumulate_by_add choices (sim/step_sim.cc
  // length_graph): designs that differ in any of them, evaluated in turn on one thread and
  // twice, equal their evaluations on fresh threads.
  const ModelSpec base = load_model_spec("configs/models/atis_2enc.json");
  const DeviceSpec device = load_device_spec("configs/devices/u50.json");
  const ArchSpec split_arch = load_arch_spec("configs/arch/u50_unit_lanes.json");  // dual-port lanes: by_add
  dataset::LengthHistogram split;
  split.samples = {{5, 2}, {9, 4}, {17, 1}, {base.seq_len, 3}};
  split.count = 10;
  std::vector<std::pair<ModelSpec, ArchSpec>> designs;
  for (int k = 0; k < 8; ++k) {
    ModelSpec m = k % 3 == 2 ? with_rank(base, 1, "ffn_in", 8) : base;
    ArchSpec a = split_arch;
    a.sequence_length = SequenceLength::kEffective;
    if (k % 2 || k == 6) {  // one lane per bank: products accumulate in place (6, 7: design 1 but for one key)
      a.unit(UnitKind::kContraction).lanes = 64;
      a.lanes_per_bank = 1;
      a.accumulate_by_add = false;
    }
    if (k >= 3 && k <= 5) a.recompute_encoders = true;  // the recomputation's tasks and buffers
    if (k == 6) {
      for (auto& [kind, flow] : a.flow_by_kind) flow = Flow::kTT;  // the sequential TT flow
    }
    if (k == 7) a.recompute_merges = true;  // the BTT merges made again in the backward pass
    designs.emplace_back(m, a);
  }
  // In turn on a thread of their own (this test leaves the other tests' templates as it
  // found them), each against a fresh thread's.
  std::vector<std::shared_ptr<const DesignEvaluation>> in_turn;
  std::thread worker([&] {
    // Three passes: a family of graphs is kept from its second run on, found on its third.
    for (int pass = 0; pass < 3; ++pass) {
      for (const auto& [m, a] : designs) in_turn.push_back(evaluate_design(m, a, device, &split, Fidelity::kAnalytic));
    }
  });
  worker.join();
  ASSERT_EQ(in_turn.size(), 3 * designs.size());
  for (std::size_t j = 0; j < in_turn.size(); ++j) {
    const std::size_t k = j % designs.size();
    const DesignEvaluation& e = *in_turn[j];
    const auto fresh = fresh_evaluation(designs[k].first, designs[k].second, device, &split, Fidelity::kAnalytic);
    ASSERT_TRUE(e.epoch && fresh->epoch);
    ASSERT_EQ(e.epoch->by_length.size(), fresh->epoch->by_length.size());
    for (std::size_t i = 0; i < e.epoch->by_length.size(); ++i) {
      EXPECT_EQ(e.epoch->by_length[i].step_cycles, fresh->epoch->by_length[i].step_cycles)
          << "design " << k << ", evaluation " << j << ", length " << e.epoch->by_length[i].length;
    }
    EXPECT_EQ(fingerprint(e), fingerprint(*fresh)) << "design " << k << ", evaluation " << j;
  }
  // The designs' steps differ at some length (the test would not see a graph taken for
  // another otherwise).
  EXPECT_NE(in_turn[0]->epoch->cycles, in_turn[1]->epoch->cycles);
  EXPECT_NE(in_turn[0]->epoch->cycles, in_turn[2]->epoch->cycles);
  EXPECT_NE(in_turn[0]->epoch->cycles, in_turn[3]->epoch->cycles);
  EXPECT_NE(in_turn[1]->epoch->cycles, in_turn[6]->epoch->cycles);
  EXPECT_NE(in_turn[1]->epoch->cycles, in_turn[7]->epoch->cycles);
}

TEST(DesignEval, RepricedEvaluationsEqualFreshOnesFieldByField) {
  // One rank assignment under one arch after another that differ only in prices (lanes,
  // clock, overheads, sequence length, fidelity): each after the first is re-priced on its
  // template's graph (reprice_step). The TT flow's template runs in between, and halfway
  // the ranks change (the graph is reshaped, then re-priced again).
  const ModelSpec base = load_model_spec("configs/models/atis_2enc.json");
  const DeviceSpec device = load_device_spec("configs/devices/u50.json");
  const ArchSpec paper = load_arch_spec("configs/arch/u50_paper.json");
  ArchSpec tt = paper;
  for (auto& [kind, flow] : tt.flow_by_kind) flow = Flow::kTT;
  dataset::LengthHistogram split;
  split.samples = {{7, 3}, {12, 5}, {base.seq_len, 2}};
  split.count = 10;
  std::mt19937 rng(23);
  const std::int64_t ranks[] = {2, 4, 8, 12, 16, 24, 32};
  ModelSpec m = base;
  auto draw = [&] {
    for (auto& l : m.linears) {
      if (l.format != WeightFormat::kTT) continue;
      for (std::size_t k = 1; k + 1 < l.tt.ranks.size(); ++k) l.tt.ranks[k] = ranks[rng() % 7];
    }
  };
  draw();
  const int lanes[] = {1, 4, 16, 64};
  const EvaluationPaths before = evaluation_paths();
  for (int point = 0; point < 12; ++point) {
    if (point == 6) draw();
    ArchSpec arch = point % 4 == 3 ? tt : paper;
    arch.unit(UnitKind::kContraction).lanes = lanes[point % 4];
    arch.clock_mhz = 100 + 50 * static_cast<double>(rng() % 4);
    arch.unit(UnitKind::kLayerNorm).overhead += static_cast<int>(rng() % 5);
    if (point % 3 == 2) arch.sequence_length = SequenceLength::kPadded;
    const Fidelity fidelity = point % 5 == 4 ? Fidelity::kSystemC : Fidelity::kAnalytic;
    const dataset::LengthHistogram* sp = point % 2 ? &split : nullptr;
    const auto e = evaluate_design(m, arch, device, sp, fidelity);
    const auto fresh = fresh_evaluation(m, arch, device, sp, fidelity);
    ASSERT_NE(fresh.get(), e.get());
    EXPECT_EQ(fingerprint(*e), fingerprint(*fresh)) << "point " << point;
  }
  // Which path each took (the fresh ones ran on other threads): points 0 and 3 (the first
  // of each flow's template at these ranks) and 6 and 7 (the same after the ranks changed)
  // were not re-priced; the other eight were.
  const EvaluationPaths after = evaluation_paths();
  EXPECT_EQ(after.repriced - before.repriced, 8u);
  EXPECT_EQ((after.built - before.built) + (after.resimulated - before.resimulated), 4u);
}

TEST(DesignEval, AnotherAccumulateByAddChoiceIsNotRepricedOnTheTemplate) {
  // u50_unit_lanes accumulates through partials and adds (/contraction/accumulate "by_add",
  // kernel_spec.h accumulate_by_add); the same arch at one lane per bank, in place. The lanes
  // are a price to the step's structure (same_step_structure), but these graphs differ in
  // tasks and buffers: each evaluation, one after the other on this thread, equals a fresh one.
  const ModelSpec m = load_model_spec("configs/models/atis_2enc.json");
  const DeviceSpec device = load_device_spec("configs/devices/u50.json");
  const ArchSpec split = load_arch_spec("configs/arch/u50_unit_lanes.json");
  ArchSpec flag = split;
  flag.unit(UnitKind::kContraction).lanes = 64;
  flag.lanes_per_bank = 1;
  flag.accumulate_by_add = false;
  std::vector<char> a, b;
  accumulate_by_add_choices(m, graph_options(split, 0), a);
  accumulate_by_add_choices(m, graph_options(flag, 0), b);
  ASSERT_NE(a, b);
  const EvaluationPaths before = evaluation_paths();
  for (const ArchSpec* arch : std::vector<const ArchSpec*>{&split, &flag, &split, &flag}) {
    const auto e = evaluate_design(m, *arch, device, nullptr, Fidelity::kAnalytic);
    const auto fresh = fresh_evaluation(m, *arch, device, nullptr, Fidelity::kAnalytic);
    EXPECT_EQ(fingerprint(*e), fingerprint(*fresh)) << arch->lanes_per_bank;
  }
  // The third and fourth were re-priced on their own structure's template (the fourth's may
  // be an earlier test's, of the same structure).
  const EvaluationPaths after = evaluation_paths();
  EXPECT_EQ(after.repriced - before.repriced, 2u);
}

TEST(DesignEval, AnEvaluationThatThrowsMidwayLeavesNoTemplateToRepriceOn) {
  // Other ranks on a clock the device cannot price: the graph is reshaped, then the latency
  // model throws. The first ranks again must not be re-priced on the reshaped graph.
  const ModelSpec base = load_model_spec("configs/models/atis_2enc.json");
  const DeviceSpec device = load_device_spec("configs/devices/u50.json");
  const ArchSpec paper = load_arch_spec("configs/arch/u50_paper.json");
  ArchSpec fast = paper;
  fast.clock_mhz = 600;  // beyond the device's operator tables
  const ModelSpec other = with_rank(base, 0, "attention", 4);
  (void)evaluate_design(base, paper, device, nullptr, Fidelity::kAnalytic);
  EXPECT_ANY_THROW(evaluate_design(other, fast, device, nullptr, Fidelity::kAnalytic));
  const auto again = evaluate_design(base, paper, device, nullptr, Fidelity::kAnalytic);
  const auto fresh = fresh_evaluation(base, paper, device, nullptr, Fidelity::kAnalytic);
  EXPECT_EQ(fingerprint(*again), fingerprint(*fresh));
}

TEST(DesignEval, AHeldEvaluationKeepsItsFiguresWhenItsStructureIsEvaluatedAgain) {
  const ModelSpec base = load_model_spec("configs/models/atis_2enc.json");
  const DeviceSpec device = load_device_spec("configs/devices/u50.json");
  const ArchSpec arch = load_arch_spec("configs/arch/u50_paper.json");
  const ModelSpec a = with_rank(base, 0, "attention", 4), b = with_rank(base, 1, "ffn_in", 24);
  const auto held = evaluate_design(a, arch, device, nullptr, Fidelity::kAnalytic);
  const std::string before = fingerprint(*held);
  const auto other = evaluate_design(b, arch, device, nullptr, Fidelity::kAnalytic);
  EXPECT_NE(fingerprint(*other), before);
  EXPECT_EQ(fingerprint(*held), before);
  EXPECT_NE(held.get(), other.get());
}

}  // namespace
}  // namespace ttsim
