#include "models/gpu/gpu_spec.h"

#include <algorithm>

namespace ttsim {

const std::vector<std::string>& gpu_constant_names() {
  static const std::vector<std::string> names = {
      "memory_bytes", "fp32_peak_tflops", "memory_bandwidth_gbs", "compute_efficiency",
      "bandwidth_efficiency", "kernel_floor_us", "forward_op_dispatch_us", "view_op_dispatch_us",
      "extra_kernel_launch_us", "backward_op_dispatch_us", "backward_view_dispatch_us",
      "backward_call_us", "sync_us", "module_call_us", "python_step_us", "h2d_copy_us",
      "foreach_tensor_us", "optimizer_tensor_us",
      "zero_grad_tensor_us", "foreach_max_tensors", "foreach_max_blocks", "foreach_chunk_elements",
      "p8_idle_watts", "p2_idle_watts", "p2_light_watts", "busy_watts",
      "allocator_min_block_bytes", "allocator_small_size_bytes", "allocator_small_segment_bytes",
      "allocator_large_segment_bytes", "allocator_min_large_alloc_bytes", "allocator_round_large_bytes",
      "cublas_workspace_bytes", "cuda_context_bytes"};
  return names;
}

GpuSpec GpuSpec::with(const std::string& key, double value) const {
  GpuSpec g = *this;
  g.constants.at(key).value = value;
  return g;
}

Json sourced_constants_json(const std::map<std::string, SourcedConstant>& constants) {
  Json c = Json::object();
  for (const auto& [k, v] : constants) {
    Json e = {{"value", v.value}, {"unit", v.unit}, {"kind", v.kind}, {"source", v.source}};
    if (v.has_range) e["range"] = {v.lo, v.hi};
    c[k] = e;
  }
  return c;
}

Json GpuSpec::to_json() const {
  return {{"kind", "gpu"}, {"name", name}, {"file", source_file}, {"constants", sourced_constants_json(constants)}};
}

std::map<std::string, SourcedConstant> parse_sourced_constants(const JsonView& cs,
                                                               const std::vector<std::string>& names) {
  if (!cs.is_object()) cs.fail("an object of named constants");
  cs.allow_keys(names);
  std::map<std::string, SourcedConstant> out;
  for (const auto& name : names) {
    const JsonView e = cs.at(name);
    if (!e.is_object()) e.fail("an object {\"value\", \"unit\", \"kind\", \"source\"[, \"range\"]}");
    e.allow_keys({"value", "unit", "kind", "source", "range"});
    SourcedConstant c;
    c.value = e.at("value").as_double(0, 1e15);
    c.unit = e.at("unit").as_string();
    c.kind = e.at("kind").as_enum({"M", "S", "D", "E", "source-code", "assumption"});
    c.source = e.at("source").as_string();
    if (c.source.empty()) e.at("source").fail("a non-empty source (or \"assumption: why\")");
    c.lo = c.hi = c.value;
    if (auto r = e.find("range")) {
      const auto ends = r->as_array(2);
      if (ends.size() != 2) r->fail("[lo, hi], two numbers");
      c.lo = ends[0].as_double(0, 1e15);
      c.hi = ends[1].as_double(0, 1e15);
      if (!(c.lo <= c.value && c.value <= c.hi)) {
        r->fail("[lo, hi] with lo <= value (" + describe_json(e.at("value").raw()) + ") <= hi", r->raw().dump());
      }
      c.has_range = true;
    }
    out[name] = c;
  }
  return out;
}

GpuSpec parse_gpu_spec(const Json& doc, const std::string& file) {
  JsonView root(doc, file);
  if (!root.is_object()) root.fail("a JSON object with \"kind\": \"gpu\"");
  root.allow_keys({"kind", "name", "description", "constants"});
  root.at("kind").as_enum({"gpu"});
  GpuSpec g;
  g.source_file = file;
  g.name = root.at("name").as_string();
  if (auto d = root.find("description")) d->as_string();
  const JsonView cs = root.at("constants");
  g.constants = parse_sourced_constants(cs, gpu_constant_names());
  if (g.at("memory_bytes") <= 0) cs.at("memory_bytes").at("value").fail("a positive number of bytes");
  for (const char* k : {"fp32_peak_tflops", "memory_bandwidth_gbs", "compute_efficiency", "bandwidth_efficiency",
                        "foreach_max_tensors", "foreach_max_blocks", "foreach_chunk_elements",
                        "allocator_min_block_bytes", "allocator_small_segment_bytes",
                        "allocator_large_segment_bytes", "allocator_round_large_bytes"}) {
    if (!(g.at(k) > 0)) cs.at(k).at("value").fail("a positive number");
  }
  for (const char* k : {"compute_efficiency", "bandwidth_efficiency"}) {
    if (g.at(k) > 1) cs.at(k).at("value").fail("a fraction in (0, 1]");
  }
  if (!(g.at("p2_idle_watts") <= g.at("p2_light_watts") && g.at("p2_light_watts") <= g.at("busy_watts"))) {
    cs.at("p2_light_watts").at("value").fail("p2_idle_watts <= p2_light_watts <= busy_watts (the P-state powers in order)");
  }
  return g;
}

GpuSpec load_gpu_spec(const std::string& path) { return parse_gpu_spec(load_json_file(path), path); }

}  // namespace ttsim
