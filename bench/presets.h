#pragma once
// The configurations the simulator benchmarks run on, loaded once: the U50 device, the
// u50_paper arch and the ATIS presets by encoder count. Paths are relative to the
// workspace root (run the benchmarks from there or through `bazel run`).

#include <cstdint>
#include <string>

#include "models/model_spec.h"
#include "hw/arch_spec.h"
#include "hw/device_spec.h"

namespace ttsim::bench {

/// configs/devices/u50.json. Throws as load_device_spec.
inline const DeviceSpec& u50() {
  static const DeviceSpec d = load_device_spec("configs/devices/u50.json");
  return d;
}

/// configs/arch/u50_paper.json. Throws as load_arch_spec.
inline const ArchSpec& paper() {
  static const ArchSpec a = load_arch_spec("configs/arch/u50_paper.json");
  return a;
}

/// configs/models/atis_<encoders>enc.json (2, 4 or 6 encoders ship).
inline std::string preset_file(std::int64_t encoders) {
  return "configs/models/atis_" + std::to_string(encoders) + "enc.json";
}

/// The ATIS preset of `encoders` encoders. Throws as load_model_spec.
inline ModelSpec preset(std::int64_t encoders) { return load_model_spec(preset_file(encoders)); }

}  // namespace ttsim::bench
