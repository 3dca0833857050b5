#include "hw/device_spec.h"

#include <fmt/format.h>

#include <algorithm>

#include "hls/include/kernel_spec.h"

namespace ttsim {

bool is_float_operator(const std::string& name) {
  for (int k = ttsim_spec::kFadd; k < ttsim_spec::kOprCount; ++k) {
    if (name == ttsim_spec::kOprNames[k]) return true;
  }
  return false;
}

std::string float_operator_names() {
  std::string s;
  for (int k = ttsim_spec::kFadd; k < ttsim_spec::kOprCount; ++k) s += (s.empty() ? "" : ", ") + std::string(ttsim_spec::kOprNames[k]);
  return s;
}


int FloatOpSpec::latency_at(double clock_mhz) const {
  for (const auto& [max_mhz, cycles] : latency_by_clock) {
    if (clock_mhz <= max_mhz) return cycles;
  }
  throw InputError("no operator latency is defined for a clock of " + std::to_string(clock_mhz) +
                   " MHz");
}

void check_clock_within_device(double clock_mhz, const DeviceSpec& device, const std::string& where,
                               const std::string& device_where) {
  if (clock_mhz > device.max_clock_mhz) {
    throw InputError(fmt::format("{}: expected at most the device's {} MHz ({}), found {}", where,
                                 device.max_clock_mhz, device_where, clock_mhz));
  }
}

const FloatOpSpec& DeviceSpec::op(const std::string& name) const {
  auto it = float_ops.find(name);
  if (it == float_ops.end()) {
    throw InputError(source_file + ": /float_ops: expected operator \"" + name +
                     "\", found no such key");
  }
  return it->second;
}

Json DeviceSpec::to_json() const {
  Json j;
  j["name"] = name;
  j["part"] = part;
  j["platform"] = platform;
  j["resources"] = {{"bram36", bram36}, {"uram288", uram288}, {"dsp", dsp}, {"lut", lut}, {"ff", ff}};
  j["slrs"] = slrs;
  j["clocks"] = {{"default_mhz", default_clock_mhz},
                 {"max_mhz", max_clock_mhz},
                 {"achievable_mhz", achievable_clock_mhz > 0 ? Json(achievable_clock_mhz) : Json(nullptr)},
                 {"multi_slr_mhz", multi_slr_clock_mhz > 0 ? Json(multi_slr_clock_mhz) : Json(nullptr)}};
  if (card_max_watts > 0) j["card"] = {{"idle_watts", card_idle_watts}, {"max_watts", card_max_watts}};
  j["memory"] = {{"bram_read_latency", bram_read_latency},
                 {"uram_read_latency", uram_read_latency},
                 {"write_latency", write_latency},
                 {"uram_cascade_height", uram_cascade_height}};
  j["int_mul32"] = {{"dsp", int_mul32_dsp}};
  Json ops = Json::object();
  for (const auto& [n, o] : float_ops) {
    Json lat = Json::array();
    for (const auto& [mhz, cyc] : o.latency_by_clock) lat.push_back({{"max_clock_mhz", mhz}, {"cycles", cyc}});
    ops[n] = {{"dsp", o.dsp}, {"latency", lat}};
  }
  j["float_ops"] = ops;
  j["power"] = {{"static_watts", power.static_watts},
                {"dsp_watts_per_mhz", power.dsp_watts_per_mhz},
                {"bram36_watts_per_mhz", power.bram36_watts_per_mhz},
                {"uram_watts_per_mhz", power.uram_watts_per_mhz},
                {"logic_watts_per_kilolut_mhz", power.logic_watts_per_kilolut_mhz},
                {"clock_watts_per_kilolut_mhz", power.clock_watts_per_kilolut_mhz},
                {"source", power.source}};
  return j;
}

namespace {

/// Reads the "resources" object (block RAM, URAM, DSP, LUT and FF counts) into `d`.
void read_resources(const JsonView& res, DeviceSpec& d) {
  res.allow_keys({"bram36", "uram288", "dsp", "lut", "ff"});
  d.bram36 = res.at("bram36").as_int(0, 1 << 20);
  d.uram288 = res.at("uram288").as_int(0, 1 << 20);
  d.dsp = res.at("dsp").as_int(0, 1 << 24);
  d.lut = res.at("lut").as_int(1, 1LL << 32);
  d.ff = res.at("ff").as_int(1, 1LL << 32);
}

/// Reads the optional "memory" object (read / write latencies, URAM cascade) into `d`.
void read_memory(const JsonView& mem, DeviceSpec& d) {
  mem.allow_keys({"bram_read_latency", "uram_read_latency", "write_latency", "uram_cascade_height"});
  d.bram_read_latency = static_cast<int>(mem.get_int("bram_read_latency", 1, 1, 8));
  d.uram_read_latency = static_cast<int>(mem.get_int("uram_read_latency", 1, 1, 8));
  d.write_latency = static_cast<int>(mem.get_int("write_latency", 1, 1, 8));
  d.uram_cascade_height = static_cast<int>(mem.get_int("uram_cascade_height", 8, 1, 64));
}

/// Reads one floating-point operator (object `o`): its DSPs and its latency by clock, in
/// increasing clocks up to at least `max_clock_mhz`.
FloatOpSpec read_float_op(const JsonView& o, double max_clock_mhz) {
  o.allow_keys({"dsp", "latency"});
  FloatOpSpec spec;
  spec.dsp = static_cast<int>(o.at("dsp").as_int(0, 64));
  double last = 0;
  for (const auto& e : o.at("latency").as_array(1)) {
    e.allow_keys({"max_clock_mhz", "cycles"});
    double mhz = e.at("max_clock_mhz").as_double(1, 2000);
    if (mhz <= last) {
      e.at("max_clock_mhz").fail("clocks in increasing order (above " + std::to_string(last) + ")");
    }
    last = mhz;
    spec.latency_by_clock.emplace_back(mhz, static_cast<int>(e.at("cycles").as_int(0, 1000)));
  }
  // Every clock the device accepts must have a latency, or latency_at() fails later.
  if (last < max_clock_mhz) {
    JsonView lat = o.at("latency");
    lat.at(lat.raw().size() - 1)
        .at("max_clock_mhz")
        .fail("a last entry covering clocks.max_mhz = " + Json(max_clock_mhz).dump() + " MHz",
              "number " + Json(last).dump());
  }
  return spec;
}

/// Reads the "float_ops" object into d.float_ops; fadd and fmul are required.
void read_float_ops(const JsonView& ops, DeviceSpec& d) {
  if (!ops.is_object() || ops.raw().empty()) ops.fail("a non-empty object of operators");
  for (auto it = ops.raw().begin(); it != ops.raw().end(); ++it) {
    if (!is_float_operator(it.key())) {
      ops.fail("a floating-point operator of the kernel specification (" + float_operator_names() + ")",
               "key \"" + it.key() + "\"");
    }
    d.float_ops[it.key()] = read_float_op(ops.at(it.key()), d.max_clock_mhz);
  }
  for (const char* required : {"fadd", "fmul"}) {
    if (!d.float_ops.count(required)) {
      ops.fail("operator \"" + std::string(required) + "\"", "no such key");
    }
  }
}

/// Reads the optional "power" object (the power model's coefficients) into d.power.
void read_power(const JsonView& p, DeviceSpec& d) {
  p.allow_keys({"static_watts", "dsp_watts_per_mhz", "bram36_watts_per_mhz",
                "uram_watts_per_mhz", "logic_watts_per_kilolut_mhz", "clock_watts_per_kilolut_mhz",
                "source"});
  d.power.static_watts = p.at("static_watts").as_double(0, 1000);
  d.power.dsp_watts_per_mhz = p.at("dsp_watts_per_mhz").as_double(0, 1);
  d.power.bram36_watts_per_mhz = p.at("bram36_watts_per_mhz").as_double(0, 1);
  d.power.uram_watts_per_mhz = p.at("uram_watts_per_mhz").as_double(0, 1);
  d.power.logic_watts_per_kilolut_mhz = p.at("logic_watts_per_kilolut_mhz").as_double(0, 1);
  d.power.clock_watts_per_kilolut_mhz = p.at("clock_watts_per_kilolut_mhz").as_double(0, 1);
  d.power.source = p.at("source").as_string();
}

}  // namespace

DeviceSpec parse_device_spec(const Json& doc, const std::string& file) {
  JsonView root(doc, file);
  root.allow_keys({"kind", "name", "description", "part", "platform", "resources", "slrs",
                   "clocks", "memory", "int_mul32", "float_ops", "power", "card", "sources"});
  // configs/devices also holds GPU baselines ("kind": "gpu", models/gpu); this loader
  // reads FPGA boards only and says so instead of failing on their first unknown key.
  if (auto k = root.find("kind")) k->as_enum({"fpga"});
  DeviceSpec d;
  d.source_file = file;
  d.name = root.at("name").as_string();
  if (auto v = root.find("description")) v->as_string();
  if (auto v = root.find("sources")) {
    for (const JsonView& s : v->as_array(0)) d.sources.push_back(s.as_string());
  }
  d.part = root.at("part").as_string();
  d.platform = root.at("platform").as_string();
  read_resources(root.at("resources"), d);
  d.slrs = static_cast<int>(root.get_int("slrs", 1, 1, 16));

  JsonView clocks = root.at("clocks");
  clocks.allow_keys({"default_mhz", "max_mhz", "achievable_mhz", "multi_slr_mhz"});
  d.max_clock_mhz = clocks.at("max_mhz").as_double(1, 2000);
  d.default_clock_mhz = clocks.at("default_mhz").as_double(1, d.max_clock_mhz);
  d.achievable_clock_mhz = 0;
  if (auto a = clocks.find("achievable_mhz")) d.achievable_clock_mhz = a->as_double(1, d.max_clock_mhz);
  if (auto a = clocks.find("multi_slr_mhz")) d.multi_slr_clock_mhz = a->as_double(1, d.max_clock_mhz);
  if (auto card = root.find("card")) {
    card->allow_keys({"idle_watts", "max_watts"});
    d.card_max_watts = card->at("max_watts").as_double(1, 10000);
    d.card_idle_watts = card->at("idle_watts").as_double(0, d.card_max_watts);
  }

  if (auto mem = root.find("memory")) read_memory(*mem, d);
  if (auto m = root.find("int_mul32")) {
    m->allow_keys({"dsp"});
    d.int_mul32_dsp = static_cast<int>(m->at("dsp").as_int(0, 64));
  }
  read_float_ops(root.at("float_ops"), d);
  if (auto p = root.find("power")) read_power(*p, d);
  return d;
}

bool operator==(const DeviceSpec& a, const DeviceSpec& b) {
  const PowerCoefficients &p = a.power, &q = b.power;
  const bool same_power = p.static_watts == q.static_watts && p.dsp_watts_per_mhz == q.dsp_watts_per_mhz &&
                          p.bram36_watts_per_mhz == q.bram36_watts_per_mhz &&
                          p.uram_watts_per_mhz == q.uram_watts_per_mhz &&
                          p.logic_watts_per_kilolut_mhz == q.logic_watts_per_kilolut_mhz &&
                          p.clock_watts_per_kilolut_mhz == q.clock_watts_per_kilolut_mhz && p.source == q.source;
  bool same_ops = a.float_ops.size() == b.float_ops.size();
  for (auto i = a.float_ops.begin(), j = b.float_ops.begin(); same_ops && i != a.float_ops.end(); ++i, ++j) {
    same_ops = i->first == j->first && i->second.dsp == j->second.dsp &&
               i->second.latency_by_clock == j->second.latency_by_clock;
  }
  return same_power && same_ops && a.name == b.name && a.source_file == b.source_file && a.part == b.part &&
         a.platform == b.platform && a.bram36 == b.bram36 && a.uram288 == b.uram288 && a.dsp == b.dsp &&
         a.lut == b.lut && a.ff == b.ff && a.slrs == b.slrs && a.default_clock_mhz == b.default_clock_mhz &&
         a.max_clock_mhz == b.max_clock_mhz && a.achievable_clock_mhz == b.achievable_clock_mhz &&
         a.multi_slr_clock_mhz == b.multi_slr_clock_mhz &&
         a.card_idle_watts == b.card_idle_watts && a.card_max_watts == b.card_max_watts &&
         a.bram_read_latency == b.bram_read_latency &&
         a.uram_read_latency == b.uram_read_latency && a.write_latency == b.write_latency &&
         a.uram_cascade_height == b.uram_cascade_height && a.int_mul32_dsp == b.int_mul32_dsp;
}

DeviceSpec load_device_spec(const std::string& path) {
  return parse_device_spec(load_json_file(path), path);
}

}  // namespace ttsim
