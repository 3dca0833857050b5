#pragma once
// Card-level constants of the FPGA side of the baseline (configs/devices/u50_card.json,
// "kind": "fpga_card"): device and HBM static power stated separately, the card's idle
// draw, the post-route LUT factor and the sourced ranges of the on-chip power
// coefficients. Same constant format as the GPU file (models/gpu/gpu_spec.h).

#include <map>
#include <string>
#include <vector>

#include "models/gpu/gpu_spec.h"
#include "hw/device_spec.h"

namespace ttsim {

/// The names every card file must define.
const std::vector<std::string>& fpga_card_constant_names();

/// Card constants by name (fpga_card_constant_names()).
struct FpgaCardSpec {
  std::string name;
  std::string source_file;
  std::map<std::string, SourcedConstant> constants;
  double at(const std::string& key) const { return constants.at(key).value; }
  FpgaCardSpec with(const std::string& key, double value) const;
  Json to_json() const;
};

/// Loads and validates a card file (ConfigError with file, JSON pointer, expected, found).
FpgaCardSpec load_fpga_card_spec(const std::string& path);
FpgaCardSpec parse_fpga_card_spec(const Json& doc, const std::string& file);

/// Throws InputError when a constant the card file repeats from the device file
/// (device_static_watts = power.static_watts, dsp_watts_per_mhz,
/// logic_watts_per_kilolut_mhz, clock_watts_per_kilolut_mhz, card_idle_watts = card.idle_watts,
/// card_max_watts = card.max_watts) has another value there,
/// naming both files: the ranges are those of the device's figures.
void check_card_matches_device(const FpgaCardSpec& card, const DeviceSpec& device);

}  // namespace ttsim
