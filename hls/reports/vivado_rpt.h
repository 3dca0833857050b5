#pragma once
// Readers of Vivado text reports produced by the HLS export/implementation run
// (impl/verilog/project.runs/impl_1/): `report_utilization` (…_utilization_placed.rpt)
// and `report_power` (…_power_routed.rpt). Layout: shared/reference/hls-reports.md §1.7.

#include <optional>
#include <string>
#include <vector>

#include "hls/reports/values.h"

namespace ttsim::hls {

/// Used / available count of one site type of a utilization report.
struct SiteUse {
  double used = 0;                  ///< may be fractional (Block RAM Tile "9.5")
  std::optional<double> available;  ///< empty when the cell is blank
};

/// Post-placement utilization (report_utilization). Units: LUTs, registers, Block RAM
/// tiles (36 Kb each, fractional when a RAMB18 half is used), RAMB36 and RAMB18
/// primitives, URAM288 blocks, DSP48E2 slices.
struct UtilizationReport {
  std::string source;
  std::string tool_version;  ///< "Vivado v.2023.2 (lin64) Build …"
  std::string design, device, design_state;
  SiteUse clb_luts, clb_registers, block_ram_tile, dsp;
  std::optional<SiteUse> ramb36, ramb18, uram;
  /// Optional figures printed as unknown ("?", "undef", the unbounded sentinel family),
  /// each read as absent: module = the design, field = "line N: row \"URAM\" column Used".
  std::vector<UnknownValue> unknowns;

  /// Block RAM in 18 Kb units, comparable to HLS BRAM_18K: 2 · Block RAM Tile.
  double bram_18k() const { return 2.0 * block_ram_tile.used; }
};

/// Parses a report_utilization text. Rows are found by their Site Type in the first
/// table that has them (sections 1, 3, 4). Throws InputError "<source>: …" when the
/// header has no "Device" line or a row among CLB LUTs, CLB Registers, Block RAM Tile,
/// DSPs is missing or not numeric (an unknown "?" or sentinel value there too: those rows
/// are needed; the error names the line, row and column), or when a Used / Available count
/// is negative (naming the line). An unknown Available count, or an unknown Used count of an
/// optional row, reads as absent and is listed in `unknowns`.
UtilizationReport parse_utilization_rpt(const std::string& text, const std::string& source);
UtilizationReport read_utilization_rpt(const std::string& path);

/// Power estimate of a routed design (report_power), watts and °C.
struct PowerReport {
  std::string source, tool_version, design, device, design_state;
  double total_on_chip_w = 0, dynamic_w = 0, device_static_w = 0;
  std::optional<double> fpga_w, hbm_w;  ///< HBM parts (U50/U280) only
  std::optional<double> junction_temperature_c;
  std::string confidence_level;
  /// Rows of "1.1 On-Chip Components": (name as printed, power in W).
  std::vector<std::pair<std::string, double>> components;
  /// Rows of "2.2 Clock Constraints": (clock name, constraint period in ns).
  std::vector<std::pair<std::string, double>> clocks;
  /// Optional figures printed as unknown, read as absent (field "line N: row \"HBM Power (W)\"").
  std::vector<UnknownValue> unknowns;
};

/// Parses a report_power text. Throws InputError "<source>: …" when "Total On-Chip
/// Power (W)", "Dynamic (W)" or "Device Static (W)" is missing or not a number, or when a
/// power figure (summary rows, FPGA / HBM power, on-chip components) is negative (naming
/// the line). Unknown optional figures ("?", the unbounded sentinel family) read as absent
/// and are listed in `unknowns`.
PowerReport parse_power_rpt(const std::string& text, const std::string& source);
PowerReport read_power_rpt(const std::string& path);

}  // namespace ttsim::hls
