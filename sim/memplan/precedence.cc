#include "sim/memplan/precedence.h"

#include <algorithm>

namespace ttsim::memplan {

BufferOrder::BufferOrder(const TaskGraph& graph) {
  const std::size_t n = graph.tasks.size();
  const std::size_t words = (n + 63) / 64;
  anc_.assign(n, std::vector<std::uint64_t>(words, 0));
  for (std::size_t i = 0; i < n; ++i) {
    for (int d : graph.tasks[i].deps) {
      auto& a = anc_[i];
      const auto& ad = anc_[d];
      for (std::size_t w = 0; w < words; ++w) a[w] |= ad[w];
      a[d >> 6] |= std::uint64_t{1} << (d & 63);
    }
  }
  touch_.assign(graph.buffers.size(), {});
  for (std::size_t i = 0; i < n; ++i) {
    const Task& t = graph.tasks[i];
    for (const auto* list : {&t.reads, &t.writes}) {
      for (int b : *list) {
        auto& v = touch_[b];
        if (v.empty() || v.back() != static_cast<int>(i)) v.push_back(static_cast<int>(i));
      }
    }
  }
  common_anc_.assign(graph.buffers.size(), {});
  for (std::size_t b = 0; b < touch_.size(); ++b) {
    if (touch_[b].empty()) continue;
    std::vector<std::uint64_t> c(words, ~std::uint64_t{0});
    for (int t : touch_[b]) {
      for (std::size_t w = 0; w < words; ++w) c[w] &= anc_[t][w];
    }
    common_anc_[b] = std::move(c);
  }
}

bool BufferOrder::precedes(int a, int b) const {
  if (touch_[a].empty() || touch_[b].empty()) return false;
  const auto& c = common_anc_[b];
  for (int t : touch_[a]) {
    if (!((c[t >> 6] >> (t & 63)) & 1u)) return false;
  }
  return true;
}

}  // namespace ttsim::memplan
