#include "dse/emit/hls_build.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <utility>

#include <fmt/format.h>

#include "core/errors.h"

namespace ttsim::dse {

namespace fs = std::filesystem;

const char* const kCsimTestbench = "tb/csim_tb.cc";
const char* const kReferenceTestbench = "tb/reference_tb.cc";

namespace {

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) throw InputError(p.string() + ": cannot read");
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/// The copied sources of hls/<sub> (kernels, include): *.h and *.cc but the rendered
/// design_config.h and design_layout.h and the test helper spec_check.*, sorted, as paths
/// under the build.
std::vector<fs::path> copied_sources(const fs::path& src, const char* sub) {
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(src / "hls" / sub)) {
    const std::string name = e.path().filename().string();
    const auto ext = e.path().extension();
    if ((ext != ".h" && ext != ".cc") || name == "design_config.h" || name == "design_layout.h" ||
        name.rfind("spec_check.", 0) == 0) {
      continue;
    }
    files.push_back(fs::path("hls") / sub / name);
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace

std::vector<std::string> hls_sources(const std::string& hls_root) {
  const fs::path hls = fs::path(hls_root) / "hls";
  if (!fs::is_directory(hls / "kernels")) throw InputError((hls / "kernels").string() + ": not found");
  std::vector<std::string> out;
  for (const char* sub : {"kernels", "include"}) {
    std::vector<std::string> names;
    if (!fs::is_directory(hls / sub)) continue;
    for (const auto& e : fs::directory_iterator(hls / sub)) {
      const std::string name = e.path().filename().string();
      if (e.path().extension() != ".cc" || name.rfind("spec_check.", 0) == 0) continue;
      names.push_back(name);
    }
    std::sort(names.begin(), names.end());
    for (const auto& n : names) out.push_back(std::string(sub) + "/" + n);
  }
  return out;
}

KernelTree read_kernel_tree(const std::string& hls_root) {
  KernelTree t;
  t.root = hls_root;
  t.sources = hls_sources(hls_root);
  const fs::path src(hls_root);
  auto copy = [&](const fs::path& rel) { t.copies.push_back({rel.string(), slurp(src / rel)}); };
  for (const char* sub : {"kernels", "include"}) {
    for (const auto& f : copied_sources(src, sub)) copy(f);
  }
  copy(fs::path("hls") / kCsimTestbench);
  copy(fs::path("hls") / kReferenceTestbench);
  return t;
}

std::string find_hls_root(const std::string& given) {
  const fs::path top = "hls/kernels/top.cc";
  if (!given.empty()) {
    if (fs::exists(fs::path(given) / top)) return given;
    throw InputError("--hls-root " + given + ": " + (fs::path(given) / top).string() +
                     " not found; give the ttsim checkout folder");
  }
  if (fs::exists(top)) return ".";
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    for (fs::path dir = exe.parent_path(); !dir.empty(); dir = dir.parent_path()) {
      if (fs::exists(dir / top)) return dir.string();
      if (dir == dir.parent_path()) break;
    }
  }
  throw InputError(top.string() + ": HLS kernel sources not found in the working directory nor "
                   "above the ttsim binary (" + (ec ? std::string("unknown") : exe.string()) +
                   "); run from the ttsim checkout or pass --hls-root DIR");
}

HlsBuild make_hls_build(ModelSpec model, ArchSpec arch, DeviceSpec device, DesignProvenance about,
                        const std::string& hls_root, const machine::Machine* described) {
  HlsBuild b;
  b.design = make_build_design(std::move(model), std::move(arch), std::move(device), about.label, about.source,
                               described, about.resource_headroom_pct);
  b.design.sweep_point = about.sweep_point;
  b.kernels = read_kernel_tree(hls_root);
  b.provenance = std::move(about);
  return b;
}

}  // namespace ttsim::dse
