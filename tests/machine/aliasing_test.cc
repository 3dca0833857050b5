// No call of the step binds two arguments that one loop iteration accesses to one array
// (machine/aliasing.h): on every preset and every buildable shipped arch the non-contraction
// kernels need none (LayerNorm, its gradient and softmax take each array once:
// ttsim_spec::kSharedArguments; the position and residual adds accumulate in place), the
// contraction none (the first core of each merge chain and the TTM's core 1 are copied
// to chain0 first; K is in act_mem, Q in out_mem), and a graph that binds two arguments to
// one array — or one argument to two — is found and refused by the machine description
// with the task, loop, arguments and array.

#include <set>
#include <string>

#include <gtest/gtest.h>

#include "core/errors.h"
#include "hls/include/kernel_spec.h"
#include "hw/device_spec.h"
#include "machine/aliasing.h"
#include "machine/machine.h"
#include "models/training_graph.h"
#include "sim/step_sim.h"
#include "hw/arch_spec.h"

namespace ttsim {
namespace {

TaskGraph graph_of(const std::string& model_name, const std::string& arch_name) {
  const ModelSpec model = load_model_spec("configs/models/" + model_name + ".json");
  const ArchSpec arch = load_arch_spec("configs/arch/" + arch_name + ".json");
  return build_training_graph(model, graph_options(arch, 0));
}

struct Case {
  const char* model;
  const char* arch;
};

class NoAliasedBinding : public ::testing::TestWithParam<Case> {};

TEST_P(NoAliasedBinding, NoCallBindsTwoArgumentsOfOneIterationToOneArray) {
  const TaskGraph g = graph_of(GetParam().model, GetParam().arch);
  for (const auto& a : machine::aliased_bindings(g)) {
    ADD_FAILURE() << a.task_name << " " << a.module << "/" << a.loop << ": " << a.first << ", " << a.second
                  << " -> " << a.array;
  }
}

INSTANTIATE_TEST_SUITE_P(Presets, NoAliasedBinding,
                         ::testing::Values(Case{"atis_2enc", "u50_paper"}, Case{"atis_4enc", "u50_paper"},
                                           Case{"atis_6enc", "u50_paper"}, Case{"atis_2enc", "u50_paper_recompute"},
                                           Case{"atis_2enc", "u50_tt_sequential"}, Case{"atis_2enc", "u50_unit_lanes"},
                                           Case{"atis_4enc", "u50_paper_recompute_encoders"}));

/// The first task of `g` running `op`.
Task& first_task(TaskGraph& g, TaskOp op) {
  for (Task& t : g.tasks) {
    if (t.op == op) return t;
  }
  throw std::logic_error("no task of that op");
}

/// The graph of (model, arch) with every contraction's arguments apart (memories 0), so the
/// injected binding is the only one.
TaskGraph graph_without_contraction_bindings(const std::string& model, const std::string& arch) {
  TaskGraph g = graph_of(model, arch);
  for (Task& t : g.tasks) {
    if (t.op == TaskOp::kContraction) t.shape.memories = 0;
  }
  return g;
}

int slot(TaskOp op, const char* array) {
  const auto& k = ttsim_spec::kKernelSpecs[ttsim_spec::kernel_index(to_string(op))];
  return ttsim_spec::kernel_array_slot(k, array);
}

TEST(AliasedBinding, TwoArgumentsOfOneIterationInOneArrayAreFoundAndRefused) {
  TaskGraph g = graph_without_contraction_bindings("atis_2enc", "u50_paper");
  ASSERT_NO_THROW(machine::check_no_aliased_bindings(g, "u50_paper"));
  // LayerNorm's gradient with dx in the array of dy: both accessed in layernorm_grad_input.
  Task& t = first_task(g, TaskOp::kLayerNormGrad);
  const int dy = ttsim_spec::memory_of(t.shape.memories, slot(t.op, "dy"));
  t.shape.memories = ttsim_spec::with_memory(t.shape.memories, slot(t.op, "dx"), dy);
  const auto found = machine::aliased_bindings(g);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].task_name, t.name);
  EXPECT_EQ(found[0].module, "ttsim_layernorm_grad");
  EXPECT_EQ(found[0].loop, "layernorm_grad_input");
  EXPECT_EQ(found[0].first, "dy");
  EXPECT_EQ(found[0].second, "dx");
  EXPECT_EQ(found[0].array, machine::memory_array_name(dy));
  EXPECT_FALSE(found[0].split);
  // The machine description refuses it: explore marks the design infeasible with this
  // reason, the other commands exit 2 with it.
  const ModelSpec model = load_model_spec("configs/models/atis_2enc.json");
  const ArchSpec arch = load_arch_spec("configs/arch/u50_paper.json");
  const DeviceSpec device = load_device_spec("configs/devices/u50.json");
  try {
    machine::describe(model, arch, device, g);
    FAIL() << "a design binding two arguments of one iteration to one array was described";
  } catch (const ConfigError& e) {
    EXPECT_NE(e.file().find("u50_paper.json"), std::string::npos) << e.file();
    const std::string what = e.what();
    EXPECT_NE(what.find(t.name), std::string::npos) << what;
    EXPECT_NE(what.find("\"dy\" and \"dx\""), std::string::npos) << what;
    EXPECT_NE(what.find(machine::memory_array_name(dy)), std::string::npos) << what;
  }
}

TEST(AliasedBinding, OneArgumentBoundToTwoArraysIsFound) {
  TaskGraph g = graph_without_contraction_bindings("atis_2enc", "u50_paper");
  // LayerNorm's x̂ and 1/σ are one argument (`saved`) of ttsim_layernorm: 1/σ elsewhere
  // cannot be built.
  Task& t = first_task(g, TaskOp::kLayerNorm);
  ASSERT_NE(ttsim_spec::shared_argument("ttsim_layernorm", "xhat", "rstd"), nullptr);
  t.shape.memories = ttsim_spec::with_memory(t.shape.memories, slot(t.op, "rstd"), ttsim_spec::kChain0Mem);
  const auto found = machine::aliased_bindings(g);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_TRUE(found[0].split);
  EXPECT_EQ(found[0].loop, "layernorm_normalize");
  EXPECT_EQ(found[0].array, "saved1_mem and chain0_mem");
}

TEST(AliasedBinding, AContractionReadingTwoCoresFromParamMemIsRefused) {
  // What the first merge of a BTT chain did before its A core was copied to chain0: A and B
  // both in param_mem.
  TaskGraph g = graph_of("atis_2enc", "u50_paper");
  Task* merge = nullptr;
  for (Task& t : g.tasks) {
    if (t.role == "btt.merge_left") {
      merge = &t;
      break;
    }
  }
  ASSERT_NE(merge, nullptr);
  merge->shape.memories = ttsim_spec::with_memory(merge->shape.memories, slot(merge->op, "A"), ttsim_spec::kParamMem);
  merge->shape.memories = ttsim_spec::with_memory(merge->shape.memories, slot(merge->op, "B"), ttsim_spec::kParamMem);
  const auto found = machine::aliased_bindings(g);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].task_name, merge->name);
  EXPECT_EQ(found[0].module, "ttsim_contraction");
  EXPECT_EQ(found[0].first, "A");
  EXPECT_EQ(found[0].second, "B");
  EXPECT_EQ(found[0].array, "param_mem");
  EXPECT_THROW(machine::check_no_aliased_bindings(g, "u50_paper.json"), ConfigError);
}

}  // namespace
}  // namespace ttsim
