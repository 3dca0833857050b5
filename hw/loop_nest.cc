#include "hw/loop_nest.h"

#include <array>
#include <stdexcept>

namespace ttsim {
namespace {

LoopSpec make_loop(const ttsim_spec::LoopSpec& l, int index, int lanes) {
  LoopSpec s;
  s.name = l.name;
  s.index = index;
  s.spec = &l;
  s.chain = expand_ops(l.chain, l.n_chain, lanes);
  for (int r = 0; r < l.n_rec; ++r) {
    const ttsim_spec::Recurrence& rec = l.rec[r];
    s.recurrences.push_back({rec.variable, expand_ops(rec.ops, rec.n_ops, lanes), rec.distance});
  }
  for (int a = 0; a < l.n_access; ++a) {
    const ttsim_spec::ArrayAccess& acc = l.access[a];
    s.accesses.push_back({acc.array, acc.kind != ttsim_spec::kScalarAccess, acc.reads, acc.writes});
  }
  return s;
}

}  // namespace

const ttsim_spec::KernelSpec& kernel_spec(TaskOp op) {
  // kernel_index by op, looked up once.
  static const std::array<int, kTaskOpCount> index = [] {
    std::array<int, kTaskOpCount> i{};
    for (int o = 0; o < kTaskOpCount; ++o) i[o] = ttsim_spec::kernel_index(to_string(static_cast<TaskOp>(o)));
    return i;
  }();
  const int o = static_cast<int>(op);
  const int k = o >= 0 && o < kTaskOpCount ? index[o] : -1;
  if (k < 0) {
    throw std::invalid_argument(std::string("kernel_spec: no kernel of hls/include/kernel_spec.h runs TaskOp \"") +
                                to_string(op) + "\"");
  }
  return ttsim_spec::kKernelSpecs[k];
}

std::vector<std::string> expand_ops(const ttsim_spec::ChainOp* ops, int n, int lanes) {
  std::vector<std::string> out;
  const int levels = ttsim_spec::tree_levels(lanes);
  for (int i = 0; i < n; ++i) {
    const int times = ops[i].rep == ttsim_spec::kTree ? levels : 1;
    for (int t = 0; t < times; ++t) out.emplace_back(ttsim_spec::kOprNames[ops[i].op]);
  }
  return out;
}

std::int64_t loop_trip(const ttsim_spec::LoopSpec& l, const TaskShape& s, int lanes, int banks) {
  return ttsim_spec::loop_trip(l.trip, l.variant, s.variant, s.batch, s.rows, s.inner, s.cols, lanes, banks);
}

std::vector<LoopSpec> kernel_loops(TaskOp op, const TaskShape& s, int lanes, int banks) {
  if (lanes < 1) throw std::invalid_argument("kernel_loops: lanes must be >= 1");
  if (s.batch < 1 || s.rows < 1 || s.inner < 1 || s.cols < 1) {
    throw std::invalid_argument("kernel_loops: every shape extent must be >= 1");
  }
  if (s.variant < 0) throw std::invalid_argument("kernel_loops: the variant must be >= 0");
  const ttsim_spec::KernelSpec& k = kernel_spec(op);
  std::vector<LoopSpec> out;
  for (int i = 0; i < k.n_loops; ++i) {
    const std::int64_t trip = loop_trip(k.loops[i], s, lanes, banks);
    if (trip <= 0) continue;
    out.push_back(make_loop(k.loops[i], i, lanes));
    out.back().trip = trip;
  }
  if (out.empty()) {
    throw std::invalid_argument(std::string("kernel_loops: variant ") + std::to_string(s.variant) +
                                " selects no loop of the " + to_string(op) + " kernel (hls/include/kernel_spec.h)");
  }
  return out;
}

std::vector<LoopSpec> all_kernel_loops(TaskOp op, int lanes) {
  if (lanes < 1) throw std::invalid_argument("all_kernel_loops: lanes must be >= 1");
  const ttsim_spec::KernelSpec& k = kernel_spec(op);
  std::vector<LoopSpec> out;
  for (int i = 0; i < k.n_loops; ++i) out.push_back(make_loop(k.loops[i], i, lanes));
  return out;
}

std::int64_t total_trips(TaskOp op, const TaskShape& shape, int lanes, int banks) {
  std::int64_t t = 0;
  for (const auto& l : kernel_loops(op, shape, lanes, banks)) t += l.trip;
  return t;
}

}  // namespace ttsim
