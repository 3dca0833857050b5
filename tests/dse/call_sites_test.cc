// The call sites the LUT estimate prices the top's argument multiplexers over
// (machine::KernelInstance::call_sites, from Task::site) are the call sites of the emitted top:
// each design below is emitted, its sources compiled with g++ without inlining and with the
// call-site probe (hls/include/call_site_probe.h, TTSIM_CALL_SITE_PROBE), so that the glue
// functions synthesis inlines are frames of their own, and its csim testbench run; the distinct
// call stacks of each module are the sites the top has once its glue is inlined. A glue loop
// the task graph does not fold (a per-encoder or per-token call counted once per iteration) or
// a call the graph does not know would make the two differ.

#include <cstdlib>
#include <functional>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "core/atomic_file.h"
#include "core/json_view.h"
#include "dse/emit/emit.h"
#include "dse/emit/hls_build.h"
#include "hw/arch_spec.h"
#include "hw/device_spec.h"
#include "machine/machine.h"
#include "models/model_spec.h"
#include "tests/testing/slurp.h"
#include "tests/testing/tmp_dir.h"

namespace ttsim {
namespace {

namespace fs = std::filesystem;
using dse::DesignProvenance;
using dse::EarlierFiles;
using dse::emit_hls_build;
using dse::HlsBuild;
using dse::make_hls_build;
using testing::slurp;

using ::ttsim::testing::tmp_dir;

/// The SRCS of an emitted build's Makefile ("SRCS = a.cc b.cc").
std::string makefile_sources(const std::string& build) {
  std::istringstream in(slurp(build + "/Makefile"));
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("SRCS = ", 0) == 0) return line.substr(7);
  }
  ADD_FAILURE() << build << "/Makefile has no SRCS line";
  return "";
}

/// Per module, the distinct call stacks the probed csim testbench of `build` records.
std::map<std::string, int> probed_call_sites(const std::string& build) {
  const std::string cmd = "cd '" + build +
                          "' && g++ -std=c++17 -O0 -fno-inline -fno-optimize-sibling-calls -DTTSIM_CALL_SITE_PROBE "
                          "-I. " +
                          makefile_sources(build) + " hls/tb/csim_tb.cc -o probe_tb > probe.log 2>&1 && ./probe_tb > "
                          "probe_out.txt 2> probe_sites.txt";
  EXPECT_EQ(std::system(cmd.c_str()), 0) << slurp(build + "/probe.log") << slurp(build + "/probe_sites.txt");
  std::map<std::string, int> sites;
  const std::string text = slurp(build + "/probe_sites.txt");
  const std::regex line(R"(call_sites (\S+) (\d+) (\d+))");
  for (std::sregex_iterator it(text.begin(), text.end(), line), end; it != end; ++it) {
    sites[(*it)[1].str()] = std::stoi((*it)[2].str());
  }
  return sites;
}

/// How the machine's sites must compare with the emitted top's.
enum class Count {
  kExact,
  /// At least the top's: a model whose layers have more than three TT cores, whose glue loops
  /// over the cores (one site per parity branch for every core) while the task graph names each
  /// core's step apart — the estimate counts more sites than the top has, never fewer.
  kAtLeast,
};

/// Emits (model, arch) for the U50 with its LUTs, DSPs and memory blocks raised tenfold (the call sites do not
/// depend on the device; a design over the U50's LUTs is still a build to count), compiles it
/// with the probe and compares each module's sites with the machine's.
void expect_sites_as_described(const std::string& model_file, const std::string& arch_file,
                               Count count = Count::kExact) {
  SCOPED_TRACE(model_file + " on " + arch_file);
  DeviceSpec device = load_device_spec("configs/devices/u50.json");
  device.lut *= 10;
  device.dsp *= 10;
  device.bram36 *= 10;
  device.uram288 *= 10;
  const std::string dir = tmp_dir("call_sites_" + fs::path(model_file).stem().string() + "_" +
                                  fs::path(arch_file).stem().string());
  DesignProvenance about;
  about.source = arch_file;
  const HlsBuild build =
      make_hls_build(load_model_spec(model_file), load_arch_spec(arch_file), device, about, ".");
  const std::string out = dir + "/build";
  emit_hls_build(build, out, EarlierFiles::kRefuse);
  const std::map<std::string, int> probed = probed_call_sites(out);
  int modules = 0;
  for (const machine::KernelInstance& k : build.design.machine.instances) {
    if (k.calls == 0) {
      EXPECT_EQ(probed.count(k.module), 0u) << k.module << " is called in C simulation, not in the machine";
      continue;
    }
    ++modules;
    ASSERT_TRUE(probed.count(k.module)) << k.module << " is never called in C simulation";
    if (count == Count::kExact) {
      EXPECT_EQ(k.call_sites, probed.at(k.module)) << k.module << ": machine call sites vs the emitted top's";
    } else {
      EXPECT_GE(k.call_sites, probed.at(k.module)) << k.module << ": machine call sites vs the emitted top's";
    }
  }
  EXPECT_EQ(modules, static_cast<int>(probed.size()));
}

