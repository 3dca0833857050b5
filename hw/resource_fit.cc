#include "hw/resource_fit.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include <fmt/format.h>

#include "core/number_text.h"

namespace ttsim {

std::string ResourceOverrun::line() const {
  if (resource == "clock") {
    return fmt::format("clock {:g} MHz asked, {:g} MHz usable ({:g} MHz achievable{}; the device at {}, {:g} % "
                       "headroom)",
                       used, limit, total, basis.empty() ? "" : ": " + basis, device_pointer, headroom_pct);
  }
  if (resource == "card power") {
    return fmt::format("card power {:.1f} W needed, {:.1f} W usable ({:g} W on the device at {}, {:g} % headroom)",
                       used, limit, total, device_pointer, headroom_pct);
  }
  return fmt::format("{} {} {}, {} usable ({} on the device at {}, {:g} % headroom)", resource,
                     grouped(static_cast<std::int64_t>(std::ceil(used))),
                     resource == "LUT" || resource == "FF" ? "estimated" : "needed",
                     grouped(static_cast<std::int64_t>(limit)), grouped(static_cast<std::int64_t>(total)),
                     device_pointer, headroom_pct);
}

std::string ClockEstimate::basis() const {
  if (!slr_resource) return "";
  return fmt::format("spans {} SLRs: {} {} > {} usable in one SLR", slrs, slr_resource,
                     grouped(static_cast<std::int64_t>(std::ceil(slr_used))),
                     grouped(static_cast<std::int64_t>(slr_share)));
}

double one_slr_usable(std::int64_t total, int slrs, double headroom_pct) {
  return std::floor(static_cast<double>(total) / std::max(1, slrs) *
                    std::max(0.0, 100.0 - headroom_pct - kSlrInfrastructurePct) / 100.0);
}

ClockEstimate achievable_clock(const ResourceUse& use, const DeviceSpec& device, double headroom_pct) {
  ClockEstimate c;
  if (device.achievable_clock_mhz <= 0) return c;
  c.mhz = device.achievable_clock_mhz;
  c.device_pointer = "/clocks/achievable_mhz";
  c.slrs = device.slrs;
  if (device.slrs < 2 || device.multi_slr_clock_mhz <= 0 || device.multi_slr_clock_mhz >= c.mhz) return c;
  double worst = 1;  // the resource furthest above what one SLR holds of it, if any
  auto share = [&](const char* what, double used, std::int64_t total) {
    if (total <= 0) return;
    const double usable = one_slr_usable(total, device.slrs, headroom_pct);
    const double ratio = usable > 0 ? used / usable : std::numeric_limits<double>::infinity();
    if (used > usable && ratio > worst) {
      worst = ratio;
      c.slr_resource = what;
      c.slr_used = used;
      c.slr_share = usable;
    }
  };
  share("BRAM36", use.bram36, device.bram36);
  share("URAM288", use.uram288, device.uram288);
  share("DSP", use.dsp, device.dsp);
  share("LUT (estimated)", use.lut, device.lut);
  share("FF (estimated)", use.ff, device.ff);
  if (c.slr_resource) {
    c.mhz = device.multi_slr_clock_mhz;
    c.device_pointer = "/clocks/multi_slr_mhz";
  }
  return c;
}

std::vector<ResourceOverrun> resource_limits(const ResourceUse& use, const DeviceSpec& device, double headroom_pct) {
  if (!(headroom_pct >= 0 && headroom_pct < 100)) {
    throw std::invalid_argument("resource_limits: headroom must be in [0, 100)");
  }
  std::vector<ResourceOverrun> out;
  const double usable = (100.0 - headroom_pct) / 100.0;
  auto add = [&](const char* what, const char* pointer, double used, std::int64_t total) {
    out.push_back({what, pointer, used, std::floor(static_cast<double>(total) * usable), static_cast<double>(total),
                   headroom_pct});
  };
  add("BRAM36", "/resources/bram36", use.bram36, device.bram36);
  add("URAM288", "/resources/uram288", use.uram288, device.uram288);
  add("DSP", "/resources/dsp", use.dsp, device.dsp);
  if (device.lut > 0) add("LUT", "/resources/lut", use.lut, device.lut);
  if (device.ff > 0) add("FF", "/resources/ff", use.ff, device.ff);
  return out;
}

std::optional<ResourceOverrun> tightest_resource(const ResourceUse& use, const DeviceSpec& device,
                                                 double headroom_pct) {
  std::optional<ResourceOverrun> best;
  for (const ResourceOverrun& r : resource_limits(use, device, headroom_pct)) {
    if (r.limit > 0 && (!best || r.used / r.limit > best->used / best->limit)) best = r;
  }
  return best;
}

std::vector<ResourceOverrun> resource_overruns(const ResourceUse& use, const DeviceSpec& device,
                                               double headroom_pct) {
  if (!(headroom_pct >= 0 && headroom_pct < 100)) {
    throw std::invalid_argument("resource_overruns: headroom must be in [0, 100)");
  }
  std::vector<ResourceOverrun> out;
  const double usable = (100.0 - headroom_pct) / 100.0;
  for (const ResourceOverrun& r : resource_limits(use, device, headroom_pct)) {
    if (r.used > r.limit) out.push_back(r);
  }
  if (use.card_watts > 0 && device.card_max_watts > 0) {
    const double limit = device.card_max_watts * usable;
    if (use.card_watts > limit) {
      out.push_back({"card power", "/card/max_watts", use.card_watts, limit, device.card_max_watts, headroom_pct});
    }
  }
  const ClockEstimate clock = achievable_clock(use, device, headroom_pct);
  const double clock_limit = clock.mhz * usable;
  if (clock.mhz > 0 && use.clock_mhz > clock_limit) {
    out.push_back({"clock", clock.device_pointer, use.clock_mhz, clock_limit, clock.mhz, headroom_pct, clock.basis()});
  }
  return out;
}

}  // namespace ttsim
