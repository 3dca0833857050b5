#include "models/training/training_engine.h"

#include <algorithm>
#include <cstring>

#include "core/errors.h"

namespace ttsim::training {

namespace {

std::vector<EngineInfo>& mutable_registry() {
  static std::vector<EngineInfo> engines;
  return engines;
}

}  // namespace

const std::vector<EngineInfo>& engine_registry() { return mutable_registry(); }

EngineRegistration::EngineRegistration(EngineInfo info) {
  auto& r = mutable_registry();
  r.push_back(std::move(info));
  std::sort(r.begin(), r.end(),
            [](const EngineInfo& a, const EngineInfo& b) { return a.name < b.name; });
}

std::unique_ptr<TrainingEngine> make_engine(const std::string& name, const EngineSetup& setup) {
  std::string names;
  for (const auto& e : engine_registry()) {
    if (e.name == name) return e.make(setup);
    names += (names.empty() ? "" : ", ") + e.name;
  }
  throw InputError("no training engine \"" + name + "\" in this build (available: " +
                   (names.empty() ? std::string("none") : names) + ")");
}

void append_floats(std::string& blob, const float* data, std::size_t count) {
  blob.append(reinterpret_cast<const char*>(data), count * sizeof(float));
}

void read_floats(const std::string& blob, std::size_t& offset, float* data, std::size_t count) {
  const std::size_t bytes = count * sizeof(float);
  if (offset + bytes > blob.size()) {
    throw InputError("parameter blob too short: expected at least " +
                     std::to_string(offset + bytes) + " bytes, found " +
                     std::to_string(blob.size()));
  }
  std::memcpy(data, blob.data() + offset, bytes);
  offset += bytes;
}

}  // namespace ttsim::training
