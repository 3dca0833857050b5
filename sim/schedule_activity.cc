#include "sim/schedule_activity.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>

#include "hls/include/banked.h"
#include "hls/include/kernel_spec.h"
#include "hw/lut_estimate.h"

namespace ttsim {

namespace {
double clamp01(double v) { return std::min(1.0, std::max(0.0, v)); }
}  // namespace

void bank_activity_shape_into(const TaskGraph& graph, const TaskBanks& used, const BankMap& banks,
                              BankActivityShape& s) {
  if (used.begin.empty() || used.begin.size() != graph.tasks.size() + 1) {
    throw std::invalid_argument("bank_activity_shape: the task banks do not have one row per task");
  }
  const std::size_t tasks = used.begin.size() - 1;
  s.bram36_blocks = banks.bram36_blocks;
  s.uram288_blocks = banks.uram_blocks;
  s.unit_lane_aligned = banks.unit_lane_aligned;
  s.banks = 0;
  s.arrays.assign(banks.banks.size(), ArrayPorts{});
  for (std::size_t i = 0; i < banks.banks.size(); ++i) {
    const BankInstance& b = banks.banks[i];
    s.banks += b.partitions;
    const int parts = std::max(1, b.partitions);
    const std::int64_t words_per_block = b.kind == BlockKind::kBram36 ? 1024 : 4096;
    const std::int64_t depth = std::max<std::int64_t>(1, (b.blocks + parts - 1) / parts * words_per_block);
    s.arrays[i].partitions = parts;
    s.arrays[i].port_bits = 32 + ttsim_hls::ceil_log2(static_cast<int>(std::min<std::int64_t>(depth, 1 << 30))) + 1;
  }
  // Each bank's BRAM36 and URAM288 blocks (one of them 0), so that the per-task sums below
  // read two small arrays.
  thread_local std::vector<std::int64_t> bank_bram, bank_uram;
  bank_bram.resize(banks.banks.size());
  bank_uram.resize(banks.banks.size());
  for (std::size_t i = 0; i < banks.banks.size(); ++i) {
    const BankInstance& b = banks.banks[i];
    bank_bram[i] = b.kind == BlockKind::kBram36 ? b.blocks : 0;
    bank_uram[i] = b.kind == BlockKind::kBram36 ? 0 : b.blocks;
  }
  s.task_bram36_blocks.resize(tasks);
  s.task_uram288_blocks.resize(tasks);
  const std::size_t n_banks = banks.banks.size();
  for (std::size_t t = 0; t < tasks; ++t) {
    std::int64_t bram = 0, uram = 0;
    const unsigned unit_bit = 1u << static_cast<int>(graph.tasks[t].unit);
    for (int k = used.begin[t]; k < used.begin[t + 1]; ++k) {
      const std::size_t bank = static_cast<std::size_t>(used.bank[k]);
      if (bank >= n_banks) throw std::invalid_argument("bank_activity_shape: a task bank outside the bank map");
      bram += bank_bram[bank];
      uram += bank_uram[bank];
      s.arrays[bank].units |= unit_bit;
    }
    s.task_bram36_blocks[t] = bram;
    s.task_uram288_blocks[t] = uram;
  }
  s.unit_arrays.fill(0);
  for (const ArrayPorts& a : s.arrays) {
    for (int k = 0; k < kUnitKinds; ++k) s.unit_arrays[k] += (a.units >> k) & 1u;
  }
}

BankActivityShape bank_activity_shape(const TaskGraph& graph, const BankMap& banks,
                                      const std::vector<std::int64_t>& footprint) {
  TaskBanks used;
  task_banks_into(graph, banks, footprint, used);
  BankActivityShape s;
  bank_activity_shape_into(graph, used, banks, s);
  return s;
}

namespace {

/// LUT6 per bit of one lane read (write) site's network under `bound`: the structure the
/// kernel builds for (lanes, banks) (banked.h lane_read_barrel / lane_write_barrel), mapped
/// as MuxBound says.
double lane_site_luts(bool write, int lanes, int banks, MuxBound bound, bool aligned) {
  if (lanes > banks) {  // dual-port lanes: one network of `banks` lanes per window (banked.h)
    return ttsim_spec::lane_site_accesses(lanes, banks) * lane_site_luts(write, banks, banks, bound, false);
  }
  if (aligned) {
    return write ? static_cast<double>(ttsim_hls::aligned_lane_write_network_luts(lanes, banks))
                 : static_cast<double>(lanes) * select_luts(banks / lanes, bound);
  }
  const bool barrel = write ? ttsim_hls::lane_write_barrel(lanes, banks) : ttsim_hls::lane_read_barrel(lanes, banks);
  if (barrel) {
    return bound == MuxBound::kHigh ? static_cast<double>(banks) * ttsim_hls::ceil_log2(banks)
                                    : static_cast<double>(ttsim_hls::barrel_luts(banks));
  }
  return write ? static_cast<double>(banks) * select_luts(lanes, bound)
               : static_cast<double>(lanes) * select_luts(banks, bound);
}

}  // namespace

double unit_bank_network_luts(UnitKind unit, int lanes, int banks, MuxBound bound, bool aligned, unsigned omitted) {
  if (lanes < 1 || banks < 1) throw std::invalid_argument("unit_bank_network_luts: lanes and banks must be >= 1");
  if (aligned && !ttsim_hls::lane_alignable(lanes, banks)) {
    throw std::invalid_argument("unit_bank_network_luts: aligned lane accesses need lanes dividing banks");
  }
  // Every site of a kind builds the same structure: the sums of the unit's sites, times it.
  const UnitSites& s = unit_sites(unit, omitted);
  // The dot form's C pair (pair_windows 2): its one-word read and write sites are 2-word lane
  // windows — a 2-lane read network instead of one select, and a 2-lane write network.
  const double pair_c = ttsim_spec::pair_windows(lanes, banks) == 2
                            ? lane_site_luts(false, 2, banks, bound, false) - select_luts(banks, bound) +
                                  lane_site_luts(true, 2, banks, bound, false)
                            : 0.0;
  return 32.0 * (s.lane_reads * lane_site_luts(false, lanes, banks, bound, aligned) +
                 s.lane_writes * lane_site_luts(true, lanes, banks, bound, aligned) +
                 (s.scalar_reads + s.window_reads * ttsim_spec::lane_site_accesses(lanes, banks)) *
                     static_cast<double>(select_luts(banks, bound)) +
                 s.pair_loops * pair_c);
}

LutTerms design_lut_terms(const std::array<int, kUnitKinds>& instances, const ArchSpec& arch,
                          const BankActivityShape& shape, const std::vector<ModuleCalls>& calls) {
  LutTerms t;
  for (const ModuleCalls& c : calls) {
    t.call_arguments += call_argument_luts(c.argument_bits, c.call_sites);
    t.mux_low += call_argument_luts(c.argument_bits, c.call_sites, MuxBound::kLow);
    t.mux_high += call_argument_luts(c.argument_bits, c.call_sites, MuxBound::kHigh);
  }
  const int banks = arena_banks(arch);
  const unsigned omitted = omitted_loops(arch);
  for (int k = 0; k < kUnitKinds; ++k) {
    if (instances[k] == 0) continue;
    const auto unit = static_cast<UnitKind>(k);
    const double n = instances[k];
    t.operators += n * unit_operator_luts(unit, arch.units[k].lanes, banks, omitted);
    const bool aligned = shape.unit_lane_aligned[k];
    t.networks += n * unit_bank_network_luts(unit, arch.units[k].lanes, banks, MuxBound::kEstimate, aligned, omitted);
    t.control += n * control_luts(unit_pipelined_loops(unit, omitted));
    t.local_memories += n * unit_local_memory_luts(unit, arch.units[k].lanes, banks, omitted);
    // A lane read site reads `banks` words per window (ceil(lanes / banks) windows).
    const int windows = ttsim_spec::lane_site_accesses(arch.units[k].lanes, banks);
    const double lane_words = static_cast<double>(banks) * windows;
    const double read_site_bits =
        32.0 * (lane_words * unit_read_sites(unit, true, 1, omitted) + unit_read_sites(unit, false, windows, omitted));
    t.array_select += n * read_site_bits * ttsim_hls::mux_luts(shape.unit_arrays[k]);
    t.mux_low += n * (unit_bank_network_luts(unit, arch.units[k].lanes, banks, MuxBound::kLow, aligned, omitted) +
                      read_site_bits * select_luts(shape.unit_arrays[k], MuxBound::kLow) +
                      unit_local_memory_luts(unit, arch.units[k].lanes, banks, omitted, MuxBound::kLow));
    t.mux_high += n * (unit_bank_network_luts(unit, arch.units[k].lanes, banks, MuxBound::kHigh, aligned, omitted) +
                       read_site_bits * select_luts(shape.unit_arrays[k], MuxBound::kHigh) +
                       unit_local_memory_luts(unit, arch.units[k].lanes, banks, omitted, MuxBound::kHigh));
  }
  for (const ArrayPorts& a : shape.arrays) {
    int users = 0;
    for (int k = 0; k < kUnitKinds; ++k) {
      if (a.units & (1u << k)) users += instances[k];
    }
    const double port_bits = static_cast<double>(a.partitions) * 2 * a.port_bits;
    t.port_mux += port_bits * ttsim_hls::mux_luts((users + 1) / 2);
    t.mux_low += port_bits * select_luts((users + 1) / 2, MuxBound::kLow);
    t.mux_high += port_bits * select_luts((users + 1) / 2, MuxBound::kHigh);
  }
  return t;
}

double design_luts(const std::array<int, kUnitKinds>& instances, const ArchSpec& arch,
                   const BankActivityShape& shape, const std::vector<ModuleCalls>& calls) {
  return design_lut_terms(instances, arch, shape, calls).total();
}

FpgaActivity schedule_activity(const TaskGraph& graph, const Schedule& schedule,
                               const std::array<int, kUnitKinds>& instances,
                               const BankActivityShape& shape, const std::vector<ModuleCalls>& calls,
                               const ArchSpec& arch, const DeviceSpec& device, LutTerms* luts) {
  if (schedule.tasks.size() < graph.tasks.size() || shape.task_bram36_blocks.size() < graph.tasks.size() ||
      shape.task_uram288_blocks.size() < graph.tasks.size()) {
    throw std::invalid_argument("schedule_activity: schedule or bank shape does not cover the graph's tasks");
  }
  FpgaActivity a;
  a.clock_mhz = arch.clock_mhz;
  const double cycles = static_cast<double>(schedule.makespan);

  // Busy cycles per unit kind and block-cycles per memory kind, summed exactly.
  std::array<std::int64_t, kUnitKinds> busy{};
  std::int64_t bram_busy = 0, uram_busy = 0;
  for (const Task& t : graph.tasks) {
    const TaskTime& tt = schedule.tasks[t.id];
    const std::int64_t d = tt.end - tt.start;
    busy[static_cast<int>(t.unit)] += d;
    bram_busy += d * shape.task_bram36_blocks[t.id];
    uram_busy += d * shape.task_uram288_blocks[t.id];
  }
  double dsp_units = 0, dsp_busy = 0;
  const OperatorDsp operator_dsp(device);
  for (int k = 0; k < kUnitKinds; ++k) {
    const double per_instance =
        static_cast<double>(unit_dsp(static_cast<UnitKind>(k), arch.units[k].lanes, operator_dsp, arena_banks(arch),
                                     omitted_loops(arch)));
    dsp_units += instances[k] * per_instance;
    dsp_busy += static_cast<double>(busy[k]) * per_instance;
  }
  a.dsp.units = dsp_units;
  a.dsp.busy_fraction = (dsp_units > 0 && cycles > 0) ? clamp01(dsp_busy / (dsp_units * cycles)) : 0;

  a.bram36.units = static_cast<double>(shape.bram36_blocks);
  a.uram288.units = static_cast<double>(shape.uram288_blocks);
  a.bram36.busy_fraction = (a.bram36.units > 0 && cycles > 0)
                               ? clamp01(static_cast<double>(bram_busy) / (a.bram36.units * cycles))
                               : 0;
  a.uram288.busy_fraction = (a.uram288.units > 0 && cycles > 0)
                                ? clamp01(static_cast<double>(uram_busy) / (a.uram288.units * cycles))
                                : 0;

  const LutTerms terms = design_lut_terms(instances, arch, shape, calls);
  if (luts) *luts = terms;
  a.kilo_lut.units = terms.total() / 1000.0;
  a.kilo_lut.busy_fraction = a.dsp.busy_fraction;
  return a;
}

}  // namespace ttsim
