// evaluate_design: one SystemC evaluation per canonical design while it is among the
// kSystemcCacheEntries most recently used, re-evaluated (same figures) once evicted; the
// analytic fidelity is computed afresh every call.

#include "sim/design_eval.h"

#include <gtest/gtest.h>

#include "models/model_spec.h"
#include "sim/arch_spec.h"
#include "sim/device_spec.h"

namespace ttsim {
namespace {

TEST(DesignEval, SystemcEvaluationsAreCachedByDesignAndTheCacheIsBounded) {
  const ModelSpec model = load_model_spec("configs/models/atis_2enc.json");
  const DeviceSpec device = load_device_spec("configs/devices/u50.json");
  ArchSpec arch = load_arch_spec("configs/arch/u50_paper.json");
  arch.unit(UnitKind::kContraction).lanes = 4;
  const auto first = evaluate_design(model, arch, device, nullptr, Fidelity::kSystemC);
  EXPECT_EQ(evaluate_design(model, arch, device, nullptr, Fidelity::kSystemC), first);  // the same object
  EXPECT_NE(evaluate_design(model, arch, device, nullptr, Fidelity::kAnalytic), first);
  // As many other designs as the cache holds (clocks from 101 MHz) evict the first.
  for (std::size_t k = 0; k < kSystemcCacheEntries; ++k) {
    ArchSpec other = arch;
    other.clock_mhz = 101 + static_cast<double>(k);
    evaluate_design(model, other, device, nullptr, Fidelity::kSystemC);
  }
  const auto again = evaluate_design(model, arch, device, nullptr, Fidelity::kSystemC);
  EXPECT_NE(again, first);
  EXPECT_EQ(again->step.run.schedule.makespan, first->step.run.schedule.makespan);
}

}  // namespace
}  // namespace ttsim
