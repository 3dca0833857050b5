// Every buffer of the step lives in one array of the emitted top (machine/machine.h
// Memory::graph_buffers, from the task graph's Buffer::memory): on every preset and both
// flows the kernel tree builds, each array holds at every point of the step no more words of
// the step's buffers than the arena plan sizes it for (hls/kernels/model_step.h make_layout,
// computed independently from the model's dimensions), the parameters fill their array
// but for the update groups' alignment padding, the largest update group's gradients fill the gradient array exactly (the fused
// update: one group's gradients live at a time), and the bank map the simulator runs on is
// these arrays.

#include <algorithm>
#include <string>

#include <gtest/gtest.h>

#include "machine/machine.h"
#include "models/training_graph.h"
#include "sim/step_sim.h"
#include "hw/arch_spec.h"
#include "hw/device_spec.h"
#include "sim/machine_banks.h"

namespace ttsim {
namespace {

struct Case {
  const char* model;
  const char* arch;
};

class BufferPlacement : public ::testing::TestWithParam<Case> {};

TEST_P(BufferPlacement, EveryArrayHoldsItsBuffersAtEveryPointOfTheStep) {
  const ModelSpec model = load_model_spec(std::string("configs/models/") + GetParam().model + ".json");
  const ArchSpec arch = load_arch_spec(std::string("configs/arch/") + GetParam().arch + ".json");
  const DeviceSpec device = load_device_spec("configs/devices/u50.json");
  const TaskGraph graph = build_training_graph(model, graph_options(arch, 0));
  const machine::Machine m = machine::describe(model, arch, device, graph);

  ASSERT_EQ(m.memory_of_buffer.size(), graph.buffers.size());
  const std::vector<std::int64_t> peak_live = machine::peak_live_words(m, graph);
  ASSERT_EQ(peak_live.size(), m.memories.size());
  std::size_t placed = 0;
  for (std::size_t i = 0; i < m.memories.size(); ++i) {
    const machine::Memory& mem = m.memories[i];
    placed += mem.graph_buffers.size();
    for (int id : mem.graph_buffers) EXPECT_EQ(m.memory_of_buffer[id], static_cast<int>(i)) << graph.buffers[id].name;
    EXPECT_LE(peak_live[i], mem.words) << mem.array << " (" << mem.holds << ")";
    if (mem.array == "param_mem") {
      // Every parameter, and the update groups' alignment padding (model_step.h kParamGroupAlign).
      EXPECT_LE(peak_live[i], m.param_words) << mem.array;
      // (less than kParamGroupAlign words before each group, and a group has a tensor).
      EXPECT_LT(m.param_words - peak_live[i],
                ttsim_hls::kParamGroupAlign * static_cast<std::int64_t>(mem.graph_buffers.size()))
          << mem.array;
    }
    if (mem.array == "grad_mem") {
      EXPECT_EQ(peak_live[i], mem.words);
      EXPECT_LT(mem.words, m.param_words) << "the gradient array holds one update group, not the model";
    }
  }
  EXPECT_EQ(placed, graph.buffers.size());

  // The peak of each array, task by task: the words of its buffers live at that task (a
  // parameter always; another buffer, a gradient included, from its first task to its last, from the
  // task after its first when that one writes it over its input in place).
  for (std::size_t i = 0; i < m.memories.size(); ++i) {
    const machine::Memory& mem = m.memories[i];
    std::int64_t peak = 0;
    for (int t = 0; t < static_cast<int>(graph.tasks.size()); ++t) {
      std::int64_t live = 0;
      for (int id : mem.graph_buffers) {
        const Buffer& b = graph.buffers[id];
        if (b.cls == BufferClass::kParameter || b.first_task < 0) {
          live += b.words;
          continue;
        }
        const TaskOp op = graph.tasks[b.first_task].op;
        const bool in_place = op == TaskOp::kSoftmax || op == TaskOp::kSoftmaxGrad || op == TaskOp::kGeluGrad;
        if (t >= b.first_task + (in_place ? 1 : 0) && t <= b.last_task) live += b.words;
      }
      peak = std::max(peak, live);
    }
    EXPECT_EQ(peak_live[i], peak) << mem.array;
  }

  const BankMap banks = machine_bank_map(m);
  ASSERT_EQ(banks.banks.size(), m.memories.size());
  for (std::size_t i = 0; i < banks.banks.size(); ++i) {
    EXPECT_EQ(banks.banks[i].name, m.memories[i].array);
    EXPECT_EQ(banks.banks[i].ports, 2 * m.memories[i].partition);
    EXPECT_EQ(banks.banks[i].blocks, m.memories[i].bram36 + m.memories[i].uram288);
  }
  EXPECT_EQ(banks.bank_of_buffer, m.memory_of_buffer);
}

INSTANTIATE_TEST_SUITE_P(Presets, BufferPlacement,
                         ::testing::Values(Case{"atis_2enc", "u50_paper"}, Case{"atis_4enc", "u50_paper"},
                                           Case{"atis_6enc", "u50_paper"}, Case{"atis_2enc", "u50_tt_sequential"},
                                           Case{"atis_6enc", "u50_tt_sequential"}, Case{"atis_2enc_r4", "u50_paper"},
                                           Case{"atis_2enc_r16", "u50_paper"}, Case{"atis_2enc", "u50_paper_recompute"},
                                           Case{"atis_6enc", "u50_paper_recompute"},
                                           Case{"atis_2enc", "u50_paper_recompute_encoders"},
                                           Case{"atis_6enc", "u50_paper_recompute_encoders"},
                                           // Dual-port lanes: the partial input gradients in act.
                                           Case{"atis_2enc", "u50_unit_lanes"}, Case{"atis_6enc", "u50_unit_lanes"}),
                         [](const auto& info) {
                           return std::string(info.param.model) + "_" + info.param.arch;
                         });

}  // namespace
}  // namespace ttsim
