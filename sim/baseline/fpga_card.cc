#include "sim/baseline/fpga_card.h"

#include <cmath>

#include <fmt/format.h>

#include "core/errors.h"
#include "hw/fpga_power.h"

namespace ttsim {

const std::vector<std::string>& fpga_card_constant_names() {
  static const std::vector<std::string> names = {
      "device_static_watts", "hbm_static_watts", "card_idle_watts", "card_max_watts", "post_route_lut_factor",
      "dsp_watts_per_mhz", "logic_watts_per_kilolut_mhz", "clock_watts_per_kilolut_mhz"};
  return names;
}

FpgaCardSpec FpgaCardSpec::with(const std::string& key, double value) const {
  FpgaCardSpec c = *this;
  c.constants.at(key).value = value;
  return c;
}

Json FpgaCardSpec::to_json() const {
  return {{"kind", "fpga_card"}, {"name", name}, {"file", source_file}, {"constants", sourced_constants_json(constants)}};
}

FpgaCardSpec parse_fpga_card_spec(const Json& doc, const std::string& file) {
  JsonView root(doc, file);
  if (!root.is_object()) root.fail("a JSON object with \"kind\": \"fpga_card\"");
  root.allow_keys({"kind", "name", "description", "constants"});
  root.at("kind").as_enum({"fpga_card"});
  FpgaCardSpec c;
  c.source_file = file;
  c.name = root.at("name").as_string();
  if (auto d = root.find("description")) d->as_string();
  const JsonView cs = root.at("constants");
  c.constants = parse_sourced_constants(cs, fpga_card_constant_names());
  if (c.at("hbm_static_watts") > c.at("device_static_watts")) {
    cs.at("hbm_static_watts").at("value").fail("at most device_static_watts (the HBM static is part of it)");
  }
  if (c.at("post_route_lut_factor") <= 0) cs.at("post_route_lut_factor").at("value").fail("a positive factor");
  return c;
}

FpgaCardSpec load_fpga_card_spec(const std::string& path) { return parse_fpga_card_spec(load_json_file(path), path); }

void check_card_matches_device(const FpgaCardSpec& card, const DeviceSpec& device) {
  if (!has_power_coefficients(device)) {
    throw InputError(fmt::format("{}: /power: expected the device's power coefficients (static watts, watts per "
                                 "MHz of DSP, BRAM, URAM, logic and clock), found none; the energy comparison "
                                 "needs them",
                                 device.source_file.empty() ? device.name : device.source_file));
  }
  if (device.card_max_watts <= 0) {
    throw InputError(fmt::format("{}: /card: expected the card's idle_watts and max_watts (the card file {} states "
                                 "card_idle_watts {} W and card_max_watts {} W), found no card object",
                                 device.source_file.empty() ? device.name : device.source_file, card.source_file,
                                 card.at("card_idle_watts"), card.at("card_max_watts")));
  }
  const std::pair<const char*, double> repeated[] = {
      {"device_static_watts", device.power.static_watts},
      {"dsp_watts_per_mhz", device.power.dsp_watts_per_mhz},
      {"logic_watts_per_kilolut_mhz", device.power.logic_watts_per_kilolut_mhz},
      {"clock_watts_per_kilolut_mhz", device.power.clock_watts_per_kilolut_mhz},
      {"card_idle_watts", device.card_idle_watts},
      {"card_max_watts", device.card_max_watts}};
  for (const auto& [key, value] : repeated) {
    const double v = card.at(key);
    if (std::abs(v - value) > 1e-9 * std::max(1.0, std::abs(value))) {
      throw InputError(fmt::format("{}: /constants/{}/value: expected {} (the value in {}), found {}",
                                   card.source_file, key, value, device.source_file, v));
    }
  }
}

}  // namespace ttsim
