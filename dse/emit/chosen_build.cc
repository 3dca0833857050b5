// hls_build_from_chosen: the build description of a chosen.json (dse/emit/hls_build.h).

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <optional>
#include <utility>

#include <fmt/format.h>

#include "core/errors.h"
#include "dse/emit/hls_build.h"
#include "dse/space/metrics.h"

namespace ttsim::dse {

namespace fs = std::filesystem;

namespace {

std::string emit_name(const JsonView& v) {
  const std::string name = v.as_string();
  check_emit_name(name, v.file(), v.pointer());
  return name;
}

/// The part and platform chosen.json's /device names (explore writes them; optional).
struct NamedDevice {
  std::optional<std::string> part, platform;
};

/// The root of chosen.json: an object with /configs, not the choice of an interrupted run.
void check_chosen_root(const JsonView& root) {
  if (!root.is_object()) root.fail("a chosen design object (chosen.json of an explore run)");
  // An interrupted run's choice is not a finished front's: finish the run (--resume) first
  // (said before the missing /configs such a chosen.json also has).
  if (auto i = root.find("interrupted"); i && i->as_bool()) {  // as_bool: a non-boolean is an error
    i->fail("a design chosen by a finished run (this chosen.json is from an interrupted explore: finish it with "
            "`ttsim explore <sweep> --out <folder> --resume`)",
            "\"interrupted\": true");
  }
  if (!root.has("configs")) root.fail("a chosen design with \"configs\" (no feasible design was chosen?)");
}

/// /name, /fidelity, /why, /resource_headroom_pct and /metrics of chosen.json; /device's part and platform into
/// `named`. Every member is read through JsonView: a wrong type is a ConfigError at its
/// pointer.
DesignProvenance read_provenance(const JsonView& root, const std::string& file, NamedDevice& named) {
  DesignProvenance about;
  about.source = file;
  if (auto n = root.find("name")) about.label = emit_name(*n);
  if (auto dev = root.find("device")) {
    if (!dev->is_object()) dev->fail("an object with \"part\" and \"platform\" strings");
    if (auto p = dev->find("part")) named.part = emit_name(*p);
    if (auto p = dev->find("platform")) named.platform = emit_name(*p);
  }
  if (auto v = root.find("values")) about.sweep_point = !v->raw().empty();
  if (auto f = root.find("fidelity")) {
    about.fidelity = f->as_string();
    if (about.fidelity != "analytic" && about.fidelity != "systemc") f->fail("\"analytic\" or \"systemc\"");
  }
  if (auto w = root.find("why")) about.why = w->as_string();
  if (auto h = root.find("resource_headroom_pct")) about.resource_headroom_pct = h->as_double(0, 99);
  std::optional<JsonView> metrics = root.find("metrics");
  if (metrics && !metrics->is_object()) metrics->fail("an object of metric name -> number or null");
  if (metrics) about.metrics = metrics->raw();
  return about;
}

/// The device of an older chosen.json (no /configs/device): configs/devices/u50.json of
/// the checkout `src` (else of the working folder) when /device/part is an xcu50 part,
/// said in `notes`; else InputError.
DeviceSpec fallback_device(const NamedDevice& named, const fs::path& src, const std::string& file,
                           std::vector<std::string>& notes) {
  const std::string why_not = file + ": no /configs/device (the resolved device config; "
                              "chosen.json of an older explore?)";
  if (!named.part) throw InputError(why_not + " and no /device/part; re-run ttsim explore");
  if (named.part->rfind("xcu50", 0) != 0) {
    throw InputError(why_not + " and /device/part \"" + *named.part +
                     "\" is not the U50's; re-run ttsim explore to record the device");
  }
  fs::path device_file = src / kDefaultDeviceFile;
  if (!fs::exists(device_file)) device_file = kDefaultDeviceFile;
  DeviceSpec device = load_device_spec(device_file.string());
  notes.push_back(why_not + ": part " + *named.part + " is the U50's, so the device is " + device_file.string());
  return device;
}

/// /configs/device (the resolved device config), which /device's part and platform must
/// agree with; or, for an older chosen.json, fallback_device.
DeviceSpec chosen_device(const JsonView& configs, const NamedDevice& named, const fs::path& src,
                         const std::string& file, std::vector<std::string>& notes) {
  std::optional<JsonView> cfg = configs.find("device");
  if (cfg && !cfg->is_object() && !cfg->raw().is_string()) {
    cfg->fail("the resolved device config (an object; an older chosen.json gives the device's name)");
  }
  if (!cfg || !cfg->is_object()) return fallback_device(named, src, file, notes);
  DeviceSpec device = parse_device_spec(cfg->raw(), file + " (/configs/device)");
  if (named.part && *named.part != device.part) {
    throw ConfigError(file, "/device/part", "the part of /configs/device (\"" + device.part + "\")",
                      Json(*named.part).dump());
  }
  if (named.platform && *named.platform != device.platform) {
    throw ConfigError(file, "/device/platform", "the platform of /configs/device (\"" + device.platform + "\")",
                      Json(*named.platform).dump());
  }
  return device;
}

/// chosen.json's /metrics are metric names (dse/space/metrics.h) with numbers >= 0 or null, and
/// those of the machine's own figures (DSP, BRAM36, URAM288, on-chip bytes, the LUT estimate,
/// the kernel clock) must be those of the machine its /configs describe: a /configs edited
/// after explore, or metrics from another design, would put figures into the build's README
/// that the build does not have. Throws ConfigError at the member's pointer.
void check_machine_metrics(const JsonView& root, const BuildDesign& d) {
  std::optional<JsonView> metrics = root.find("metrics");
  if (!metrics) return;
  if (!metrics->is_object()) metrics->fail("an object of metric name -> number or null");
  // Every member a metric ttsim writes, its value a number >= 0 or null (unavailable): the
  // build's README prints them as the design's predicted figures.
  for (const auto& [name, value] : metrics->raw().items()) {
    const JsonView v = metrics->at(name);
    if (!parse_metric(name)) v.fail(fmt::format("a metric name ({})", metric_names()), "\"" + name + "\"");
    if (!value.is_null()) v.as_double(0, 1e18);
  }
  const machine::Machine& m = d.machine;
  const std::pair<const char*, double> own[] = {{"dsp", static_cast<double>(m.dsp())},
                                                {"bram36", static_cast<double>(m.bram36())},
                                                {"uram288", static_cast<double>(m.uram288())},
                                                {"onchip_bytes", static_cast<double>(m.onchip_bytes())},
                                                {"lut", d.lut_estimate},
                                                {"kernel_clock_mhz", d.arch.clock_mhz}};
  for (const auto& [name, value] : own) {
    std::optional<JsonView> v = metrics->find(name);
    if (!v || v->raw().is_null()) continue;
    const double found = v->as_double(0, 1e18);
    // The LUT estimate is a sum of fractional terms: equal to its printed rounding.
    if (std::abs(found - value) > (std::string(name) == "lut" ? 0.5 : 0.0)) {
      v->fail(fmt::format("{} {} — the figure of the machine /configs describes (chosen.json's /configs were edited "
                          "after explore, its /metrics are another design's, or it was written by a ttsim whose "
                          "resource model differs: re-run ttsim explore)",
                          name, value),
              v->raw().dump());
    }
  }
}

}  // namespace

Json front_design_as_chosen(const Json& results, const std::string& file, std::int64_t id) {
  const JsonView root(results, file);
  if (!root.is_object() || !root.has("front")) root.fail("results.json of an explore run (an object with \"front\")");
  if (auto i = root.find("interrupted"); i && i->as_bool()) {
    i->fail("the results of a finished run (this one was interrupted: finish it with --resume)", "\"interrupted\": true");
  }
  const JsonView front = root.at("front");
  if (!front.raw().is_array()) front.fail("an array of front designs");
  for (std::size_t k = 0; k < front.raw().size(); ++k) {
    const JsonView entry = front.at(k);
    if (!entry.is_object() || !entry.has("id") || entry.at("id").as_int(0, std::numeric_limits<std::int64_t>::max()) != id) continue;
    Json chosen = entry.raw();
    if (auto sw = root.find("sweep")) chosen["sweep"] = sw->as_string();
    // The run's resolved device config (a front entry names its device only).
    if (auto dev = root.find("device")) {
      if (!dev->is_object()) dev->fail("the run's resolved device config (an object)");
      if (chosen.contains("configs") && chosen["configs"].is_object()) chosen["configs"]["device"] = dev->raw();
      chosen["device"] = {{"part", dev->at("part").as_string()}, {"platform", dev->at("platform").as_string()}};
    }
    const Json& doc = results.contains("sweep_doc") ? results["sweep_doc"] : Json();
    if (doc.is_object() && doc.contains("constraints") && doc["constraints"].is_object() &&
        doc["constraints"].contains("resource_headroom_pct")) {
      chosen["resource_headroom_pct"] = doc["constraints"]["resource_headroom_pct"];
    }
    chosen["why"] = fmt::format("front design {} of {}, picked with `ttsim emit --point {}`", id, file, id);
    return chosen;
  }
  throw ConfigError(file, "/front", fmt::format("the id of one of its {} front designs", front.raw().size()),
                    std::to_string(id));
}

HlsBuild hls_build_from_chosen(const Json& chosen, const std::string& chosen_file, const std::string& hls_root) {
  const JsonView root(chosen, chosen_file);
  check_chosen_root(root);
  NamedDevice named;
  DesignProvenance about = read_provenance(root, chosen_file, named);
  const JsonView configs = root.at("configs");
  if (!configs.is_object()) configs.fail("an object with \"model\", \"arch\" and \"device\"");
  ModelSpec model = parse_model_spec(configs.at("model").raw(), chosen_file + " (/configs/model)");
  ArchSpec arch = parse_arch_spec(configs.at("arch").raw(), chosen_file + " (/configs/arch)");
  const fs::path src = find_hls_root(hls_root);
  DeviceSpec device = chosen_device(configs, named, src, chosen_file, about.notes);
  HlsBuild b = make_hls_build(std::move(model), std::move(arch), std::move(device), std::move(about), src.string());
  check_machine_metrics(root, b.design);
  return b;
}

}  // namespace ttsim::dse
