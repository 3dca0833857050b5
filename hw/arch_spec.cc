#include "hw/arch_spec.h"

#include <algorithm>
#include <map>
#include <vector>

#include "hw/loop_nest.h"

namespace ttsim {

const char* to_string(SchedulePolicy p) {
  return p == SchedulePolicy::kSequential ? "sequential" : "parallel";
}
const char* to_string(MemoryStrategy s) { return s == MemoryStrategy::kNaive ? "naive" : "grouped"; }
const char* to_string(SequenceLength s) {
  return s == SequenceLength::kPadded ? "padded" : "effective";
}

const std::vector<std::string>& recompute_choices() {
  static const std::vector<std::string> choices = {"none", "btt_merges", "encoders", "encoders_btt_merges"};
  return choices;
}

const char* recompute_choice(bool merges, bool encoders) {
  return recompute_choices()[(merges ? 1 : 0) + (encoders ? 2 : 0)].c_str();
}

std::string recompute_note(const ArchSpec& arch) {
  std::string note;
  if (arch.recompute_merges) note += "; BTT merges recomputed in the backward pass";
  if (arch.recompute_encoders) note += "; encoders recomputed before their backward (all but the last)";
  return note;
}

namespace {

// JSON names of the nonlinear unit kinds, in UnitKind order after kContraction.
const std::vector<std::pair<std::string, UnitKind>>& nonlinear_names() {
  static const std::vector<std::pair<std::string, UnitKind>> names = {
      {"softmax", UnitKind::kSoftmax}, {"layernorm", UnitKind::kLayerNorm},
      {"gelu", UnitKind::kGelu},       {"elementwise", UnitKind::kElementwise},
      {"loss", UnitKind::kLoss},       {"update", UnitKind::kUpdate}};
  return names;
}

/// One unit object: `count_key` (engines or count), lanes, overhead, and the keys of
/// `extra_keys` that the caller reads itself. ConfigError for an "ii" key or any other key.
UnitSpec parse_unit(const JsonView& v, const char* count_key, std::vector<std::string> extra_keys = {}) {
  if (auto ii = v.find("ii")) {
    ii->fail("no \"ii\" key: the II of every loop is derived from the kernel specification "
             "(hls/include/kernel_spec.h) and the device's operator latencies, II = max(RecMII, ResMII); "
             "remove the key",
             "key \"ii\" (" + describe_json(ii->raw()) + ")");
  }
  extra_keys.insert(extra_keys.begin(), {count_key, "lanes", "overhead"});
  v.allow_keys(extra_keys);
  UnitSpec u;
  u.count = static_cast<int>(v.at(count_key).as_int(1, 4096));
  u.lanes = static_cast<int>(v.at("lanes").as_int(1, 4096));
  u.overhead = static_cast<int>(v.get_int("overhead", 0, 0, 100000));
  return u;
}

Json unit_json(const UnitSpec& u, const char* count_key) {
  return {{count_key, u.count}, {"lanes", u.lanes}, {"overhead", u.overhead}};
}

}  // namespace

OperatorDsp::OperatorDsp(const DeviceSpec& device) : device_(&device) {
  for (int op = 0; op < ttsim_spec::kOprCount; ++op) {
    if (op == ttsim_spec::kRead || op == ttsim_spec::kWrite) continue;  // memory ports, no DSP
    const auto it = device.float_ops.find(ttsim_spec::kOprNames[op]);
    dsp_[op] = it == device.float_ops.end() ? -1 : it->second.dsp;
  }
}

std::int64_t OperatorDsp::operator[](ttsim_spec::Opr op) const {
  if (dsp_[op] < 0) return device_->op(ttsim_spec::kOprNames[op]).dsp;  // throws: not in the file
  return dsp_[op];
}

std::int64_t OperatorDsp::int_mul32() const { return device_->int_mul32_dsp; }

std::int64_t setup_dsp(const ttsim_spec::KernelSpec& ks, int variant, const OperatorDsp& table, unsigned omitted) {
  bool seen[ttsim_spec::kTripTranspose + 1] = {};
  std::int64_t products = 0;
  for (int i = 0; i < ks.n_loops; ++i) {
    const ttsim_spec::LoopSpec& l = ks.loops[i];
    if ((variant >= 0 && l.variant != variant) || !ttsim_spec::loop_built(l, omitted) || seen[l.trip]) continue;
    seen[l.trip] = true;
    products += ttsim_spec::trip_products(l.trip);
  }
  return products * table.int_mul32();
}

std::int64_t loop_dsp(const ttsim_spec::LoopSpec& l, int lanes, const OperatorDsp& table, int banks) {
  bool lane_loop = false;
  for (int a = 0; a < l.n_access; ++a) lane_loop = lane_loop || l.access[a].kind == ttsim_spec::kLaneAccess;
  std::int64_t dsp = 0;
  for (int c = 0; c < l.n_chain; ++c) {
    const ttsim_spec::Opr op = l.chain[c].op;
    if (op == ttsim_spec::kRead || op == ttsim_spec::kWrite) continue;  // memory ports, no DSP
    const std::int64_t per = table[op];
    std::int64_t instances = 1;
    if (lane_loop && l.chain[c].rep == ttsim_spec::kOnce) instances = lanes;
    if (lane_loop && l.chain[c].rep == ttsim_spec::kTree) instances = lanes - 1;
    if (lane_loop && l.chain[c].rep == ttsim_spec::kWindow) instances = ttsim_spec::lane_site_accesses(lanes, banks);
    if (lane_loop && l.chain[c].rep == ttsim_spec::kPairWindow) instances = ttsim_spec::pair_windows(lanes, banks);
    dsp += per * instances;
  }
  return dsp;
}

std::int64_t loop_dsp(const ttsim_spec::LoopSpec& l, int lanes, const DeviceSpec& device, int banks) {
  return loop_dsp(l, lanes, OperatorDsp(device), banks);
}

namespace {

std::int64_t kernel_dsp(TaskOp op, int lanes, const OperatorDsp& table, int banks, unsigned omitted) {
  const ttsim_spec::KernelSpec& ks = kernel_spec(op);
  std::int64_t dsp = 0;
  for (int i = 0; i < ks.n_loops; ++i) {
    if (ttsim_spec::loop_built(ks.loops[i], omitted)) dsp += loop_dsp(ks.loops[i], lanes, table, banks);
  }
  return dsp + setup_dsp(ks, -1, table, omitted);
}

}  // namespace

unsigned omitted_loops(const ArchSpec& arch) { return ttsim_spec::omitted_loops(arch.accumulate_by_add); }

std::int64_t kernel_dsp(TaskOp op, int lanes, const DeviceSpec& device, int banks, unsigned omitted) {
  return kernel_dsp(op, lanes, OperatorDsp(device), banks, omitted);
}

std::int64_t unit_dsp(UnitKind k, int lanes, const OperatorDsp& table, int banks, unsigned omitted) {
  std::int64_t dsp = 0;
  for (TaskOp op : ops_of_unit(k)) dsp += kernel_dsp(op, lanes, table, banks, omitted);
  return dsp;
}

std::int64_t unit_dsp(UnitKind k, int lanes, const DeviceSpec& device, int banks, unsigned omitted) {
  return unit_dsp(k, lanes, OperatorDsp(device), banks, omitted);
}

std::int64_t arch_dsp(const ArchSpec& arch, const DeviceSpec& device) {
  std::int64_t total = 0;
  for (int i = 0; i < kUnitKinds; ++i) {
    const UnitSpec& u = arch.units[i];
    total += static_cast<std::int64_t>(u.count) *
             unit_dsp(static_cast<UnitKind>(i), u.lanes, device, arena_banks(arch), omitted_loops(arch));
  }
  return total;
}

bool operator==(const ArchSpec& a, const ArchSpec& b) {
  for (int k = 0; k < kUnitKinds; ++k) {
    const UnitSpec &x = a.units[k], &y = b.units[k];
    if (x.count != y.count || x.lanes != y.lanes || x.overhead != y.overhead) return false;
  }
  return a.name == b.name && a.source_file == b.source_file && a.clock_mhz == b.clock_mhz &&
         a.policy == b.policy && a.parallel_merges == b.parallel_merges && a.qkv_reschedule == b.qkv_reschedule &&
         a.fusion == b.fusion && a.flow_by_kind == b.flow_by_kind && a.memory == b.memory &&
         a.sequence_length == b.sequence_length && a.port_contention == b.port_contention &&
         a.recompute_merges == b.recompute_merges && a.recompute_encoders == b.recompute_encoders &&
         a.lanes_per_bank == b.lanes_per_bank && a.accumulate_by_add == b.accumulate_by_add &&
         a.calibration == b.calibration;
}

Json ArchSpec::to_json() const {
  Json j;
  j["name"] = name;
  j["clock_mhz"] = clock_mhz;
  j["contraction"] = unit_json(unit(UnitKind::kContraction), "engines");
  // Every key, defaults included: a sweep axis may name any field of the resolved base
  // (/contraction/lanes_per_bank, /contraction/accumulate on an arch file that leaves them out).
  j["contraction"]["lanes_per_bank"] = lanes_per_bank;
  j["contraction"]["accumulate"] = accumulate_by_add ? "by_add" : "in_place";
  Json nl = Json::object();
  for (const auto& [n, k] : nonlinear_names()) nl[n] = unit_json(unit(k), "count");
  j["nonlinear"] = nl;
  j["scheduling"] = {{"policy", to_string(policy)},
                     {"parallel_merges", parallel_merges},
                     {"qkv_reschedule", qkv_reschedule},
                     {"fusion", fusion}};
  Json flows = Json::object();
  for (const auto& [kind, f] : flow_by_kind) flows[kind] = to_string(f);
  j["flows"] = flows;
  j["memory"] = {{"strategy", to_string(memory)},
                 {"port_contention", port_contention},
                 {"recompute", recompute_choice(recompute_merges, recompute_encoders)}};
  j["sequence_length"] = to_string(sequence_length);
  return j;
}

ArchSpec parse_arch_spec(const Json& doc, const std::string& file) {
  JsonView root(doc, file);
  root.allow_keys({"name", "description", "sources", "clock_mhz", "contraction", "nonlinear",
                   "scheduling", "flows", "memory", "sequence_length"});
  ArchSpec a;
  a.source_file = file;
  a.name = root.at("name").as_string();
  if (auto v = root.find("description")) v->as_string();
  if (auto v = root.find("sources")) v->as_array(0);
  a.clock_mhz = root.at("clock_mhz").as_double(1, 2000);
  JsonView contraction = root.at("contraction");
  a.unit(UnitKind::kContraction) = parse_unit(contraction, "engines", {"lanes_per_bank", "accumulate"});

  JsonView nl = root.at("nonlinear");
  std::vector<std::string> keys;
  for (const auto& [n, k] : nonlinear_names()) keys.push_back(n);
  nl.allow_keys(keys);
  for (const auto& [n, k] : nonlinear_names()) a.unit(k) = parse_unit(nl.at(n), "count");
  if (auto v = contraction.find("lanes_per_bank")) {
    a.lanes_per_bank = static_cast<int>(v->as_int(1, ttsim_spec::kBankPorts));
    int widest = 1;
    std::string widest_unit;
    for (const auto& [n, k] : nonlinear_names()) {
      if (a.unit(k).lanes > widest) {
        widest = a.unit(k).lanes;
        widest_unit = n;
      }
    }
    const int lanes = a.unit(UnitKind::kContraction).lanes;
    if (a.lanes_per_bank > 1 && lanes <= widest) {
      v->fail("1 while the contraction's lanes (" + std::to_string(lanes) +
                  ") do not exceed the widest nonlinear unit's (" + std::to_string(widest) +
                  (widest_unit.empty() ? std::string() : ", /nonlinear/" + widest_unit + "/lanes") +
                  "): the arenas would keep at least as many banks as contraction lanes",
              std::to_string(a.lanes_per_bank));
    }
  }
  if (auto v = contraction.find("accumulate")) {
    a.accumulate_by_add = v->as_enum({"in_place", "by_add"}) == "by_add";
    if (a.accumulate_by_add && a.lanes_per_bank < 2) {
      v->fail(std::string("\"in_place\" while /contraction/lanes_per_bank is 1") +
                  (contraction.find("lanes_per_bank") ? "" : " (its default: the key is absent)") +
                  " (one lane per bank: the accumulating column form already runs at II 1, nothing for the adds "
                  "to save)",
              "\"by_add\"");
    }
  }

  JsonView sch = root.at("scheduling");
  sch.allow_keys({"policy", "parallel_merges", "qkv_reschedule", "fusion"});
  a.policy = sch.at("policy").as_enum({"sequential", "parallel"}) == "sequential"
                 ? SchedulePolicy::kSequential
                 : SchedulePolicy::kParallel;
  a.parallel_merges = sch.get_bool("parallel_merges", true);
  a.qkv_reschedule = sch.get_bool("qkv_reschedule", false);
  a.fusion = sch.get_bool("fusion", false);

  JsonView flows = root.at("flows");
  flows.allow_keys({"attention", "ffn_in", "ffn_out"});
  for (const char* kind : {"attention", "ffn_in", "ffn_out"}) {
    a.flow_by_kind[kind] = parse_flow(flows.at(kind).as_enum({"mm", "tt", "btt"}));
  }

  JsonView mem = root.at("memory");
  mem.allow_keys({"strategy", "port_contention", "recompute"});
  a.memory = mem.at("strategy").as_enum({"naive", "grouped"}) == "naive" ? MemoryStrategy::kNaive
                                                                         : MemoryStrategy::kGrouped;
  a.port_contention = mem.get_bool("port_contention", true);
  const std::string recompute = mem.has("recompute") ? mem.at("recompute").as_enum(recompute_choices()) : "none";
  a.recompute_merges = recompute == "btt_merges" || recompute == "encoders_btt_merges";
  a.recompute_encoders = recompute == "encoders" || recompute == "encoders_btt_merges";
  a.sequence_length = root.at("sequence_length").as_enum({"padded", "effective"}) == "padded"
                          ? SequenceLength::kPadded
                          : SequenceLength::kEffective;
  return a;
}

int arena_banks(const ArchSpec& arch) {
  const int contraction = arch.unit(UnitKind::kContraction).lanes;
  int banks = (contraction + arch.lanes_per_bank - 1) / std::max(1, arch.lanes_per_bank);
  for (int k = 0; k < kUnitKinds; ++k) {
    if (k != static_cast<int>(UnitKind::kContraction)) banks = std::max(banks, arch.units[k].lanes);
  }
  return std::max(1, banks);
}

ArchSpec load_arch_spec(const std::string& path) { return parse_arch_spec(load_json_file(path), path); }

}  // namespace ttsim
