#pragma once
// How a design's step is scheduled, the one fidelity of an evaluation: the SystemC engine
// (bank ports, `simulate`) or the analytic list scheduler (sim/analytic.h: no port model, a
// lower bound of the SystemC cycles; the explorer's first pass). Written as "analytic" /
// "systemc" wherever an evaluation says how it was made (the explorer's results and log).

#include <optional>
#include <string_view>

namespace ttsim {

/// How a step was scheduled: the analytic list scheduler (a lower bound in cycles) or the
/// SystemC engine with the bank ports.
enum class Fidelity { kAnalytic, kSystemC };

/// "analytic" or "systemc".
inline const char* to_string(Fidelity f) { return f == Fidelity::kSystemC ? "systemc" : "analytic"; }

/// The fidelity written as `text` (to_string's), nullopt for any other text.
inline std::optional<Fidelity> parse_fidelity(std::string_view text) {
  if (text == "analytic") return Fidelity::kAnalytic;
  if (text == "systemc") return Fidelity::kSystemC;
  return std::nullopt;
}

}  // namespace ttsim
