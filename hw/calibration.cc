#include "hw/calibration.h"

#include <cmath>
#include <memory>

#include <fmt/format.h>

#include "core/atomic_file.h"
#include "core/errors.h"
#include "hw/device_spec.h"
#include "hw/loop_nest.h"

namespace ttsim {
namespace {

constexpr TaskOp kTaskOps[] = {TaskOp::kContraction, TaskOp::kSoftmax,   TaskOp::kSoftmaxGrad,
                               TaskOp::kLayerNorm,   TaskOp::kLayerNormGrad, TaskOp::kGelu,
                               TaskOp::kGeluGrad,    TaskOp::kAdd,       TaskOp::kLoss,
                               TaskOp::kSgdUpdate};

std::vector<std::string> string_list(const JsonView& v) {
  std::vector<std::string> out;
  for (const JsonView& e : v.as_array(0)) out.push_back(e.as_string());
  return out;
}

// The power coefficient keys, in DeviceSpec::power order.
struct PowerKey {
  const char* name;
  std::optional<double> PowerFitRecord::*fit;
  double PowerCoefficients::*device;
};
constexpr PowerKey kPowerKeys[] = {
    {"static_watts", &PowerFitRecord::static_watts, &PowerCoefficients::static_watts},
    {"dsp_watts_per_mhz", &PowerFitRecord::dsp_watts_per_mhz, &PowerCoefficients::dsp_watts_per_mhz},
    {"bram36_watts_per_mhz", &PowerFitRecord::bram36_watts_per_mhz, &PowerCoefficients::bram36_watts_per_mhz},
    {"uram_watts_per_mhz", &PowerFitRecord::uram_watts_per_mhz, &PowerCoefficients::uram_watts_per_mhz},
    {"logic_watts_per_kilolut_mhz", &PowerFitRecord::logic_watts_per_kilolut_mhz,
     &PowerCoefficients::logic_watts_per_kilolut_mhz},
    {"clock_watts_per_kilolut_mhz", &PowerFitRecord::clock_watts_per_kilolut_mhz,
     &PowerCoefficients::clock_watts_per_kilolut_mhz},
};

}  // namespace

std::optional<TaskOp> task_op_from_string(const std::string& name) {
  for (TaskOp op : kTaskOps) {
    if (name == to_string(op)) return op;
  }
  return std::nullopt;
}

KernelCalibration Calibration::kernel_calibration() const {
  KernelCalibration k;
  k.name = file;
  for (const auto& [op, rec] : kernels) k.kernels[op] = rec.params;
  k.op_latency = op_latency;
  return k;
}

Json calibration_to_json(const Calibration& c) {
  Json j;
  j["format"] = "ttsim-calibration";
  j["version"] = 2;
  j["provenance"] = {{"tool_version", c.tool_version}, {"part", c.part},
                     {"target_clock_ns", c.target_clock_ns}, {"arch", c.arch},
                     {"device", c.device}, {"model", c.model}, {"reports", c.reports}};
  if (c.achievable_clock_ns) j["provenance"]["achievable_clock_ns"] = *c.achievable_clock_ns;
  if (!c.notes.empty()) j["provenance"]["notes"] = c.notes;
  Json kernels = Json::object();
  for (const auto& [op, r] : c.kernels) {
    Json loops = Json::object();
    for (const auto& [name, l] : r.loops) {
      auto adj = r.params.depth_adjust.find(name);
      Json lj = {{"depth_adjust", adj == r.params.depth_adjust.end() ? 0.0 : adj->second},
                 {"samples", l.samples},
                 {"model_ii", l.model_ii},
                 {"model_depth", l.model_depth},
                 {"max_abs_residual_cycles", l.max_abs_residual_cycles}};
      if (l.report_ii) lj["report_ii"] = *l.report_ii;
      if (l.report_depth) lj["report_depth"] = *l.report_depth;
      loops[name] = lj;
    }
    kernels[to_string(op)] = {{"module", r.module},
                              {"lanes", r.lanes},
                              {"overhead", r.params.overhead},
                              {"samples", r.samples},
                              {"max_abs_residual_cycles", r.max_abs_residual_cycles},
                              {"reports", r.reports},
                              {"loops", loops}};
  }
  j["kernels"] = kernels;
  Json ops = Json::object();
  for (const auto& [name, cycles] : c.op_latency) ops[name] = cycles;
  j["op_latency"] = ops;
  if (c.power) {
    Json p = Json::object();
    for (const PowerKey& k : kPowerKeys) {
      if ((*c.power).*k.fit) p[k.name] = *((*c.power).*k.fit);
    }
    p["reports"] = c.power->reports;
    j["power"] = p;
  }
  return j;
}

namespace {

/// Why a per-kernel II is refused: it is derived, not fitted.
constexpr const char* kDerivedIi =
    "the II of every loop is derived from the kernel specification (hls/include/kernel_spec.h) and the "
    "operator latencies; re-run `ttsim calibrate` on the reports";

/// Checks the "format" tag and "version" 2 of the root object.
void check_format_version(const JsonView& root) {
  if (root.at("format").as_string() != "ttsim-calibration") {
    root.at("format").fail("\"ttsim-calibration\"");
  }
  const JsonView version = root.at("version");
  if (version.is_number() && version.raw() == 1) {
    version.fail(std::string("version 2 (version 1 calibrations carry a fitted flat II per kernel; ") + kDerivedIi +
                 ")");
  }
  version.as_int(2, 2);
}

/// Reads the "provenance" object into c's tool, part, clocks, notes and inputs.
void read_provenance(const JsonView& prov, Calibration& c) {
  prov.allow_keys({"tool_version", "part", "target_clock_ns", "achievable_clock_ns", "notes", "arch", "device",
                   "model", "reports"});
  c.tool_version = prov.at("tool_version").as_string();
  c.part = prov.at("part").as_string();
  if (c.part.empty()) prov.at("part").fail("a non-empty part name");
  c.target_clock_ns = prov.at("target_clock_ns").as_double(0.1, 1000.0);
  if (auto a = prov.find("achievable_clock_ns")) c.achievable_clock_ns = a->as_double(c.target_clock_ns, 1000.0);
  if (auto n = prov.find("notes")) {
    for (const JsonView& e : n->as_array(0)) c.notes.push_back(e.as_string());
  }
  c.arch = prov.at("arch").as_string();
  c.device = prov.at("device").as_string();
  c.model = prov.at("model").as_string();
  c.reports = string_list(prov.at("reports"));
}

/// Reads loop `lname` (object `l`) of kernel `kernel` (specification `spec`) into r's
/// loops and depth adjustments.
void read_loop_fit(const JsonView& l, const std::string& lname, const std::string& kernel,
                   const ttsim_spec::KernelSpec& spec, KernelFitRecord& r) {
  std::string names;
  bool known = false;
  for (int i = 0; i < spec.n_loops; ++i) {
    names += (i ? ", " : "") + std::string(spec.loops[i].name);
    known = known || lname == spec.loops[i].name;
  }
  if (!known) l.fail("a loop of the " + kernel + " kernel (" + names + ")", "key \"" + lname + "\"");
  l.allow_keys({"depth_adjust", "samples", "model_ii", "model_depth", "report_ii", "report_depth",
                "max_abs_residual_cycles"});
  LoopFitRecord f;
  f.samples = static_cast<int>(l.at("samples").as_int(1, 1000000));
  f.model_ii = static_cast<int>(l.at("model_ii").as_int(1, 1000000));
  f.model_depth = static_cast<int>(l.at("model_depth").as_int(1, 1000000));
  // The calibrated depth (model depth + adjustment) is a pipeline depth: at least 1 cycle.
  r.params.depth_adjust[lname] =
      l.at("depth_adjust").as_double(1.0 - static_cast<double>(f.model_depth), 1e6);
  if (auto v = l.find("report_ii")) f.report_ii = static_cast<int>(v->as_int(1, 1000000));
  if (auto v = l.find("report_depth")) f.report_depth = v->as_double(0, 1e6);
  f.max_abs_residual_cycles = l.at("max_abs_residual_cycles").as_double(0, 1e18);
  r.loops[lname] = f;
}

/// Reads the fit of kernel `name` (object `k`) of TaskOp `op`.
KernelFitRecord read_kernel_fit(const JsonView& k, const std::string& name, TaskOp op) {
  if (auto ii = k.find("ii")) ii->fail(std::string("no \"ii\" key: ") + kDerivedIi, "key \"ii\"");
  k.allow_keys({"module", "lanes", "overhead", "samples", "max_abs_residual_cycles", "reports", "loops"});
  KernelFitRecord r;
  r.module = k.at("module").as_string();
  r.lanes = static_cast<int>(k.at("lanes").as_int(1, 4096));
  r.params.overhead = k.at("overhead").as_double(0, 1e9);  // cycles per invocation: never negative
  r.samples = static_cast<int>(k.at("samples").as_int(1, 1000000));
  r.max_abs_residual_cycles = k.at("max_abs_residual_cycles").as_double(0, 1e18);
  r.reports = string_list(k.at("reports"));
  const JsonView loops = k.at("loops");
  if (!loops.is_object()) loops.fail("object of loop classes by kernel_spec.h loop name");
  const ttsim_spec::KernelSpec& spec = kernel_spec(op);
  for (const auto& [lname, lvalue] : loops.raw().items()) read_loop_fit(loops.at(lname), lname, name, spec, r);
  return r;
}

/// Reads the "power" object: the fitted coefficients present and the reports.
PowerFitRecord read_power_fit(const JsonView& p) {
  std::vector<std::string> allowed = {"reports"};
  for (const PowerKey& k : kPowerKeys) allowed.push_back(k.name);
  p.allow_keys(allowed);
  PowerFitRecord f;
  for (const PowerKey& k : kPowerKeys) {
    if (auto v = p.find(k.name)) f.*k.fit = v->as_double(0, 1e6);
  }
  f.reports = string_list(p.at("reports"));
  return f;
}

}  // namespace

Calibration parse_calibration(const Json& doc, const std::string& file) {
  const JsonView root(doc, file);
  root.allow_keys({"format", "version", "provenance", "kernels", "op_latency", "power"});
  check_format_version(root);
  Calibration c;
  c.file = file;
  read_provenance(root.at("provenance"), c);
  const JsonView kernels = root.at("kernels");
  if (!kernels.is_object()) kernels.fail("object of kernels by TaskOp name");
  for (const auto& [name, value] : kernels.raw().items()) {
    const JsonView k = kernels.at(name);
    const auto op = task_op_from_string(name);
    if (!op) k.fail("a TaskOp name (contraction, softmax, softmax_grad, layernorm, layernorm_grad, "
                    "gelu, gelu_grad, add, loss, sgd_update)", "key \"" + name + "\"");
    c.kernels[*op] = read_kernel_fit(k, name, *op);
  }
  const JsonView ops = root.at("op_latency");
  if (!ops.is_object()) ops.fail("object operator → cycles");
  for (const auto& [name, value] : ops.raw().items()) {
    if (!is_float_operator(name)) {
      ops.fail("a floating-point operator of the kernel specification (" + float_operator_names() + ")",
               "key \"" + name + "\"");
    }
    c.op_latency[name] = static_cast<int>(ops.at(name).as_int(0, 1000));
  }
  if (auto p = root.find("power")) c.power = read_power_fit(*p);
  return c;
}

Calibration load_calibration(const std::string& path) { return parse_calibration(load_json_file(path), path); }

void write_calibration(const std::string& path, const Calibration& c) {
  write_file_atomic(path, calibration_to_json(c).dump(2) + "\n");
}

void check_calibration_matches(const Calibration& c, const ArchSpec& arch, const DeviceSpec& device) {
  if (c.part != device.part) {
    throw InputError(fmt::format(
        "calibration {} was fitted for part {} but device {} ({}) is part {}; refusing to apply it "
        "(calibrate again from reports of this part)",
        c.file, c.part, device.name, device.source_file, device.part));
  }
  const double arch_ns = 1000.0 / arch.clock_mhz;
  if (std::fabs(arch_ns - c.target_clock_ns) > 0.01) {
    throw InputError(fmt::format(
        "calibration {} was fitted at a target clock of {} ns ({:.1f} MHz) but arch {} ({}) runs at "
        "{} MHz ({:.3f} ns); refusing to apply it (operator latencies, and so every derived II and depth, "
        "depend on the clock)",
        c.file, c.target_clock_ns, c.clock_mhz(), arch.name, arch.source_file, arch.clock_mhz, arch_ns));
  }
}

double calibrated_clock_mhz(const Calibration& c, double arch_mhz) {
  // Reports that missed timing: the design runs at the achievable clock, not the target.
  if (c.achievable_clock_ns && *c.achievable_clock_ns > 1000.0 / arch_mhz) return 1000.0 / *c.achievable_clock_ns;
  return arch_mhz;
}

void apply_calibration(const Calibration& c, ArchSpec& arch, DeviceSpec& device) {
  check_calibration_matches(c, arch, device);
  arch.calibration = std::make_shared<const KernelCalibration>(c.kernel_calibration());
  arch.clock_mhz = calibrated_clock_mhz(c, arch.clock_mhz);
  if (c.power) {
    std::string fitted;
    for (const PowerKey& k : kPowerKeys) {
      if ((*c.power).*k.fit) {
        device.power.*k.device = *((*c.power).*k.fit);
        fitted += (fitted.empty() ? "" : ", ") + std::string(k.name);
      }
    }
    if (!fitted.empty()) {
      device.power.source = "calibration " + c.file + " (" + fitted + " fitted from report_power); others: " +
                            device.power.source;
    }
  }
}

}  // namespace ttsim
