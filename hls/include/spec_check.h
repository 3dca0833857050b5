#pragma once
// spec_check.h — compares what the access probe measured in C simulation
// (access_probe.h, MeasuredLoop) with the kernel specification (kernel_spec.h, LoopSpec).
// Test-side helper (uses the standard library); not part of the synthesized kernels.

#include <map>
#include <string>
#include <vector>

#include "hls/include/access_probe.h"
#include "hls/include/kernel_spec.h"

namespace ttsim_hls {

/// Extents of a task as the specification's trip formulas take them (TaskShape:
/// batch, rows, inner, cols; row kernels: R = batch · rows rows of `cols`).
struct SpecShape {
  long long batch = 1, rows = 1, inner = 1, cols = 1;
};

/// Violations of `spec` by the measurement `m` of one loop run for a task of shape `s`,
/// variant `variant` (TaskShape::variant) and `lanes` lanes on arrays of `banks` banks (0: as
/// many as lanes); empty when it conforms.
/// One human-readable line per violation, prefixed with the loop name:
///  - iterations != loop_trip(spec.trip, spec.variant, variant, s…, lanes);
///  - an array accessed that spec.access does not list;
///  - per array: measured max accesses to one bank in one iteration > declared per-bank
///    accesses (reads + writes of its sites, a lane site lane_site_accesses(lanes, banks)
///    times), and ceil(measured / kBankPorts) >
///    ceil(declared / kBankPorts) (the ResMII the spec derives is exceeded);
///  - per array or accumulator with a measured loop-carried distance (iterations from a
///    write of an element to its next access in a later iteration): when spec declares
///    a recurrence through it, measured < declared distance; when it declares none, any
///    write → later read of one element ("undeclared recurrence through X at distance
///    d"). A write followed only by later writes (no read in between) cannot close a
///    read-after-write cycle and is not reported for undeclared variables.
std::vector<std::string> check_loop(const ttsim_spec::LoopSpec& spec, const MeasuredLoop& m,
                                    int variant, const SpecShape& s, int lanes, int banks = 0);

/// check_loop for the loop named `loop` of the kernel of `task_op` (find_loop); a loop
/// the specification does not have is one violation.
std::vector<std::string> check_loop(const char* task_op, const std::string& loop,
                                    const MeasuredLoop& m, int variant, const SpecShape& s,
                                    int lanes, int banks = 0);

/// Every loop of one kernel run: each measured loop checked as above (a measured loop
/// not in the kernel's specification is a violation), and each specified loop whose
/// trip is > 0 for this variant and shape must have been measured.
std::vector<std::string> check_kernel(const char* task_op,
                                      const std::map<std::string, MeasuredLoop>& loops,
                                      int variant, const SpecShape& s, int lanes, int banks = 0);

}  // namespace ttsim_hls
