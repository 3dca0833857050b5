#pragma once
// An FPGA board as the simulator, the memory planner and the DSE see it: resource
// totals, memory primitives, clocks and floating-point operator costs.
// Loaded from configs/devices/*.json.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/json_view.h"

namespace ttsim {

/// Cost of one pipelined floating-point operator as Vitis HLS binds it.
struct FloatOpSpec {
  int dsp = 0;  ///< DSP48E2 slices per operator instance
  /// Pipeline latency in cycles by clock: entries (max_clock_mhz, cycles) sorted by
  /// clock; the first entry whose max_clock_mhz >= the clock applies.
  std::vector<std::pair<double, int>> latency_by_clock;
  /// Latency (cycles) at `clock_mhz`. Throws InputError if the clock is above every entry.
  int latency_at(double clock_mhz) const;
};

/// Dynamic and static power coefficients (watts); consumed by the power model.
struct PowerCoefficients {
  double static_watts = 0;           ///< device static power
  double dsp_watts_per_mhz = 0;      ///< per active DSP slice per MHz
  double bram36_watts_per_mhz = 0;   ///< per active BRAM36 block per MHz
  double uram_watts_per_mhz = 0;     ///< per active URAM288 block per MHz
  double logic_watts_per_kilolut_mhz = 0;  ///< per 1,000 active LUTs per MHz
  double clock_watts_per_kilolut_mhz = 0;  ///< clock tree per 1,000 LUTs of the design per MHz
  std::string source;                ///< where the coefficients come from
};

/// True when `name` is a floating-point operator of the kernel specification
/// (hls/include/kernel_spec.h kOprNames but read/write: fadd, fmul, fdiv, fexp, flog, fsqrt,
/// fcmp) — the names a device's float_ops and a calibration's op_latency may give.
bool is_float_operator(const std::string& name);
/// Those names, comma-separated, for messages.
std::string float_operator_names();

/// One FPGA device/board.
struct DeviceSpec {
  std::string name;         ///< "u50"
  std::string source_file;
  /// The file's "sources": where each figure comes from (free text, as the file states it).
  std::vector<std::string> sources;
  std::string part;         ///< "xcu50-fsvh2104-2-e"
  std::string platform;     ///< Vitis platform, e.g. "xilinx_u50_gen3x16_xdma_5_202210_1"
  std::int64_t bram36 = 0;  ///< RAMB36 blocks (2 × RAMB18 each)
  std::int64_t uram288 = 0; ///< URAM288 blocks (4K × 72 bits)
  std::int64_t dsp = 0;     ///< DSP48E2 slices
  std::int64_t lut = 0;
  std::int64_t ff = 0;
  int slrs = 1;
  double default_clock_mhz = 300;  ///< platform default kernel clock
  /// Highest kernel clock the platform accepts (clocks.max_mhz, MHz): a clock above it is an
  /// input error (no operator latency is defined there).
  double max_clock_mhz = 500;
  /// The highest kernel clock real builds on this device are known to have closed at after
  /// place and route (clocks.achievable_mhz, MHz; the device file states its evidence): an
  /// upper bound from the builds known, not a prediction for a given design. A design asking
  /// for more does not fit (hw/resource_fit.h). 0: the device file states none (not checked).
  double achievable_clock_mhz = 0;
  /// The kernel clock a design spread over more than one SLR is expected to reach without
  /// floorplanning (clocks.multi_slr_mhz, MHz; hw/resource_fit.h achievable_clock); 0: none
  /// stated (no multi-SLR limit).
  double multi_slr_clock_mhz = 0;
  /// The card's draw with the shell loaded and no kernel running (card.idle_watts, W) and
  /// its power limit (card.max_watts, W): a design's card-level power, idle + its dynamic
  /// power, must stay within the limit (hw/resource_fit.h). 0: the device file states no card
  /// (no power limit is checked).
  double card_idle_watts = 0;
  double card_max_watts = 0;
  int bram_read_latency = 1;  ///< cycles
  int uram_read_latency = 1;  ///< cycles
  /// Cycles of a store into a BRAM/URAM bank (the "write" operator of the kernel
  /// specification's chains and recurrences, hls/include/kernel_spec.h); memory
  /// "write_latency", default 1.
  int write_latency = 1;
  int uram_cascade_height = 8;
  /// DSP48E2 slices of one 32-bit integer multiplier (int_mul32.dsp, default 3): each runtime
  /// product of a kernel's per-call trip-count setup (ttsim_spec::trip_products) is one. The
  /// default is the csynth binding `mul_32s_32s_32_1_1` (DSP 3, latency 0 at 8 and 10 ns) in
  /// shared/data/hls_reports/ahls_stencil3d (xcu50) and systolic_multiplier (xck26).
  int int_mul32_dsp = 3;
  std::map<std::string, FloatOpSpec> float_ops;  ///< "fadd", "fmul", "fdiv", "fexp", "fsqrt", ...
  PowerCoefficients power;

  /// Bits of on-chip block memory: BRAM36 × 36,864 + URAM288 × 294,912.
  std::int64_t onchip_bits() const { return bram36 * 36864 + uram288 * 294912; }
  /// The operator `op`; throws InputError naming the device file if it is not defined.
  const FloatOpSpec& op(const std::string& op) const;
  /// The resolved spec with every default written out.
  Json to_json() const;
};

/// True when every field of `a` and `b` is equal (names, source files, operator tables and
/// power coefficients included).
bool operator==(const DeviceSpec& a, const DeviceSpec& b);
inline bool operator!=(const DeviceSpec& a, const DeviceSpec& b) { return !(a == b); }

/// Loads and validates a device config (ConfigError with file and JSON pointer on error;
/// memory latencies bram_read_latency, uram_read_latency, write_latency in [1, 8] cycles).
DeviceSpec load_device_spec(const std::string& path);

/// Throws InputError "<where>: expected at most the device's M MHz (<device_where>), found F"
/// when `clock_mhz` (a design's kernel clock, MHz) is above `device`'s max_clock_mhz, where
/// no operator latency is defined. `where` names the clock's file and JSON pointer.
void check_clock_within_device(double clock_mhz, const DeviceSpec& device, const std::string& where,
                               const std::string& device_where);
DeviceSpec parse_device_spec(const Json& doc, const std::string& file);

}  // namespace ttsim
