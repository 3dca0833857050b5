// ttsim emit: the generated design_config.h matches the tree's layout arithmetic, the
// emitted folder builds on its own with g++ and its C simulation passes.
#include "dse/emit.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "core/errors.h"

namespace ttsim::dse {
namespace {

namespace fs = std::filesystem;

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

Json reference_design() {
  return Json{{"configs",
               {{"model", load_json_file("configs/models/atis_2enc.json")},
                {"arch", load_json_file("configs/arch/u50_paper.json")}}},
              {"device", {{"part", "xcu50-fsvh2104-2-e"}, {"platform", "xilinx_u50_gen3x16_xdma_5_202210_1"}}},
              {"why", "test"}};
}

TEST(Emit, HeaderCarriesTheDesignAndTheTreesCapacities) {
  const std::string h = design_config_header(reference_design()["configs"], "chosen.json");
  // Capacities of the 2-encoder rank-12 model, as in the tree's own design_config.h.
  EXPECT_NE(h.find("constexpr int kParamWords = 301281;"), std::string::npos) << h;
  EXPECT_NE(h.find("constexpr int kAttnRanks[kAttnD + kAttnE + 1] = {1, 12, 12, 12, 12, 12, 1};"),
            std::string::npos);
  EXPECT_NE(h.find("constexpr int kContractLanes = 64;"), std::string::npos);  // u50_paper lanes
  EXPECT_NE(h.find("constexpr bool kUseBtt = true;"), std::string::npos);
  Json rank8 = reference_design()["configs"];
  for (const char* k : {"attention", "ffn_in", "ffn_out"}) rank8["model"]["layers"][k]["rank"] = 8;
  const std::string h8 = design_config_header(rank8, "chosen.json");
  EXPECT_NE(h8.find("{1, 8, 8, 8, 8, 8, 1}"), std::string::npos);
  EXPECT_EQ(h8.find("kParamWords = 301281;"), std::string::npos);
}

TEST(Emit, RejectsDesignsTheTreeCannotExpress) {
  Json mm = reference_design()["configs"];
  mm["arch"]["flows"]["attention"] = "mm";
  EXPECT_THROW(design_config_header(mm, "chosen.json"), InputError);
  EXPECT_THROW(emit_design(Json{{"why", "no feasible design"}}, "chosen.json", "/tmp/x"), InputError);
}

// The pointer of the ConfigError emit_design raises for `chosen`, or "no error".
std::string error_pointer(const Json& chosen) {
  const char* t = std::getenv("TEST_TMPDIR");
  const std::string out = std::string(t ? t : "/tmp") + "/emit_bad";
  try {
    emit_design(chosen, "chosen.json", out, ".");
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.file(), "chosen.json");
    return e.pointer();
  }
  return "no error";
}

TEST(Emit, WrongTypesInChosenJsonAreConfigErrorsAtTheirPointer) {
  Json d = reference_design();
  d["device"]["part"] = 5;
  EXPECT_EQ(error_pointer(d), "/device/part");
  d = reference_design();
  d["device"] = "u50";
  EXPECT_EQ(error_pointer(d), "/device");
  d = reference_design();
  d["device"]["platform"] = nullptr;
  EXPECT_EQ(error_pointer(d), "/device/platform");
  d = reference_design();
  d["why"] = 3;
  EXPECT_EQ(error_pointer(d), "/why");
  d = reference_design();
  d["metrics"] = Json::array({1, 2});
  EXPECT_EQ(error_pointer(d), "/metrics");
  d = reference_design();
  d["configs"] = "x";
  EXPECT_EQ(error_pointer(d), "/configs");
}

TEST(Emit, NamesWrittenIntoBuildFilesAreRestrictedToASafeCharacterSet) {
  Json d = reference_design();
  d["configs"]["model"]["name"] = "x]\nexec touch /tmp/PWNED\n#";
  EXPECT_EQ(error_pointer(d), "/configs/model/name");
  d = reference_design();
  d["device"]["part"] = "xcu50}; exec rm";
  EXPECT_EQ(error_pointer(d), "/device/part");
  d = reference_design();
  d["device"]["platform"] = "a b";
  EXPECT_EQ(error_pointer(d), "/device/platform");
  d = reference_design();
  d["name"] = "ok-name\n*/ #error";
  EXPECT_EQ(error_pointer(d), "/name");
  d = reference_design();
  d["configs"]["arch"]["name"] = "";
  EXPECT_EQ(error_pointer(d), "/configs/arch/name");
  d = reference_design();
  d["name"] = "atis_2enc-r4-btt-96lanes-grouped+v1.2";  // the safe set is accepted
  EXPECT_EQ(error_pointer(d), "no error");
}

TEST(Emit, EmittedFolderBuildsAndPassesCSimulation) {
  const char* t = std::getenv("TEST_TMPDIR");
  const std::string out = std::string(t ? t : "/tmp") + "/emit_build";
  fs::remove_all(out);
  emit_design(reference_design(), "chosen.json", out, ".");
  for (const char* f : {"hls/include/design_config.h", "hls/kernels/top.cc", "hls/tb/csim_tb.cc",
                        "run_hls.tcl", "hls_config.cfg", "link.cfg", "Makefile", "README.md"}) {
    EXPECT_TRUE(fs::exists(out + "/" + f)) << f;
  }
  const std::string tcl = slurp(out + "/run_hls.tcl");
  EXPECT_NE(tcl.find("set_part {xcu50-fsvh2104-2-e}"), std::string::npos);
  EXPECT_NE(tcl.find("create_clock -period 10.000"), std::string::npos);
  EXPECT_NE(tcl.find("set_top ttsim_train_step"), std::string::npos);
  EXPECT_NE(slurp(out + "/link.cfg").find("platform=xilinx_u50_gen3x16_xdma_5_202210_1"), std::string::npos);
  // The folder builds on its own (only its own files on the include path) and the
  // testbench's training steps pass.
  const std::string cmd = "make -s -C '" + out + "' csim CXXFLAGS='-std=c++17 -O1' > '" + out +
                          "/csim.log' 2>&1";
  const int rc = std::system(cmd.c_str());
  EXPECT_EQ(rc, 0) << slurp(out + "/csim.log");
}

TEST(Emit, FindHlsRootChecksTheTreeBeforeAnyWork) {
  // The test runs in the runfiles tree, which holds hls/kernels/top.cc.
  EXPECT_EQ(find_hls_root(""), ".");
  EXPECT_EQ(find_hls_root("."), ".");
  const char* t = std::getenv("TEST_TMPDIR");
  const std::string empty = (fs::path(t ? t : "/tmp") / "no_hls_tree").string();
  fs::create_directories(empty);
  try {
    find_hls_root(empty);
    ADD_FAILURE() << "a folder without hls/kernels/top.cc was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("--hls-root " + empty), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace ttsim::dse
