#include "hw/lut_estimate.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "hls/include/banked.h"
#include "hls/include/kernel_spec.h"

namespace ttsim {

namespace {

// Indexed by ttsim_spec::Opr.
constexpr OperatorLuts kOperatorLuts[ttsim_spec::kOprCount] = {
    {"read", 0, "memory port, no operator core"},
    {"write", 0, "memory port, no operator core"},
    {"fadd", 220,
     "fadd full_dsp core (5 stages): 220 LUT (Vivado HLS 2019.2, xcu280, 4.00 ns, AutoBridge PageRank csynth.rpt; "
     "198 LUT at 3.33 ns on xcu250, autobridge_stencil_compute), hls-reports.md section 2.6"},
    {"fmul", 78, "fmul max_dsp core (4 stages): 78 LUT (xcu280 and xcu250 reports), hls-reports.md section 2.6"},
    {"fdiv", 770, "fdiv core (10 stages): 770 LUT (xcu280 PageRank report), hls-reports.md section 2.6"},
    {"fexp", 800, "assumption: no report here shows an fexp core (7 DSP in configs/devices/u50.json); 800 LUT assumed"},
    {"flog", 1500, "assumption: no report here shows an flog core (0 DSP in configs/devices/u50.json); 1,500 LUT assumed"},
    {"fsqrt", 500, "assumption: no report here shows an fsqrt core (0 DSP); 500 LUT assumed"},
    {"fcmp", 46, "fcmp core (2 stages): 46 LUT (xcu280 PageRank report), hls-reports.md section 2.6"},
};

}  // namespace

bool kernel_runs_on(int kernel, UnitKind unit) {
  // The unit of every kernel of the table, looked up once (-1: no task op of that name).
  static const std::vector<int> units = [] {
    std::vector<int> u;
    for (const ttsim_spec::KernelSpec& k : ttsim_spec::kKernelSpecs) {
      TaskOp op;
      u.push_back(task_op_named(k.task_op, &op) ? static_cast<int>(unit_of(op)) : -1);
    }
    return u;
  }();
  return kernel >= 0 && kernel < static_cast<int>(units.size()) && units[kernel] == static_cast<int>(unit);
}

namespace {
// Unit kinds (models/task_graph.h UnitKind, kUpdate last).
constexpr int kUnitSiteKinds = static_cast<int>(UnitKind::kUpdate) + 1;
}  // namespace

const UnitSites& unit_sites(UnitKind unit, unsigned omitted) {
  if (omitted >= ttsim_spec::kOmittedLoopMasks) throw std::invalid_argument("unit_sites: unknown omitted-loop mask");
  static const std::array<UnitSites, kUnitSiteKinds * ttsim_spec::kOmittedLoopMasks> sites = [] {
    std::array<UnitSites, kUnitSiteKinds * ttsim_spec::kOmittedLoopMasks> all{};
    for (std::size_t i = 0; i < all.size(); ++i) {
      UnitSites& s = all[i];
      const auto kind = static_cast<UnitKind>(i % kUnitSiteKinds);
      const unsigned mask = static_cast<unsigned>(i / kUnitSiteKinds);
      for_each_unit_loop(kind, mask, [&](const ttsim_spec::LoopSpec& loop) {
        ++s.pipelined_loops;
        if (loop.trip == ttsim_spec::kTripTranspose) ++s.transpose_loops;
        for (int r = 0; r < loop.n_rec && loop.trip != ttsim_spec::kTripTranspose; ++r) {
          const ttsim_spec::Recurrence& rec = loop.rec[r];
          bool arena = false;
          for (int a = 0; a < loop.n_access; ++a) arena = arena || std::strcmp(loop.access[a].array, rec.variable) == 0;
          if (arena) continue;
          const int rep = rec.n_ops > 0 ? rec.ops[0].rep : ttsim_spec::kScalar;
          ++(rep == ttsim_spec::kOnce ? s.lane_accumulators
             : rep == ttsim_spec::kPairWindow ? s.pair_accumulators : s.single_accumulators);
        }
        bool lane_loop = false, pair_loop = false;
        for (int a = 0; a < loop.n_access; ++a) lane_loop = lane_loop || loop.access[a].kind == ttsim_spec::kLaneAccess;
        for (int c = 0; c < loop.n_chain; ++c) pair_loop = pair_loop || loop.chain[c].rep == ttsim_spec::kPairWindow;
        if (lane_loop && pair_loop) ++s.pair_loops;
        for (int c = 0; c < loop.n_chain; ++c) {
          const ttsim_spec::ChainOp& op = loop.chain[c];
          if (lane_loop && op.rep == ttsim_spec::kOnce) {
            ++s.per_lane.at(op.op);
          } else if (lane_loop && op.rep == ttsim_spec::kTree) {
            ++s.per_tree.at(op.op);
          } else if (lane_loop && op.rep == ttsim_spec::kWindow) {
            ++s.per_window.at(op.op);
          } else if (lane_loop && op.rep == ttsim_spec::kPairWindow) {
            ++s.per_pair.at(op.op);
          } else {
            ++s.single.at(op.op);
          }
        }
        for (int a = 0; a < loop.n_access; ++a) {
          const ttsim_spec::ArrayAccess& acc = loop.access[a];
          if (int_table_array(acc.array)) continue;
          if (acc.kind == ttsim_spec::kLaneAccess) {
            s.lane_reads += acc.reads;
            s.lane_writes += acc.writes;
          } else if (acc.kind == ttsim_spec::kWindowScalarAccess) {
            s.window_reads += acc.reads;
          } else {
            s.scalar_reads += acc.reads;
          }
        }
      });
    }
    return all;
  }();
  return sites.at(omitted * kUnitSiteKinds + static_cast<std::size_t>(unit));
}

int unit_pipelined_loops(UnitKind unit, unsigned omitted) { return unit_sites(unit, omitted).pipelined_loops; }

double unit_local_memory_luts(UnitKind unit, int lanes, int banks, unsigned omitted, MuxBound bound) {
  if (lanes < 1) throw std::invalid_argument("unit_local_memory_luts: lanes must be >= 1");
  const UnitSites& s = unit_sites(unit, omitted);
  const double memories = static_cast<double>(s.lane_accumulators) * lanes +
                          static_cast<double>(s.pair_accumulators) * ttsim_spec::pair_windows(lanes, banks) +
                          s.single_accumulators;
  const auto memory = [bound](int words) {
    return bound == MuxBound::kLow ? ttsim_hls::lutram_luts_dense(words) : ttsim_hls::lutram_luts(words);
  };
  const double rotator = bound == MuxBound::kHigh ? static_cast<double>(lanes) * ttsim_hls::ceil_log2(lanes)
                                                  : static_cast<double>(ttsim_hls::barrel_luts(lanes));
  const double tile = static_cast<double>(lanes) * (memory(ttsim_spec::transpose_buffers(lanes) * lanes) +
                                                    ttsim_hls::transpose_address_luts(lanes)) +
                      2 * 32 * rotator;
  return memories * memory(ttsim_spec::kAccSlots) + static_cast<double>(s.transpose_loops) * tile;
}

double control_luts(double pipelined_loops) { return kControlLutsPerPipelinedLoop * pipelined_loops; }

bool int_table_array(const char* array) {
  return std::strcmp(array, "index") == 0 || std::strcmp(array, "labels") == 0;
}

int unit_read_sites(UnitKind unit, bool lane, int windows, unsigned omitted) {
  const UnitSites& s = unit_sites(unit, omitted);
  return lane ? s.lane_reads : s.scalar_reads + s.window_reads * windows;
}

double operator_core_luts(int op) {
  if (op < 0 || op >= ttsim_spec::kOprCount) throw std::invalid_argument("operator_core_luts: unknown operator");
  return kOperatorLuts[op].luts;
}

Json operator_luts_json() {
  Json j = Json::object();
  for (const OperatorLuts& o : kOperatorLuts) {
    if (o.luts > 0) j[o.op] = {{"value", o.luts}, {"unit", "LUT per core"}, {"source", o.source}};
  }
  return j;
}

Json LutTerms::to_json() const {
  return {{"operators", operators}, {"networks", networks}, {"control", control},
          {"array_select", array_select}, {"port_mux", port_mux}, {"local_memories", local_memories},
          {"call_arguments", call_arguments}, {"total", total()}};
}

Json lut_estimate_json() {
  return {
      {"operator_core_luts", operator_luts_json()},
      {"control_luts_per_pipelined_loop",
       {{"value", kControlLutsPerPipelinedLoop},
        {"low", kControlLutsPerPipelinedLoopLow},
        {"high", kControlLutsPerPipelinedLoopHigh},
        {"unit", "LUT per pipelined loop module"},
        {"source",
         "median over 9 designs of each design's median (module LUTs - FP operator core LUTs) over its _Pipeline_ "
         "modules in real csynth reports (shared/data/hls_reports, 909 modules, Vitis HLS 2021.1-2023.2); low/high: "
         "lowest/highest design median; hls/calibration/control_fit.h"}}},
      {"bank_network_luts",
       {{"unit", "LUT"},
        {"rule", "per access site of the kernel specification, 32 bits: lane_read_network_luts / "
                 "lane_write_network_luts / scalar_read_network_luts (hls/include/banked.h)"},
        {"source", "multiplexer structure: LUT6 as a 4:1 multiplexer, barrel rotator stages"},
        {"range_source",
         "low: selects wider than 4:1 through the slice's F7/F8/F9 multiplexers (UG574: 8:1 in 2 LUT6, 16:1 in 4, "
         "32:1 in 8, where the 4:1 tree takes 3, 5, 11), rotators unchanged; high: a rotator one 2:1 stage per LUT "
         "level (B x ceil(log2 B) LUT6 per bit instead of B x ceil(log2 B / 2)), direct selects unchanged "
         "(hw/lut_estimate.h MuxBound)"}}},
      {"local_memory_luts",
       {{"unit", "LUT"},
        {"lutram_luts_per_64x1", ttsim_hls::kLutramLutsPer64x1},
        {"rule", "per instance: every accumulator (a recurrence through a kernel-local array) a kAccSlots-word "
                 "32-bit LUTRAM memory per lane, pair window or loop; every transpose loop its tile buffers: lanes "
                 "memories of transpose_buffers x lanes words, a (k - c) mod lanes read address each and two barrel "
                 "rotators (hls/include/banked.h lutram_luts, transpose_tile_luts)"},
        {"source", "RAM64X1D, 64 x 1 bit simple dual port in 2 LUT6 (UG574 distributed RAM); the upper figure: "
                   "Vivado may pack denser (RAM64M8, 7 bits in 8 LUT6)"},
        {"range_source", "low: every memory packed densely (RAM32M16, 32 x 14 bits in 8 LUT6, up to 32 words; "
                         "RAM64M8 deeper: lutram_luts_dense); high: the estimate's memories, the tile's rotators one "
                         "2:1 stage per LUT level (hw/lut_estimate.h MuxBound)"}}},
      {"binding_multiplexer_luts",
       {{"unit", "LUT"},
        {"rule", "array select: per instance read site, an A:1 multiplexer (A = arrays its unit's tasks use) of 32 "
                 "bits per bank (lane site) or 32 bits (scalar site); port multiplexers: per array bank, 2 ports x "
                 "(32 data + address + 1 enable) bits x ceil(U/2):1 (U = instances bound to the array)"},
        {"source", "multiplexer structure counted from the machine's bindings (sim/schedule_activity.h design_luts)"},
        {"range_source", "low: selects wider than 4:1 through F7/F8/F9 slice multiplexers (UG574); high: the 4:1 "
                         "tree itself (hw/lut_estimate.h MuxBound)"}}},
      {"call_argument_luts",
       {{"unit", "LUT"},
        {"rule", "per module instance: its scalar argument bits (hls/kernels/modules.h kTtsimModules argument_bits) "
                 "x an n:1 select per bit, n = the top's call sites of the module (machine call_sites: its calls "
                 "with the glue inlined, a call in a loop of the glue one site; none for one site); every bit priced "
                 "as a runtime value (bits constant at a site fold into the state decode: not counted)"},
        {"source", "multiplexer structure; call sites counted from the task graph and checked against the "
                   "emitted top's call stacks in C simulation (tests/dse/call_sites_test)"},
        {"range_source", "low: selects wider than 4:1 through F7/F8/F9 slice multiplexers (UG574); high: the larger "
                         "of the 4:1 tree and the priority chain of 2:1 selects on the FSM's state bits that Vitis "
                         "writes, two stages per LUT6, ceil((n - 1) / 2) LUT6 per bit (hw/lut_estimate.h "
                         "call_argument_luts)"}}}};
}

int wide_mux_luts(int n) {
  if (n <= 1) return 0;
  if (n <= 4) return 1;
  if (n <= 8) return 2;
  if (n <= 16) return 4;
  if (n <= 32) return 8;
  const int blocks = (n + 31) / 32;
  return blocks * 8 + ttsim_hls::mux_luts(blocks);
}

int select_luts(int n, MuxBound bound) { return bound == MuxBound::kLow ? wide_mux_luts(n) : ttsim_hls::mux_luts(n); }

double call_argument_luts(int argument_bits, int call_sites, MuxBound bound) {
  if (argument_bits < 0 || call_sites < 0) {
    throw std::invalid_argument("call_argument_luts: argument bits and call sites must be >= 0");
  }
  if (call_sites <= 1) return 0;
  int per_bit = select_luts(call_sites, bound);
  // A priority chain of 2:1 selects on the FSM's state bits, two sites per LUT6.
  if (bound == MuxBound::kHigh) per_bit = std::max(per_bit, call_sites / 2);
  return static_cast<double>(argument_bits) * per_bit;
}

double lut_total_at_mux_bound(const LutTerms& t, bool high) {
  return t.operators + t.control + (high ? t.mux_high : t.mux_low);
}

double unit_operator_luts(UnitKind unit, int lanes, int banks, unsigned omitted) {
  return unit_operator_cores(unit, lanes, operator_core_luts, banks, omitted);
}

double unit_operator_cores(UnitKind unit, int lanes, double (*per_core)(int op), int banks, unsigned omitted) {
  if (lanes < 1) throw std::invalid_argument("unit_operator_cores: lanes must be >= 1");
  const UnitSites& s = unit_sites(unit, omitted);
  double luts = 0;
  for (int op = 0; op < ttsim_spec::kOprCount; ++op) {
    const double instances = static_cast<double>(s.per_lane[op]) * lanes +
                             static_cast<double>(s.per_tree[op]) * (lanes - 1) +
                             static_cast<double>(s.per_window[op]) * ttsim_spec::lane_site_accesses(lanes, banks) +
                             static_cast<double>(s.per_pair[op]) * ttsim_spec::pair_windows(lanes, banks) +
                             s.single[op];
    if (instances > 0) luts += instances * per_core(op);
  }
  return luts;
}

}  // namespace ttsim
