#include "sim/kernel_loop_form.h"

#include <algorithm>
#include <array>
#include <optional>
#include <stdexcept>
#include <string>

#include "hls/loop_nest.h"

namespace ttsim {
namespace {

/// Exponent (0 or 1) of a factor from the value at extent 1 (`base`) and at extent 2
/// (`doubled`); nullopt when the ratio is neither 1 nor 2.
std::optional<bool> exponent(std::int64_t base, std::int64_t doubled) {
  if (doubled == base) return false;
  if (doubled == 2 * base) return true;
  return std::nullopt;
}

/// Fits a monomial to values at the unit shape and with one extent doubled
/// (order: batch, rows, inner, cols with lanes 1). A zero coefficient is the constant 0.
std::optional<ShapeMonomial> fit(std::int64_t base, const std::array<std::int64_t, 4>& doubled) {
  ShapeMonomial m;
  m.coeff = base;
  if (base == 0) {
    for (std::int64_t d : doubled) {
      if (d != 0) return std::nullopt;
    }
    return m;
  }
  bool* exps[4] = {&m.batch, &m.rows, &m.inner, &m.tiles};
  for (int k = 0; k < 4; ++k) {
    const auto e = exponent(base, doubled[k]);
    if (!e) return std::nullopt;
    *exps[k] = *e;
  }
  return m;
}

/// Deterministic probe (shape, lanes) pairs: corner cases plus a pseudo-random spread
/// with cols below, equal to, and off multiples of the lane count.
std::vector<std::pair<TaskShape, int>> probes() {
  std::vector<std::pair<TaskShape, int>> p = {
      {{1, 1, 1, 1}, 1}, {{1, 1, 1, 1}, 7},   {{3, 5, 7, 11}, 1},  {{3, 5, 7, 11}, 4},
      {{2, 3, 4, 16}, 16}, {{2, 3, 4, 17}, 16}, {{5, 1, 9, 3}, 128}, {{1, 64, 768, 96}, 32}};
  static constexpr std::int64_t kExtents[] = {1, 2, 3, 4, 5, 7, 8, 12, 13, 16, 31, 64, 100, 768};
  static constexpr int kLanes[] = {1, 2, 3, 4, 5, 8, 16, 32, 128};
  std::uint64_t x = 0x9e3779b97f4a7c15ULL;
  auto next = [&x](std::uint64_t n) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<std::size_t>((x >> 33) % n);
  };
  constexpr std::size_t kE = sizeof(kExtents) / sizeof(kExtents[0]);
  constexpr std::size_t kL = sizeof(kLanes) / sizeof(kLanes[0]);
  for (int i = 0; i < 64; ++i) {
    TaskShape s{kExtents[next(kE)], kExtents[next(kE)], kExtents[next(kE)], kExtents[next(kE)]};
    p.push_back({s, kLanes[next(kL)]});
  }
  return p;
}

KernelForm derive(TaskOp op) {
  KernelForm form;
  const std::vector<LoopSpec> unit = kernel_loops(op, TaskShape{}, 1);
  for (const LoopSpec& l : unit) form.loops.push_back({l.name, l.chain, {}, {}, {}});
  const std::array<TaskShape, 4> doubled_shapes = {
      TaskShape{2, 1, 1, 1}, TaskShape{1, 2, 1, 1}, TaskShape{1, 1, 2, 1}, TaskShape{1, 1, 1, 2}};
  std::array<std::vector<LoopSpec>, 4> doubled;
  for (int k = 0; k < 4; ++k) {
    doubled[k] = kernel_loops(op, doubled_shapes[k], 1);
    if (doubled[k].size() != unit.size()) return form;
  }
  for (std::size_t i = 0; i < unit.size(); ++i) {
    std::array<std::int64_t, 4> trips{}, recs{};
    for (int k = 0; k < 4; ++k) {
      trips[k] = doubled[k][i].trip;
      recs[k] = doubled[k][i].recurrence_distance;
    }
    const auto trip = fit(unit[i].trip, trips);
    const auto rec = fit(unit[i].recurrence_distance, recs);
    if (!trip || !rec) return form;
    form.loops[i].trip = *trip;
    form.loops[i].recurrence = *rec;
  }
  // Check the fitted form against the source of truth on every probe.
  for (const auto& [shape, lanes] : probes()) {
    const std::vector<LoopSpec> ref = kernel_loops(op, shape, lanes);
    if (ref.size() != form.loops.size()) return form;
    const std::int64_t tiles = ceil_div(shape.cols, lanes);
    for (std::size_t i = 0; i < ref.size(); ++i) {
      const LoopForm& f = form.loops[i];
      if (ref[i].name != f.name || ref[i].chain != f.chain || ref[i].trip != f.trip.eval(shape, tiles) ||
          ref[i].recurrence_distance != f.recurrence.eval(shape, tiles)) {
        return form;
      }
    }
  }
  form.closed = true;
  return form;
}

struct Forms {
  std::vector<KernelForm> kernels;  ///< by TaskOp
  std::vector<std::string> operators;
};

Forms derive_all() {
  Forms f;
  for (int k = 0; k < kTaskOpCount; ++k) f.kernels.push_back(derive(static_cast<TaskOp>(k)));
  for (KernelForm& kernel : f.kernels) {
    for (LoopForm& loop : kernel.loops) {
      for (const std::string& name : loop.chain) {
        auto it = std::find(f.operators.begin(), f.operators.end(), name);
        if (it == f.operators.end()) it = f.operators.insert(f.operators.end(), name);
        loop.chain_ids.push_back(static_cast<int>(it - f.operators.begin()));
      }
    }
  }
  return f;
}

const Forms& forms() {
  static const Forms f = derive_all();
  return f;
}

}  // namespace

const KernelForm& kernel_form(TaskOp op) {
  const int k = static_cast<int>(op);
  if (k < 0 || k >= kTaskOpCount) {
    throw std::out_of_range("kernel_form: TaskOp " + std::to_string(k) + " has no closed form");
  }
  return forms().kernels[k];
}

const std::vector<std::string>& kernel_operators() { return forms().operators; }

}  // namespace ttsim
