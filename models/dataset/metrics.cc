#include "models/dataset/metrics.h"

#include <stdexcept>

namespace ttsim::dataset {

std::vector<SlotSpan> bio_spans(const std::vector<std::string>& tags) {
  std::vector<SlotSpan> spans;
  bool open = false;
  SlotSpan cur;
  auto close = [&](int end) {
    if (open) {
      cur.end = end;
      spans.push_back(cur);
      open = false;
    }
  };
  for (int i = 0; i < static_cast<int>(tags.size()); ++i) {
    const std::string& t = tags[static_cast<std::size_t>(i)];
    const bool is_b = t.size() > 2 && t.compare(0, 2, "B-") == 0;
    const bool is_i = t.size() > 2 && t.compare(0, 2, "I-") == 0;
    if (!is_b && !is_i) {
      close(i);
      continue;
    }
    const std::string type = t.substr(2);
    if (is_i && open && cur.type == type) continue;  // continuation
    close(i);
    cur = SlotSpan{type, i, i};
    open = true;
  }
  close(static_cast<int>(tags.size()));
  return spans;
}

void SlotF1::add(const std::vector<std::string>& gold, const std::vector<std::string>& predicted) {
  if (gold.size() != predicted.size()) {
    throw std::invalid_argument("SlotF1::add: " + std::to_string(gold.size()) +
                                " gold tags but " + std::to_string(predicted.size()) +
                                " predicted tags");
  }
  const auto g = bio_spans(gold);
  const auto p = bio_spans(predicted);
  gold_ += static_cast<std::int64_t>(g.size());
  predicted_ += static_cast<std::int64_t>(p.size());
  // Both lists are ordered by begin and non-overlapping: merge.
  std::size_t i = 0, j = 0;
  while (i < g.size() && j < p.size()) {
    if (g[i] == p[j]) {
      ++correct_;
      ++i;
      ++j;
    } else if (g[i].begin < p[j].begin || (g[i].begin == p[j].begin && g[i].end < p[j].end)) {
      ++i;
    } else {
      ++j;
    }
  }
}

double SlotF1::precision() const {
  return predicted_ ? static_cast<double>(correct_) / predicted_ : 0.0;
}

double SlotF1::recall() const { return gold_ ? static_cast<double>(correct_) / gold_ : 0.0; }

double SlotF1::f1() const {
  const double p = precision(), r = recall();
  return p + r > 0 ? 2 * p * r / (p + r) : 0.0;
}

}  // namespace ttsim::dataset
