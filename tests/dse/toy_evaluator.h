#pragma once
// A stand-in evaluator for the explorer's tests: metrics are simple functions of two
// integer axes "arch:/x" and "arch:/y" (and optionally "arch:/z") so the Pareto front is
// known in closed form.
//   epoch_seconds = 1 + x + z,  onchip_bytes = 1000 · (1 + (X - x) + y + z),  dsp = 100 · x
// (epoch_seconds + 0.5 at Fidelity::kSystemC, as a SystemC schedule is slower than the
// analytic bound). With x in 0..X and y, z >= 0 the front of (epoch_seconds, onchip_bytes) is
// exactly the points with y = 0 and z = 0.

#include <atomic>

#include "dse/evaluate/evaluator.h"

namespace ttsim::dse::testing {

class ToyEvaluator : public Evaluator {
 public:
  explicit ToyEvaluator(int x_max, Fidelity fidelity = Fidelity::kAnalytic) : x_max_(x_max), fidelity_(fidelity) {}
  bool provides(Metric m) const override {
    return m == Metric::kEpochSeconds || m == Metric::kOnchipBytes || m == Metric::kDsp;
  }
  Evaluation evaluate(const PointConfig& p, bool detailed) const override {
    ++calls;
    auto get = [&](const char* name) {
      const Json* v = p.axis_value(name);
      if (v) return v->get<int>();
      const Json::json_pointer ptr(std::string(name).substr(5));
      return p.arch().contains(ptr) ? p.arch().at(ptr).get<int>() : 0;
    };
    const int x = get("arch:/x"), y = get("arch:/y"), z = get("arch:/z");
    Evaluation e;
    e.fidelity = fidelity_;
    e.metrics[Metric::kEpochSeconds] = 1 + x + z + (fidelity_ == Fidelity::kSystemC ? 0.5 : 0.0);
    e.metrics[Metric::kOnchipBytes] = 1000.0 * (1 + (x_max_ - x) + y + z);
    e.metrics[Metric::kDsp] = 100.0 * x;
    if (detailed) e.breakdown = Json{{"stages", {{"forward", x}, {"backward", 2 * x}}}};
    return e;
  }
  mutable std::atomic<int> calls{0};

 private:
  int x_max_;
  Fidelity fidelity_;
};

}  // namespace ttsim::dse::testing
