// What is simulated is what is built, at the task level: the training-step task graph
// (models/training_graph.h) has one task per kernel call of the HLS training step
// (hls/kernels/model_step.cc), with the same shape and variant. For one model, token count
// and the lane counts of hls/include/design_config.h, one train step of the HLS model (SGD
// fused into the backward pass) runs in C simulation under the access probe; for every kernel loop label,
// the number of graph tasks that run the loop must equal the probe's invocations, and the
// sum over those tasks of the specification's trip count (hw/loop_nest.h kernel_loops)
// must equal the probe's iterations.

#include <gtest/gtest.h>

#include "tests/hls/probed_step.h"
#include "tests/hls/test_models.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "hls/host/hls_model.h"
#include "hls/include/access_probe.h"
#include "hls/include/design_config.h"
#include "hls/include/kernel_spec.h"
#include "hls/include/spec_check.h"
#include "hls/kernels/contract.h"
#include "hls/kernels/model_step.h"
#include "hw/loop_nest.h"
#include "models/model_spec.h"
#include "models/training_graph.h"
#include "hw/kernel_latency.h"

namespace ttsim {
namespace {

struct Count {
  std::int64_t invocations = 0;
  std::int64_t iterations = 0;
};
using Counts = std::map<std::string, Count>;

const char* const kKinds[] = {"attention", "ffn_in", "ffn_out"};

/// Per loop label: tasks running it and Σ trip; `who` lists the tasks per label.
Counts graph_counts(const TaskGraph& g, std::map<std::string, std::vector<std::string>>* who) {
  Counts c;
  for (const auto& t : g.tasks) {
    for (const auto& l : kernel_loops(t.op, t.shape, testing::compiled_lanes(t.op), ttsim_cfg::kArenaBanks)) {
      ++c[l.name].invocations;
      c[l.name].iterations += l.trip;
      (*who)[l.name].push_back(t.name);
    }
  }
  return c;
}

/// The accesses and loop-carried distances the real step's loop `name` showed over all its
/// calls (the arenas as the top passes them) against the kernel specification: no array
/// beyond its declared accesses per bank per iteration, no recurrence shorter than declared,
/// none undeclared. (Iteration counts are compared with the graph below.)
void expect_loop_within_spec(const std::string& name, const ttsim_hls::MeasuredLoop& m) {
  for (const ttsim_spec::KernelSpec& k : ttsim_spec::kKernelSpecs) {
    const ttsim_spec::LoopSpec* l = ttsim_spec::find_loop(k.task_op, name.c_str());
    if (!l) continue;
    std::vector<std::string> bad;
    for (const std::string& v : ttsim_hls::check_loop(*l, m, l->variant < 0 ? 0 : l->variant,
                                                      ttsim_hls::SpecShape{}, 1)) {
      if (v.find(": iterations ") == std::string::npos) bad.push_back(v);
    }
    std::string all;
    for (const auto& b : bad) all += "\n  " + b;
    EXPECT_TRUE(bad.empty()) << "real step, loop " << name << ":" << all;
    return;
  }
  ADD_FAILURE() << "real step ran loop " << name << ", which no kernel specification has";
}

/// Per loop label: the ResMII the simulator binds the loop's instance to — the largest
/// over the graph's tasks of the accesses its arguments pool on one memory's ports
/// (TaskShape::memories, shared_resource_mii).
std::map<std::string, int> graph_res_mii(const TaskGraph& g) {
  std::map<std::string, int> out;
  for (const auto& t : g.tasks) {
    for (const auto& l : kernel_loops(t.op, t.shape, testing::compiled_lanes(t.op), ttsim_cfg::kArenaBanks)) {
      const int r = shared_resource_mii(*l.spec, kernel_spec(t.op), testing::compiled_lanes(t.op), ttsim_cfg::kArenaBanks, t.shape.memories);
      int& v = out[l.name];
      v = std::max(v, r);
    }
  }
  return out;
}

/// Ports: for every loop of the real step and every physical memory of the top (the host
/// model's arenas and its index array), the most accesses one bank of it took in one
/// iteration, over every kernel argument bound to it, fit the two ports of the bank at the
/// II the simulator prices: measured <= kBankPorts · ResMII(graph).
void expect_ports_fit(const std::map<std::string, ttsim_hls::MeasuredLoop>& measured,
                      const std::map<std::string, int>& res_mii, const std::string& what) {
  for (const auto& [loop, m] : measured) {
    const auto it = res_mii.find(loop);
    if (it == res_mii.end()) continue;  // reported by the counts comparison
    for (const auto& [memory, accesses] : m.max_memory_bank_accesses) {
      EXPECT_LE(accesses, ttsim_spec::kBankPorts * it->second)
          << what << ": loop " << loop << " takes " << accesses << " accesses of one bank of " << memory
          << " in one iteration; the simulator prices ResMII " << it->second;
    }
  }
}

/// ResMII of loop `loop` for one call whose arguments were bound as `binding` (argument →
/// memory): per memory, the specification's access sites of every argument bound to it
/// (reads + writes per iteration, the ports the loop's static schedule holds; a lane site
/// ceil(lanes / banks) times at the compiled lanes and banks), over the two ports of a bank;
/// arguments the call did not touch take a memory of their own.
int static_res_mii(const std::string& loop, const std::map<std::string, std::string>& binding) {
  for (const ttsim_spec::KernelSpec& k : ttsim_spec::kKernelSpecs) {
    const ttsim_spec::LoopSpec* l = ttsim_spec::find_loop(k.task_op, loop.c_str());
    if (!l) continue;
    int lanes = 1;
    for (int o = 0; o < kTaskOpCount; ++o) {
      if (to_string(static_cast<TaskOp>(o)) == std::string(k.task_op)) lanes = testing::compiled_lanes(static_cast<TaskOp>(o));
    }
    std::map<std::string, int> sites;
    for (int a = 0; a < l->n_access; ++a) {
      const auto it = binding.find(l->access[a].array);
      const std::string memory = it != binding.end() ? it->second : std::string("own:") + l->access[a].array;
      const int per_site = ttsim_spec::site_accesses(l->access[a].kind, lanes, ttsim_cfg::kArenaBanks);
      sites[memory] += per_site * (l->access[a].reads + l->access[a].writes);
    }
    int res = 1;
    for (const auto& [memory, n] : sites) {
      res = std::max(res, (n + ttsim_spec::kBankPorts - 1) / ttsim_spec::kBankPorts);
    }
    return res;
  }
  return -1;
}

/// Static ports: every binding the real step used for a loop needs no more than the
/// ResMII the simulator prices for the loop's instance.
void expect_bindings_fit(const std::map<std::string, ttsim_hls::MeasuredLoop>& measured,
                         const std::map<std::string, int>& res_mii, const std::string& what) {
  for (const auto& [loop, m] : measured) {
    const auto it = res_mii.find(loop);
    if (it == res_mii.end()) continue;
    for (const auto& b : m.bindings) {
      std::string desc;
      for (const auto& [arg, memory] : b) desc += " " + arg + "=" + memory;
      EXPECT_LE(static_res_mii(loop, b), it->second)
          << what << ": loop " << loop << " called with" << desc << " needs ResMII " << static_res_mii(loop, b)
          << "; the simulator prices " << it->second;
    }
  }
}

/// Array name of a ttsim_spec::MemoryId (the top's "<stem>_mem"; "?" for none).
std::string memory_name(int id) {
  if (id >= ttsim_spec::kParamMem && id < ttsim_spec::kParamMem + ttsim_hls::kFloatArenas) {
    return std::string(ttsim_hls::kArenaStems[id - ttsim_spec::kParamMem]) + "_mem";
  }
  return id == ttsim_spec::kIndexMem ? "index_mem" : "?" + std::to_string(id);
}

/// Every loop invocation of the graph's tasks, in task order: its loop label and the
/// binding of the float arrays it accesses to the top's memories (TaskShape::memories: from
/// where the graph places each buffer a task binds, Buffer::memory). The int index array is
/// not a probed memory.
std::vector<std::pair<std::string, std::map<std::string, std::string>>> graph_call_bindings(const TaskGraph& g) {
  std::vector<std::pair<std::string, std::map<std::string, std::string>>> out;
  for (const auto& t : g.tasks) {
    const ttsim_spec::KernelSpec& k = kernel_spec(t.op);
    for (const auto& l : kernel_loops(t.op, t.shape, testing::compiled_lanes(t.op), ttsim_cfg::kArenaBanks)) {
      std::map<std::string, std::string> b;
      for (const auto& a : l.accesses) {
        const int id = ttsim_spec::memory_of(t.shape.memories, ttsim_spec::kernel_array_slot(k, a.array.c_str()));
        if (id != ttsim_spec::kIndexMem) b[a.array] = memory_name(id);
      }
      out.emplace_back(l.name, std::move(b));
    }
  }
  return out;
}

/// Per loop label: the distinct bindings of graph_call_bindings.
std::map<std::string, std::set<std::map<std::string, std::string>>> graph_bindings(const TaskGraph& g) {
  std::map<std::string, std::set<std::map<std::string, std::string>>> out;
  for (auto& [loop, b] : graph_call_bindings(g)) out[loop].insert(std::move(b));
  return out;
}

/// The alignment proof the machine relies on (machine.h KernelInstance::lane_aligned):
/// every lane access of the LayerNorm, GELU, softmax, loss and SGD modules' loops starts at a multiple
/// of the layout's granule, as far as the compiled lanes show it (each start a multiple of
/// gcd(granule, lanes): consecutive tiles differ by the lanes). A call site the granule
/// functions (model_step.cc) miss, with an offset off the granule, softmax rows packed at
/// the sample's K instead of the sequence length's pitch, or logits rows packed at the slot
/// tags instead of logit_pitch, fails here.
void expect_lane_starts_within_granules(const testing::ProbedStep& step) {
  int checked = 0, softmax_loops = 0, sgd_loops = 0, loss_loops = 0;
  for (const auto& [name, l] : step.loops) {
    const bool ln = name.rfind("layernorm", 0) == 0, gelu = name.rfind("gelu", 0) == 0,
               softmax = name.rfind("softmax", 0) == 0, sgd = name == "sgd_update",
               loss = name.rfind("loss", 0) == 0;
    if ((!ln && !gelu && !softmax && !sgd && !loss) || l.lane_start_gcd == 0) continue;
    const int lanes = ln     ? ttsim_cfg::kLayerNormLanes
                      : gelu ? ttsim_cfg::kGeluLanes
                      : sgd  ? ttsim_cfg::kSgdLanes
                      : loss ? ttsim_cfg::kLossLanes
                             : ttsim_cfg::kSoftmaxLanes;
    const int granule = ln     ? step.layernorm_granule
                        : gelu ? step.gelu_granule
                        : sgd  ? step.sgd_granule
                        : loss ? step.loss_granule
                               : step.softmax_granule;
    ASSERT_GT(granule, 0) << name;
    const std::int64_t need = std::gcd(granule, lanes);
    EXPECT_EQ(l.lane_start_gcd % need, 0) << name << ": a lane access starts at a multiple of "
                                           << l.lane_start_gcd << " only; the layout's granule " << granule
                                           << " claims " << need;
    ++checked;
    softmax_loops += softmax;
    sgd_loops += sgd;
    loss_loops += loss;
  }
  EXPECT_GE(checked, 4) << "the step ran no LayerNorm or GELU loop";
  EXPECT_EQ(softmax_loops, 5) << "the step ran fewer than the softmax modules' five loops";
  EXPECT_EQ(sgd_loops, 1) << "the step ran no SGD update";
  EXPECT_EQ(loss_loops, 3) << "the step ran fewer than the loss module's three loops";
}

/// One training step (forward, backward, SGD) of the HLS model on K tokens, measured by
/// the access probe; `ports` (when not null) receives the per-memory measurements.
Counts hls_counts(const ModelSpec& spec, bool btt, std::int64_t K, bool recompute,
                  std::map<std::string, ttsim_hls::MeasuredLoop>* ports = nullptr,
                  std::vector<ttsim_hls::LoopInvocation>* sequence = nullptr, bool recompute_encoders = false,
                  const AccumulateByAdd& by_add = {}) {
  std::map<std::string, bool> btt_by_kind;
  for (const char* k : kKinds) btt_by_kind[k] = btt;
  const testing::ProbedStep step =
      testing::run_probed_step(spec, btt_by_kind, K, recompute, recompute_encoders,
                               {by_add.contraction_lanes, by_add.arena_banks});
  Counts c;
  for (const auto& [name, l] : step.loops) {
    c[name] = {l.invocations, l.iterations};
    expect_loop_within_spec(name, l);
  }
  expect_lane_starts_within_granules(step);
  if (ports) *ports = step.loops;
  if (sequence) *sequence = step.sequence;
  return c;
}

/// The graph of `spec` for K tokens (0: exactly seq_len, the padded length the simulator
/// uses) against the HLS step on as many tokens, every TT layer in `flow` (BTT layers
/// recomputing their merges when `recompute`; the encoders recomputed when
/// `recompute_encoders`; the accumulating products through partials and adds where `by_add`
/// chooses it, in the graph and in the step alike).
void expect_graph_matches_hls(const ModelSpec& spec, Flow flow, std::int64_t K = 0, bool recompute = false,
                              bool recompute_encoders = false, const AccumulateByAdd& by_add = {}) {
  if (K == 0) K = spec.seq_len;
  GraphOptions o;
  for (const char* k : kKinds) o.flow_by_kind[k] = flow;
  o.tokens = K;
  o.recompute_merges = recompute;
  o.recompute_encoders = recompute_encoders;
  o.by_add = by_add;
  const TaskGraph g = build_training_graph(spec, o);
  std::map<std::string, std::vector<std::string>> who;
  const Counts want = graph_counts(g, &who);
  std::map<std::string, ttsim_hls::MeasuredLoop> ports;
  std::vector<ttsim_hls::LoopInvocation> sequence;
  const Counts got =
      hls_counts(spec, flow == Flow::kBTT, K, recompute, &ports, &sequence, recompute_encoders, by_add);
  // The order: the graph's tasks, in the order the machine runs them (one call at a time, in
  // task order), run the same loops with the same trip counts in the same sequence as the
  // real step's kernel calls.
  {
    std::vector<int> order(g.tasks.size());
    for (std::size_t t = 0; t < order.size(); ++t) order[t] = static_cast<int>(t);
    const std::vector<std::string> want_seq = testing::graph_loop_sequence(g, order);
    std::string around;
    const std::size_t i = testing::first_difference(want_seq, sequence, &around);
    EXPECT_EQ(want_seq.size(), sequence.size()) << spec.name << " " << to_string(flow) << ": loop invocations";
    EXPECT_EQ(i, std::min(want_seq.size(), sequence.size()))
        << spec.name << " " << to_string(flow) << " K=" << K << ": the order differs at invocation " << i << around;
  }
  const std::map<std::string, int> res = graph_res_mii(g);
  expect_ports_fit(ports, res, spec.name + " " + to_string(flow));
  expect_bindings_fit(ports, res, spec.name + " " + to_string(flow));
  // The contraction (most of the step) needs no more than the two ports of any bank: the
  // arena plan keeps every call's output out of its inputs' arrays.
  for (const char* loop : {"contract_column", "contract_dot"}) {
    if (res.count(loop)) EXPECT_EQ(res.at(loop), 1) << loop;
    if (!ports.count(loop)) continue;
    EXPECT_FALSE(ports.at(loop).max_memory_bank_accesses.empty()) << loop << ": no memory accesses measured";
    EXPECT_FALSE(ports.at(loop).bindings.empty()) << loop << ": no bindings recorded";
    for (const auto& b : ports.at(loop).bindings) {
      EXPECT_EQ(static_res_mii(loop, b), 1) << loop << ": a call binds its output to an input's memory";
      EXPECT_NE(b.count("C"), 0u) << loop;
    }
    for (const auto& [memory, accesses] : ports.at(loop).max_memory_bank_accesses) {
      EXPECT_LE(accesses, ttsim_spec::kBankPorts) << loop << " on " << memory;
    }
  }
  // Call by call: the i-th loop invocation of the graph's tasks (in task order) binds its
  // kernel's arrays to the memories the real step's i-th invocation touched.
  {
    const auto want_bind = graph_call_bindings(g);
    ASSERT_EQ(want_bind.size(), sequence.size());
    int differ = 0;
    for (std::size_t i = 0; i < sequence.size(); ++i) {
      // A loop that touched no registered memory (only registers) has no measured binding.
      if (sequence[i].binding.empty()) continue;
      if (want_bind[i].second == sequence[i].binding) continue;
      if (++differ > 3) continue;
      std::string w, h;
      for (const auto& [arg, memory] : want_bind[i].second) w += arg + "=" + memory + " ";
      for (const auto& [arg, memory] : sequence[i].binding) h += arg + "=" + memory + " ";
      ADD_FAILURE() << spec.name << " " << to_string(flow) << ": invocation " << i << " (" << sequence[i].loop
                    << ") graph binds " << w << "| the step " << h;
    }
    EXPECT_EQ(differ, 0) << "invocations whose memories differ";
  }
  // Every task of the graph binds its kernel's arrays to the memories the real step's call
  // sites bind them to: the same distinct bindings per loop.
  for (const auto& [loop, bindings] : graph_bindings(g)) {
    ASSERT_TRUE(ports.count(loop)) << loop;
    auto describe = [](const std::set<std::map<std::string, std::string>>& s) {
      std::string out;
      for (const auto& b : s) {
        out += "\n  ";
        for (const auto& [arg, memory] : b) out += arg + "=" + memory + " ";
      }
      return out;
    };
    EXPECT_EQ(describe(bindings), describe(ports.at(loop).bindings))
        << spec.name << " " << to_string(flow) << ": loop " << loop
        << " graph bindings (left) vs the real step's (right)";
  }
  std::set<std::string> labels;
  for (const auto& [n, c] : want) labels.insert(n);
  for (const auto& [n, c] : got) labels.insert(n);
  for (const auto& n : labels) {
    const Count w = want.count(n) ? want.at(n) : Count{};
    const Count h = got.count(n) ? got.at(n) : Count{};
    std::ostringstream tasks;
    if (w.invocations != h.invocations || w.iterations != h.iterations) {
      for (const auto& t : who[n]) tasks << "\n  " << t;
    }
    const std::string what = spec.name + " " + to_string(flow) + " K=" + std::to_string(K) +
                             ": loop " + n;
    EXPECT_EQ(w.invocations, h.invocations) << what << " invocations (graph tasks" << tasks.str() << ")";
    EXPECT_EQ(w.iterations, h.iterations) << what << " iterations";
  }
  EXPECT_FALSE(got.empty());
}

TEST(GraphMatchesHls, Atis2EncoderBtt) { expect_graph_matches_hls(load_model_spec(testing::model_preset_path("atis_2enc.json")), Flow::kBTT); }

TEST(GraphMatchesHls, Atis2EncoderSequentialTt) {
  expect_graph_matches_hls(load_model_spec(testing::model_preset_path("atis_2enc.json")), Flow::kTT);
}

TEST(GraphMatchesHls, TinyModelBtt) { expect_graph_matches_hls(testing::tiny_2enc_spec(), Flow::kBTT); }

// BTT layers that recompute their merges in the backward pass: the graph's recomputation
// tasks are the kernel's btt_remerge calls, in the same place.
TEST(GraphMatchesHls, BttWithRecomputedMerges) {
  expect_graph_matches_hls(testing::tiny_2enc_spec(), Flow::kBTT, 0, true);
  expect_graph_matches_hls(load_model_spec(testing::model_preset_path("atis_2enc.json")), Flow::kBTT, 0, true);
}

// Encoders recomputed before their backward: the graph's ".re" tasks are the step's second
// encoder_forward calls, in the same place, binding the same arrays; 3 encoders (two
// recomputed), both flows, with and without the merges recomputed, encoders of uneven ranks,
// and the ATIS preset.
TEST(GraphMatchesHls, RecomputedEncoders) {
  for (bool merges : {false, true}) {
    expect_graph_matches_hls(testing::tiny_spec(3), Flow::kBTT, 0, merges, true);
  }
  expect_graph_matches_hls(testing::tiny_spec(3), Flow::kTT, 0, false, true);
  expect_graph_matches_hls(testing::tiny_uneven_spec(), Flow::kBTT, 0, true, true);
  expect_graph_matches_hls(load_model_spec(testing::model_preset_path("atis_2enc.json")), Flow::kBTT, 0, true, true);
}

// The rank-1 ends in their plain form (and one transposed) in both memory plans.
TEST(GraphMatchesHls, PlainRankOneEnds) {
  expect_graph_matches_hls(testing::tiny_plain_ends_spec(), Flow::kBTT);
  expect_graph_matches_hls(testing::tiny_plain_ends_spec(), Flow::kBTT, 0, true);
}

// A four-core TTM (last step transposed) whose temporaries are larger than act's and out's
// activations: its tensors in the arrays the HLS step binds.
TEST(GraphMatchesHls, FourCoreTtm) { expect_graph_matches_hls(testing::tiny_ttm4_spec(), Flow::kBTT); }

TEST(GraphMatchesHls, TinyModelSequentialTt) { expect_graph_matches_hls(testing::tiny_2enc_spec(), Flow::kTT); }

// A sample shorter than seq_len (one sequence of K tokens, unpadded) in both flows.
TEST(GraphMatchesHls, TinyModelShortSample) {
  expect_graph_matches_hls(testing::tiny_2enc_spec(), Flow::kBTT, 4);
  expect_graph_matches_hls(testing::tiny_2enc_spec(), Flow::kTT, 4);
}

// An ATIS sample shorter than seq_len: its score rows keep the sequence length's pitch, so
// the softmax modules' lane starts stay multiples of their lanes (rows packed at K = 17
// words would start at multiples of 1).
TEST(GraphMatchesHls, AtisShortSample) {
  expect_graph_matches_hls(load_model_spec(testing::model_preset_path("atis_2enc.json")), Flow::kBTT, 17);
}

// The choices of a dual-port machine (128 contraction lanes on 64 banks, u50_unit_lanes): BTT's accumulating dX, the TTM's core-gradient scatter (token by token) and
// the intent head's dX through partials and adds — the graph's tasks and the step's calls
// the same, call by call; short samples too (the scatter's per-token calls).
TEST(GraphMatchesHls, AccumulatingProductsThroughAnAdd) {
  const AccumulateByAdd dual{128, 64};
  const ModelSpec atis = load_model_spec(testing::model_preset_path("atis_2enc.json"));
  std::vector<char> choices;
  GraphOptions o;
  o.by_add = dual;
  accumulate_by_add_choices(atis, o, choices);
  EXPECT_GT(std::count(choices.begin(), choices.end(), 1), 8) << "BTT dX, the intent head and the TTM";
  expect_graph_matches_hls(atis, Flow::kBTT, 0, false, false, dual);
  expect_graph_matches_hls(atis, Flow::kBTT, 17, true, false, dual);
  expect_graph_matches_hls(testing::tiny_ttm4_spec(), Flow::kBTT, 0, false, true, dual);
  expect_graph_matches_hls(testing::tiny_2enc_spec(), Flow::kTT, 4, false, false, dual);
}

TEST(GraphMatchesHls, PortsCheckSeesAnOutputInItsInputsMemory) {
  // The measurement the port check rests on: a contraction that accumulates into the
  // memory its A operand is read from needs three accesses of one bank per iteration
  // (A read, C read, C write), more than the two ports; with C in a memory of its own,
  // neither memory needs more than two.
  using Vf = std::vector<float>;
  constexpr int B = ttsim_cfg::kArenaBanks;
  Vf one(4 * B, 0.5f), other(4 * B, 0.25f);
  ttsim_hls::ContractDesc d = ttsim_hls::plain_desc(2, 3, B);
  d.accumulate = true;
  auto run = [&](float* c_base) {
    ttsim_hls::AccessProbeScope probe(B);
    probe.add_memory("one", one.data(), one.size() * sizeof(float), sizeof(float));
    probe.add_memory("other", other.data(), other.size() * sizeof(float), sizeof(float));
    ttsim_hls::contract_kernel<ttsim_cfg::kContractLanes, B>(ttsim_hls::bank_view<B>(one.data()),
                                                              ttsim_hls::bank_view<B>(one.data()) + B,
                                                              ttsim_hls::bank_view<B>(c_base) + 2 * B, d);
    return probe.loops().at("contract_column_acc").max_memory_bank_accesses;
  };
  const auto shared = run(one.data());
  EXPECT_GT(shared.at("one"), ttsim_spec::kBankPorts);
  const auto apart = run(other.data());
  EXPECT_LE(apart.at("one"), ttsim_spec::kBankPorts);
  EXPECT_LE(apart.at("other"), ttsim_spec::kBankPorts);
}

TEST(GraphMatchesHls, StaticBindingCheckSeesAnOutputInItsAInputsMemory) {
  // C in the memory of A, B elsewhere, three reduction steps, accumulating: no single
  // iteration reads and writes C (C_old at the first step, C at the last), so the
  // per-iteration count stays at 2 — but the column_acc loop's static schedule holds A's
  // read site and C's read and write sites on that memory, three ports: the binding check
  // reports ResMII 2 against the 1 the arena plan allows. The column loop of a call that
  // does not accumulate has no C read site: A read + C write fit.
  using Vf = std::vector<float>;
  constexpr int B = ttsim_cfg::kArenaBanks;
  Vf one(8 * B, 0.5f), other(4 * B, 0.25f);
  ttsim_hls::ContractDesc d = ttsim_hls::plain_desc(2, 3, B);
  d.accumulate = true;
  ttsim_hls::AccessProbeScope probe(B);
  probe.add_memory("one", one.data(), one.size() * sizeof(float), sizeof(float));
  probe.add_memory("other", other.data(), other.size() * sizeof(float), sizeof(float));
  ttsim_hls::contract_kernel<ttsim_cfg::kContractLanes, B>(ttsim_hls::bank_view<B>(one.data()),
                                                            ttsim_hls::bank_view<B>(other.data()),
                                                            ttsim_hls::bank_view<B>(one.data()) + 4 * B, d);
  const ttsim_hls::MeasuredLoop m = probe.loops().at("contract_column_acc");
  EXPECT_LE(m.max_memory_bank_accesses.at("one"), ttsim_spec::kBankPorts);
  ASSERT_EQ(m.bindings.size(), 1u);
  const auto& b = *m.bindings.begin();
  EXPECT_EQ(b.at("A"), "one");
  EXPECT_EQ(b.at("B"), "other");
  EXPECT_EQ(b.at("C"), "one");
  EXPECT_EQ(static_res_mii("contract_column_acc", b), 2);
  EXPECT_EQ(static_res_mii("contract_column", b), 1);
  // The same call with C in a third memory fits.
  EXPECT_EQ(static_res_mii("contract_column_acc", {{"A", "one"}, {"B", "other"}, {"C", "third"}}), 1);
}

}  // namespace
}  // namespace ttsim
