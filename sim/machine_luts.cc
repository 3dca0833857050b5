#include "sim/machine_luts.h"

#include <array>
#include <vector>

#include "sim/machine_banks.h"
#include "sim/occupancy.h"
#include "sim/schedule_activity.h"

namespace ttsim {

LutTerms machine_lut_terms(const machine::Machine& m, const TaskGraph& graph, const ArchSpec& arch) {
  const BankMap banks = machine_bank_map(m);
  const std::vector<std::int64_t> footprint = buffer_footprints(graph, std::vector<bool>(graph.buffers.size(), false));
  const BankActivityShape shape = bank_activity_shape(graph, banks, footprint);
  std::array<int, kUnitKinds> instances{};
  for (int k = 0; k < kUnitKinds; ++k) instances[k] = arch.units[k].count;
  std::vector<ModuleCalls> calls;
  machine::module_calls_into(m, calls);
  return design_lut_terms(instances, arch, shape, calls);
}

}  // namespace ttsim