TEST(CallSites, BttDesignAsEmitted) { expect_sites_as_described("configs/models/atis_2enc.json", "configs/arch/u50_paper.json"); }

// Four encoders: the top's encoder loop is one call site for every encoder.
TEST(CallSites, EncodersShareTheirSites) {
  expect_sites_as_described("configs/models/atis_4enc.json", "configs/arch/u50_paper.json");
}

// Accumulating products by add: the TTM core gradient's per-token calls are one site each.
TEST(CallSites, ByAddTokenLoopIsOneSite) {
  expect_sites_as_described("configs/models/atis_2enc.json", "configs/arch/u50_unit_lanes.json");
}

TEST(CallSites, SequentialTtDesignAsEmitted) {
  expect_sites_as_described("configs/models/atis_2enc.json", "configs/arch/u50_tt_sequential.json");
}

// Recomputation: a second encoder_forward call site, and the merges made again.
TEST(CallSites, RecomputingDesignsAsEmitted) {
  expect_sites_as_described("configs/models/atis_2enc.json", "configs/arch/u50_paper_recompute.json");
  expect_sites_as_described("configs/models/atis_2enc.json", "configs/arch/u50_paper_recompute_encoders.json");
  expect_sites_as_described("configs/models/atis_2enc.json",
                            "configs/arch/u50_paper_recompute_encoders_btt_merges.json");
}

/// A copy of configs/models/atis_2enc.json with `edit` applied, written to the test's folder.
std::string edited_model(const std::string& name, const std::function<void(Json&)>& edit) {
  Json m = load_json_file("configs/models/atis_2enc.json");
  m["name"] = name;
  edit(m);
  const std::string dir = tmp_dir("model_" + name);
  write_file_atomic(dir + "/" + name + ".json", m.dump(1));
  return dir + "/" + name + ".json";
}

// Per-layer ranks that put one encoder's query layer in each form of the BTT right end (a
// transposed copy of G_{d+e-1}, or the product computed transposed and copied back): two call
// sites of the glue under one step name, told apart by the arrays they bind.
TEST(CallSites, EncodersInDifferentBranchesAreDifferentSites) {
  const std::string model = edited_model("rank_overrides", [](Json& m) {
    for (const char* kind : {"attention", "ffn_in", "ffn_out"}) m["layers"][kind]["out_factors"] = {4, 4, 48};
    Json q = m["layers"]["attention"];
    q["rank"] = 8;
    m["overrides"]["enc0.q"] = q;
    q["rank"] = 16;
    m["overrides"]["enc1.q"] = q;
  });
  expect_sites_as_described(model, "configs/arch/u50_paper.json");
}

// Five TT cores per layer: the glue's core loops fold steps the graph names apart.
TEST(CallSites, MoreCoresCountAtLeastTheTopsSites) {
  const std::string model = edited_model("five_cores", [](Json& m) {
    for (const char* kind : {"attention", "ffn_in", "ffn_out"}) {
      m["layers"][kind]["in_factors"] = {4, 4, 4, 4, 3};
      m["layers"][kind]["out_factors"] = {3, 4, 4, 4, 4};
    }
  });
  expect_sites_as_described(model, "configs/arch/u50_paper.json", Count::kAtLeast);
  expect_sites_as_described(model, "configs/arch/u50_tt_sequential.json", Count::kAtLeast);
}

}  // namespace
}  // namespace ttsim
