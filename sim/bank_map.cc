#include "sim/bank_map.h"

#include <map>

#include "hls/loop_nest.h"

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

}  // namespace ttsim
