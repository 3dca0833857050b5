// End-to-end step simulation on the shipped presets: analytic and SystemC agreement.

#include <gtest/gtest.h>

#include "models/model_spec.h"
#include "sim/analytic.h"
#include "hw/arch_spec.h"
#include "hw/device_spec.h"
#include "sim/step_sim.h"

namespace ttsim {
namespace {

struct Fixture : ::testing::Test {
  DeviceSpec u50 = load_device_spec("configs/devices/u50.json");
  ArchSpec paper = load_arch_spec("configs/arch/u50_paper.json");
  ModelSpec m2 = load_model_spec("configs/models/atis_2enc.json");
};

TEST_F(Fixture, UnlimitedUnitsNoContentionEqualsCriticalPath) {
  EngineOptions o;
  o.unlimited_units = true;
  o.port_contention = false;
  StepResult r = simulate_step(m2, paper, u50, StepOptions::with_engine(o));
  EXPECT_GT(r.run.schedule.makespan, 0);
  EXPECT_EQ(r.run.schedule.makespan, critical_path_cycles(r.sched));
}

TEST_F(Fixture, FiniteUnitsNoContentionEqualsListSchedule) {
  EngineOptions o;
  o.port_contention = false;
  StepResult r = simulate_step(m2, paper, u50, StepOptions::with_engine(o));
  Schedule ls = list_schedule(r.sched);
  EXPECT_EQ(r.run.schedule.makespan, ls.makespan);
  for (std::size_t i = 0; i < ls.tasks.size(); ++i) {
    ASSERT_EQ(r.run.schedule.tasks[i].start, ls.tasks[i].start) << r.graph().tasks[i].name;
    ASSERT_EQ(r.run.schedule.tasks[i].unit_index, ls.tasks[i].unit_index) << r.graph().tasks[i].name;
  }
}

TEST_F(Fixture, ContentionNeverBeatsAnalytic) {
  EngineOptions o;
  o.unlimited_units = true;
  StepResult r = simulate_step(m2, paper, u50, StepOptions::with_engine(o));
  EXPECT_GE(r.run.schedule.makespan, critical_path_cycles(r.sched));
  StepResult f = simulate_step(m2, paper, u50);
  EXPECT_GE(f.run.schedule.makespan, list_schedule(f.sched).makespan);
  std::cout << "contended " << f.run.schedule.makespan << " analytic " << f.analytic_cycles
            << " tasks " << f.graph().tasks.size() << " banks " << f.banks.banks.size() << "\n";
}

}  // namespace
}  // namespace ttsim
