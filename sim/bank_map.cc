#include "sim/bank_map.h"

#include <stdexcept>

#include <map>

#include "hw/loop_nest.h"

namespace ttsim {

const char* to_string(BlockKind k) { return k == BlockKind::kBram36 ? "bram36" : "uram288"; }

namespace {

constexpr std::int64_t kUramWords = 8192;  // 4K rows × 72 bits = 2 FP32 words per row
constexpr std::int64_t kBramWords = 1024;  // 1K × 36 mode: 1 FP32 word per row

BankInstance make_bank(std::string name, std::int64_t words) {
  BankInstance b;
  b.name = std::move(name);
  if (words >= kUramWords) {
    b.kind = BlockKind::kUram288;
    b.blocks = ceil_div(words, kUramWords);
    b.words_per_port_cycle = 2 * b.blocks;
  } else {
    b.kind = BlockKind::kBram36;
    b.blocks = ceil_div(words, kBramWords);
    b.words_per_port_cycle = b.blocks;
  }
  return b;
}

}  // namespace

BankMap fallback_bank_map(const TaskGraph& graph, MemoryStrategy strategy,
                          const std::vector<std::int64_t>& footprint,
                          const std::vector<bool>& fused) {
  BankMap m;
  m.origin = std::string("sim fallback (") + to_string(strategy) + ")";
  m.bank_of_buffer.assign(graph.buffers.size(), -1);
  std::map<std::pair<std::string, int>, std::vector<int>> groups;
  for (const Buffer& b : graph.buffers) {
    const std::int64_t words = footprint[b.id];
    if (words <= 0 || fused[b.id]) continue;
    const bool groupable = strategy == MemoryStrategy::kGrouped && words < kUramWords &&
                           (b.cls == BufferClass::kParameter || b.cls == BufferClass::kGradient);
    if (groupable) {
      groups[{b.layer, static_cast<int>(b.cls)}].push_back(b.id);
      continue;
    }
    m.bank_of_buffer[b.id] = static_cast<int>(m.banks.size());
    m.banks.push_back(make_bank(b.name, words));
    m.banks.back().buffers = {b.id};
  }
  for (const auto& [key, ids] : groups) {
    std::int64_t words = 0;
    for (int id : ids) words += footprint[id];
    for (int id : ids) m.bank_of_buffer[id] = static_cast<int>(m.banks.size());
    m.banks.push_back(make_bank(key.first + "." + to_string(static_cast<BufferClass>(key.second)) +
                                    "s.group",
                                words));
    m.banks.back().buffers = ids;
  }
  for (const BankInstance& b : m.banks) {
    (b.kind == BlockKind::kBram36 ? m.bram36_blocks : m.uram_blocks) += b.blocks;
  }
  return m;
}

void task_banks_into(const TaskGraph& graph, const BankMap& banks, const std::vector<std::int64_t>& footprint,
                     TaskBanks& out) {
  if (banks.bank_of_buffer.size() < graph.buffers.size() || footprint.size() < graph.buffers.size()) {
    throw std::invalid_argument("task_banks: bank map or footprint does not cover the graph's buffers");
  }
  out.begin.resize(graph.tasks.size() + 1);
  out.bank.clear();
  // The last task that listed each bank: a task lists each of its banks once.
  thread_local std::vector<int> listed_by;
  listed_by.assign(banks.banks.size(), -1);
  const int* bank_of = banks.bank_of_buffer.data();
  const std::int64_t* words = footprint.data();
  for (const Task& t : graph.tasks) {
    out.begin[t.id] = static_cast<int>(out.bank.size());
    auto list = [&](const std::vector<int>& buffers) {
      for (int b : buffers) {
        const int bank = bank_of[b];
        if (bank < 0 || words[b] <= 0 || listed_by[bank] == t.id) continue;
        listed_by[bank] = t.id;
        out.bank.push_back(bank);
      }
    };
    list(t.reads);
    list(t.writes);
  }
  out.begin[graph.tasks.size()] = static_cast<int>(out.bank.size());
}

}  // namespace ttsim
