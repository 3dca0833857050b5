// ttsim emit: the rendered design_config.h carries the design, refusals (designs the tree
// cannot express, check_buildable, beyond the device) are input errors, the device comes
// from /configs/device (or the U50 fallback for an older chosen.json), and the emitted
// folder builds on its own with g++ and its C simulation passes.
#include "tests/testing/slurp.h"
#include "dse/emit/emit.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "core/atomic_file.h"
#include "core/errors.h"

namespace ttsim::dse {
namespace {

namespace fs = std::filesystem;

using ttsim::testing::slurp;

Json reference_design() {
  const Json device = load_json_file("configs/devices/u50.json");
  return Json{{"configs",
               {{"model", load_json_file("configs/models/atis_2enc.json")},
                {"arch", load_json_file("configs/arch/u50_paper.json")},
                {"device", device}}},
              {"device", {{"part", "xcu50-fsvh2104-2-e"}, {"platform", "xilinx_u50_gen3x16_xdma_5_202210_1"}}},
              {"why", "test"}};
}

std::string tmp(const std::string& name) {
  const char* t = std::getenv("TEST_TMPDIR");
  const std::string out = std::string(t ? t : "/tmp") + "/" + name;
  fs::remove_all(out);
  return out;
}

/// The design_config.h emit_design writes for `chosen`.
std::string emitted_header(const Json& chosen) {
  const std::string out = tmp("emit_header");
  emit_design(chosen, "chosen.json", out, ".");
  return slurp(out + "/hls/include/design_config.h");
}

TEST(Emit, HeaderCarriesTheDesignAndTheTreesCapacities) {
  const std::string h = emitted_header(reference_design());
  // Capacities of the 2-encoder rank-12 model, as in the tree's own design_config.h: its
  // 301,281 parameters and 30 words of update-group alignment padding.
  EXPECT_NE(h.find("constexpr int kParamWords = 301311;"), std::string::npos) << h;
  EXPECT_NE(h.find("#define TTSIM_PARAM_WORDS 301311"), std::string::npos) << h;
  EXPECT_NE(h.find("constexpr bool kSoftmaxAligned = true;"), std::string::npos) << h;
  EXPECT_NE(h.find("constexpr bool kLayerNormAligned = true;"), std::string::npos) << h;
  EXPECT_NE(h.find("constexpr bool kGeluAligned = true;"), std::string::npos) << h;
  EXPECT_NE(h.find("constexpr bool kLossAligned = true;"), std::string::npos) << h;
  EXPECT_NE(h.find("constexpr bool kSgdAligned = true;"), std::string::npos) << h;
  EXPECT_NE(h.find("{1, 12, 12, 12, 12, 12, 1, 0, 0, 0, 0, 0, 0},  // enc1.ffn_out"), std::string::npos) << h;
  EXPECT_NE(h.find("#define TTSIM_MAX_ENCODERS 2\n"), std::string::npos) << h;
  EXPECT_NE(h.find("constexpr int kContractLanes = 64;"), std::string::npos);  // u50_paper lanes
  EXPECT_NE(h.find("constexpr bool kUseBtt = true;"), std::string::npos);
  EXPECT_NE(h.find("#define TTSIM_INSTANCES_TTSIM_CONTRACTION 1"), std::string::npos);
  Json rank8 = reference_design();
  for (const char* k : {"attention", "ffn_in", "ffn_out"}) rank8["configs"]["model"]["layers"][k]["rank"] = 8;
  const std::string h8 = emitted_header(rank8);
  EXPECT_NE(h8.find("{1, 8, 8, 8, 8, 8, 1, 0, 0, 0, 0, 0, 0},  // enc0.q"), std::string::npos);
  EXPECT_EQ(h8.find("kParamWords = 301281;"), std::string::npos);
}

TEST(Emit, RejectsDesignsTheTreeCannotExpress) {
  const std::string out = tmp("emit_rejected");
  Json mm = reference_design();
  mm["configs"]["arch"]["flows"]["attention"] = "mm";
  EXPECT_THROW(emit_design(mm, "chosen.json", out, "."), InputError);
  EXPECT_THROW(emit_design(Json{{"why", "no feasible design"}}, "chosen.json", out, "."), InputError);
  EXPECT_FALSE(fs::exists(out + "/hls/include/design_config.h"));
}

TEST(Emit, RefusesWhatCheckBuildableRefusesWithItsConfigError) {
  Json d = reference_design();
  d["configs"]["arch"]["contraction"]["engines"] = 2;
  try {
    emit_design(d, "chosen.json", tmp("emit_engines"), ".");
    ADD_FAILURE() << "two contraction engines were emitted";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.pointer(), "/contraction/engines") << e.what();
    EXPECT_NE(e.file().find("chosen.json"), std::string::npos) << e.what();
  }
}

TEST(Emit, RefusesTheChoiceOfAnInterruptedRun) {
  Json d = reference_design();
  d["interrupted"] = true;
  const std::string out = tmp("emit_interrupted");
  try {
    emit_design(d, "chosen.json", out, ".");
    ADD_FAILURE() << "an interrupted run's chosen design was emitted";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.pointer(), "/interrupted") << e.what();
    EXPECT_NE(std::string(e.what()).find("--resume"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(std::filesystem::exists(out + "/hls")) << "nothing is written";
  d["interrupted"] = false;  // a finished run's flag (or none) emits
  EXPECT_NO_THROW(emit_design(d, "chosen.json", tmp("emit_finished"), "."));
}

// Any front design of a run's results.json emits (`emit --point ID`): its entry names its
// device, the run's resolved device fills /configs/device; its headroom is the sweep's; an
// id the front does not hold and an interrupted run's results are ConfigErrors.
TEST(Emit, AFrontDesignOfResultsJsonEmitsByItsId) {
  Json entry = reference_design();
  const Json device = entry["configs"]["device"];
  entry.erase("device");
  entry.erase("why");
  entry["configs"]["device"] = "u50";
  entry["id"] = 7;
  entry["name"] = "front_seven";
  Json other = entry;
  other["id"] = 9;
  const Json results = {{"sweep", "toy"}, {"device", device},
                        {"sweep_doc", {{"constraints", {{"resource_headroom_pct", 90}}}}},
                        {"front", Json::array({other, entry})}};
  const Json chosen = front_design_as_chosen(results, "results.json", 7);
  EXPECT_EQ(chosen["name"], "front_seven");
  EXPECT_EQ(chosen["configs"]["device"], device);
  EXPECT_EQ(chosen["device"]["part"], "xcu50-fsvh2104-2-e");
  EXPECT_NE(chosen["why"].get<std::string>().find("front design 7 of results.json"), std::string::npos);
  // The sweep's 90 % headroom applies: the reference design is over 10 % of the U50.
  EXPECT_THROW(emit_design(chosen, "results.json", tmp("emit_front_headroom"), "."), InputError);
  Json roomy = results;
  roomy["sweep_doc"]["constraints"]["resource_headroom_pct"] = 5;
  const std::string out = tmp("emit_front");
  emit_design(front_design_as_chosen(roomy, "results.json", 7), "results.json", out, ".");
  EXPECT_NE(slurp(out + "/README.md").find("# HLS build of design `front_seven`"), std::string::npos);
  try {
    front_design_as_chosen(results, "results.json", 8);
    ADD_FAILURE() << "id 8 is on no front";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.pointer(), "/front") << e.what();
    EXPECT_NE(std::string(e.what()).find("one of its 2 front designs"), std::string::npos) << e.what();
  }
  Json cut = results;
  cut["interrupted"] = true;
  EXPECT_THROW(front_design_as_chosen(cut, "results.json", 7), ConfigError);
}

TEST(Emit, RefusesAMachineBeyondTheDeviceNamingTheResource) {
  Json d = reference_design();
  d["configs"]["arch"]["contraction"]["lanes"] = 512;
  try {
    emit_design(d, "chosen.json", tmp("emit_over"), ".");
    ADD_FAILURE() << "a 512-lane contraction engine was emitted";
  } catch (const InputError& e) {
    EXPECT_EQ(dynamic_cast<const ConfigError*>(&e), nullptr) << e.what();
    EXPECT_NE(std::string(e.what()).find("DSP "), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(" usable ("), std::string::npos) << e.what();
    // The one fit rule: the LUT estimate is part of it.
    EXPECT_NE(std::string(e.what()).find("LUT "), std::string::npos) << e.what();
  }
}

// emit applies the fit rule with the headroom the design was chosen under (chosen.json
// /resource_headroom_pct, the sweep's): the reference design fits with 5 %, not with 90 %.
TEST(Emit, FitsWithTheHeadroomTheDesignWasChosenUnder) {
  Json d = reference_design();
  d["resource_headroom_pct"] = 90;
  try {
    emit_design(d, "chosen.json", tmp("emit_headroom"), ".");
    ADD_FAILURE() << "a design over 10 % of the device was emitted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("90 % headroom"), std::string::npos) << e.what();
  }
  d["resource_headroom_pct"] = "five";
  EXPECT_THROW(emit_design(d, "chosen.json", tmp("emit_headroom_type"), "."), ConfigError);
}

TEST(Emit, OlderChosenJsonFallsBackToTheU50OnlyForAnXcu50Part) {
  Json old = reference_design();
  old["configs"]["device"] = "u50";  // what explore wrote before configs.device
  const EmitReport r = emit_design(old, "chosen.json", tmp("emit_old"), ".");
  ASSERT_EQ(r.notes.size(), 1u);
  EXPECT_NE(r.notes[0].find("configs/devices/u50.json"), std::string::npos) << r.notes[0];
  const std::string out = tmp("emit_old2");
  old["configs"].erase("device");
  EXPECT_EQ(emit_design(old, "chosen.json", out, ".").notes.size(), 1u);
  EXPECT_NE(slurp(out + "/README.md").find("configs/devices/u50.json"), std::string::npos);
  Json other = old;
  other["device"]["part"] = "xcvu9p-flga2104-2-e";
  EXPECT_THROW(emit_design(other, "chosen.json", tmp("emit_other"), "."), InputError);
  other["device"].erase("part");
  EXPECT_THROW(emit_design(other, "chosen.json", tmp("emit_other"), "."), InputError);
  // With /configs/device the top-level part must agree with it.
  Json mismatch = reference_design();
  mismatch["device"]["part"] = "xcu280-fsvh2892-2L-e";
  try {
    emit_design(mismatch, "chosen.json", tmp("emit_mismatch"), ".");
    ADD_FAILURE() << "a /device/part other than /configs/device's was accepted";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.pointer(), "/device/part");
  }
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
  // Metrics of the machine itself that are not those of the machine /configs describe.
  d = reference_design();
  d["metrics"] = {{"dsp", 1234}};
  EXPECT_EQ(error_pointer(d), "/metrics/dsp");
  d = reference_design();
  d["metrics"] = {{"uram288", 1}, {"dsp", nullptr}};
  EXPECT_EQ(error_pointer(d), "/metrics/uram288");
  d = reference_design();
  d["configs"]["device"] = 7;  // neither the device config nor an older chosen.json's name
  EXPECT_EQ(error_pointer(d), "/configs/device");
  // A clock edited in /configs after explore: the metrics' kernel clock is another design's.
  d = reference_design();
  d["metrics"] = {{"kernel_clock_mhz", 100}};
  EXPECT_EQ(error_pointer(d), "no error");
  d["configs"]["arch"]["clock_mhz"] = 120;
  EXPECT_EQ(error_pointer(d), "/metrics/kernel_clock_mhz");
  // A recomputation switched on in /configs keeps DSP, BRAM36 and URAM288 but not the LUT
  // estimate (more call sites) or the on-chip bytes: the metrics are another design's.
  d = reference_design();
  d["metrics"] = {{"lut", 554122}, {"onchip_bytes", 5800700}};
  EXPECT_EQ(error_pointer(d), "no error");
  d["configs"]["arch"]["memory"]["recompute"] = "btt_merges";
  EXPECT_EQ(error_pointer(d), "/metrics/onchip_bytes");
  d["metrics"].erase("onchip_bytes");
  EXPECT_EQ(error_pointer(d), "/metrics/lut");
  // Metrics the build's README would print as they are: names ttsim writes, numbers >= 0.
  d = reference_design();
  d["metrics"] = {{"bogus", 1}};
  EXPECT_EQ(error_pointer(d), "/metrics/bogus");
  d["metrics"] = {{"step_cycles", -5}};
  EXPECT_EQ(error_pointer(d), "/metrics/step_cycles");
  d["metrics"] = {{"epoch_seconds", "NaN"}};
  EXPECT_EQ(error_pointer(d), "/metrics/epoch_seconds");
  d["metrics"] = {{"accuracy", nullptr}};
  EXPECT_EQ(error_pointer(d), "no error");
  d = reference_design();
  d["fidelity"] = "bogus";
  EXPECT_EQ(error_pointer(d), "/fidelity");
  // An interrupted run's chosen.json (no /configs) is refused as interrupted, not as empty.
  d = Json{{"interrupted", true}, {"why", "test"}};
  EXPECT_EQ(error_pointer(d), "/interrupted");
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
  d["configs"]["device"]["part"] = "xcu50}; exec rm";
  d.erase("device");
  EXPECT_EQ(error_pointer(d), "/configs/device/part");
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
  const std::string out = tmp("emit_build");
  Json chosen = reference_design();
  chosen["name"] = "atis_2enc-test";
  chosen["metrics"] = {{"step_cycles", 1234}, {"epoch_seconds", nullptr}};
  const EmitReport r = emit_design(chosen, "chosen.json", out, ".");
  EXPECT_TRUE(r.notes.empty());
  for (const char* f : {"hls/include/design_config.h", "hls/kernels/top.cc", "hls/tb/csim_tb.cc",
                        "hls/scripts/run_hls.tcl", "hls/scripts/hls_config.cfg", "hls/scripts/u50_link.cfg",
                        "Makefile", "README.md"}) {
    EXPECT_TRUE(fs::exists(out + "/" + f)) << f;
    EXPECT_NE(std::find(r.files.begin(), r.files.end(), f), r.files.end()) << f;
  }
  EXPECT_FALSE(fs::exists(out + "/hls/include/spec_check.cc"));
  const std::string tcl = slurp(out + "/hls/scripts/run_hls.tcl");
  EXPECT_NE(tcl.find("set part xcu50-fsvh2104-2-e\n"), std::string::npos);
  EXPECT_NE(tcl.find("set clock_period 10\n"), std::string::npos);
  EXPECT_NE(tcl.find("set design atis_2enc-test\n"), std::string::npos);
  EXPECT_NE(tcl.find("set top ttsim_train_step"), std::string::npos);
  const std::string link = slurp(out + "/hls/scripts/u50_link.cfg");
  EXPECT_NE(link.find("platform=xilinx_u50_gen3x16_xdma_5_202210_1"), std::string::npos);
  EXPECT_EQ(link.find("slr="), std::string::npos) << link;
  const std::string readme = slurp(out + "/README.md");
  EXPECT_NE(readme.find("| `ttsim_contraction` | 1 | 64 |"), std::string::npos) << readme;
  EXPECT_NE(readme.find("| `param_mem` | parameters |"), std::string::npos) << readme;
  EXPECT_NE(readme.find("step_cycles 1234"), std::string::npos) << readme;
  // The folder builds on its own (only its own files on the include path), the
  // testbench's training steps pass and one step equals the Eigen reference's.
  const std::string cmd = "make -s -C '" + out + "' csim CXXFLAGS='-std=c++17 -O1' > '" + out +
                          "/csim.log' 2>&1";
  const int rc = std::system(cmd.c_str());
  const std::string log = slurp(out + "/csim.log");
  EXPECT_EQ(rc, 0) << log;
  EXPECT_NE(log.find("csim_tb: PASS"), std::string::npos) << log;
  EXPECT_NE(log.find("reference_tb: PASS"), std::string::npos) << log;

  // The reference check can fail: the file's last 1,024 gradients (the slot head's) replaced
  // by -g - 1, which no correct step gives.
  std::string ref = slurp(out + "/reference_step.bin");
  ASSERT_GT(ref.size(), 64u);
  const std::size_t tail_words = 1024;  // the last gradients (the slot head's)
  for (std::size_t i = ref.size() - tail_words * sizeof(float); i + sizeof(float) <= ref.size(); i += sizeof(float)) {
    float g;
    std::memcpy(&g, &ref[i], sizeof g);
    g = -g - 1.0f;
    std::memcpy(&ref[i], &g, sizeof g);
  }
  write_file_atomic(out + "/wrong_step.bin", ref);
  const std::string bad = "cd '" + out + "' && ./reference_tb wrong_step.bin > wrong.log 2>&1";
  EXPECT_NE(std::system(bad.c_str()), 0) << slurp(out + "/wrong.log");
  EXPECT_NE(slurp(out + "/wrong.log").find("reference_tb: FAIL"), std::string::npos) << slurp(out + "/wrong.log");

  // A malformed file fails too, saying why: bytes after the gradients, a non-finite
  // reference gradient, a tensor of zero words (the spans must lie in order within the
  // parameter words).
  const std::string good = slurp(out + "/reference_step.bin");
  std::int32_t K = 0;
  std::memcpy(&K, &good[8], sizeof K);
  const std::size_t spans_at = 28 + 8 * static_cast<std::size_t>(K);
  auto expect_refused = [&](const std::string& name, std::string file, const std::string& says) {
    write_file_atomic(out + "/" + name, file);
    const std::string run = "cd '" + out + "' && ./reference_tb " + name + " > bad.log 2>&1";
    EXPECT_NE(std::system(run.c_str()), 0) << name << ": " << slurp(out + "/bad.log");
    EXPECT_NE(slurp(out + "/bad.log").find(says), std::string::npos) << name << ": " << slurp(out + "/bad.log");
  };
  expect_refused("trailing.bin", good + "x", "bytes after the reference gradients");
  std::string nan = good;
  const float q = std::nanf("");
  std::memcpy(&nan[nan.size() - sizeof q], &q, sizeof q);
  expect_refused("nan.bin", nan, "is not finite");
  std::string zero = good;
  const std::int32_t none = 0;
  std::memcpy(&zero[spans_at + 4], &none, sizeof none);  // tensor 0's word count
  expect_refused("zero_span.bin", zero, "tensor ");
}

TEST(Emit, AModelOfFewTokensAndIntentsAndARankPerLayerPassesCSimulation) {
  // Fewer tokens than the testbench's usual ten, fewer intents than its usual label, TT
  // ranks that differ per encoder layer (design_config.h kLayerRanks) and the BTT merges
  // recomputed in the backward pass (kRecomputeMerges): the step equals the Eigen
  // reference's of the same model, gradients and updated parameters.
  const std::string out = tmp("emit_short");
  Json chosen = reference_design();
  chosen["name"] = "atis_2enc-short";
  chosen["configs"]["model"]["seq_len"] = 6;
  chosen["configs"]["model"]["intents"] = 3;
  chosen["configs"]["model"]["overrides"] = {{"enc0.k", {{"rank", 4}}}, {"enc1.ffn_in", {{"rank", 8}}}};
  chosen["configs"]["arch"]["memory"]["recompute"] = "btt_merges";
  EXPECT_NE(emitted_header(chosen).find("{1, 4, 4, 4, 4, 4, 1, 0, 0, 0, 0, 0, 0},  // enc0.k"), std::string::npos);
  EXPECT_NE(emitted_header(chosen).find("constexpr bool kRecomputeMerges = true;"), std::string::npos);
  emit_design(chosen, "chosen.json", out, ".");
  const std::string cmd = "make -s -C '" + out + "' csim CXXFLAGS='-std=c++17 -O1' > '" + out + "/csim.log' 2>&1";
  EXPECT_EQ(std::system(cmd.c_str()), 0) << slurp(out + "/csim.log");
  EXPECT_NE(slurp(out + "/csim.log").find("csim_tb: PASS"), std::string::npos) << slurp(out + "/csim.log");
  EXPECT_NE(slurp(out + "/csim.log").find("reference_tb: PASS"), std::string::npos) << slurp(out + "/csim.log");
}

TEST(Emit, OutWithATrailingSlashIsTheFolderAndTheWorkingFolderIsRefused) {
  const std::string out = tmp("emit_slash");
  Json chosen = reference_design();
  chosen["name"] = "atis_2enc-slash";
  emit_design(chosen, "chosen.json", out + "/", ".");
  ASSERT_TRUE(fs::exists(out + "/hls/include/design_config.h"));
  // A second emit through "DIR/" replaces the first: the new build in place, nothing of the
  // swap left inside it or beside it.
  write_file_atomic(out + "/hls/include/design_config.h", "stale");
  emit_design(chosen, "chosen.json", out + "//", ".");
  EXPECT_NE(slurp(out + "/hls/include/design_config.h"), "stale");
  for (const auto& e : fs::directory_iterator(out)) {
    EXPECT_EQ(e.path().filename().string().find(".emit-"), std::string::npos) << e.path();
  }
  for (const auto& e : fs::directory_iterator(fs::path(out).parent_path())) {
    const std::string name = e.path().filename().string();
    EXPECT_TRUE(name.find("emit_slash.emit-") == std::string::npos && name.find("emit_slash.old-") == std::string::npos)
        << e.path();
  }
  // The working folder, one that holds it, and the root are never a build folder.
  const std::string cwd = fs::current_path().string();
  for (const std::string& bad : {std::string("."), cwd + "/.", cwd + "/..", std::string("/")}) {
    try {
      emit_design(chosen, "chosen.json", bad, ".");
      ADD_FAILURE() << bad << " accepted as --out";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("--out"), std::string::npos) << e.what();
    }
  }
  EXPECT_TRUE(fs::exists("hls/kernels/top.cc"));  // the working folder's tree untouched
}

// A file an earlier emit did not write (a synthesis report, a chosen.json kept there) is never
// deleted by a later emit: `ttsim emit` refuses the folder naming it, explore keeps the folder
// and says so; the emit's own files alone are replaced.
TEST(Emit, ALaterEmitNeverDeletesFilesNoEmitWrote) {
  const std::string out = tmp("emit_foreign");
  Json chosen = reference_design();
  chosen["name"] = "atis_2enc-foreign";
  emit_design(chosen, "chosen.json", out, ".");
  emit_design(chosen, "chosen.json", out, ".");  // its own files only: replaced
  EXPECT_TRUE(files_no_emit_wrote(out).empty());
  fs::create_directories(out + "/reports/u50");
  write_file_atomic(out + "/reports/u50/csynth.xml", "<profile/>");
  EXPECT_EQ(files_no_emit_wrote(out), std::vector<std::string>{"reports/u50/csynth.xml"});
  try {
    emit_design(chosen, "chosen.json", out, ".");
    ADD_FAILURE() << "a folder holding a synthesis report was replaced";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("reports/u50/csynth.xml"), std::string::npos) << e.what();
  }
  const EmitReport kept = emit_hls_build(hls_build_from_chosen(chosen, "chosen.json", "."), out, EarlierFiles::kKeepFolder);
  EXPECT_FALSE(kept.replaced);
  ASSERT_FALSE(kept.notes.empty());
  EXPECT_NE(kept.notes.back().find("kept"), std::string::npos) << kept.notes.back();
  EXPECT_EQ(slurp(out + "/reports/u50/csynth.xml"), "<profile/>");
  EXPECT_TRUE(fs::exists(out + "/hls/include/design_config.h"));
  // A symbolic link (even to a folder) and an empty folder of the user's are theirs too.
  fs::remove_all(out + "/reports");
  fs::create_directory_symlink("/tmp", out + "/scratch");
  fs::create_directories(out + "/runs");
  EXPECT_EQ(files_no_emit_wrote(out), (std::vector<std::string>{"runs/", "scratch"}));
  fs::remove(out + "/scratch");
  fs::remove(out + "/runs");
  // A marker from before the list: that emit's files are unknown, the folder is replaced.
  write_file_atomic(out + "/.ttsim-emit", "Written by `ttsim emit` from chosen.json; a later emit may replace this folder.\n");
  write_file_atomic(out + "/hls/kernels/removed_since.h", "");
  EXPECT_TRUE(files_no_emit_wrote(out).empty());
  emit_design(chosen, "chosen.json", out, ".");
  EXPECT_FALSE(fs::exists(out + "/hls/kernels/removed_since.h"));
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
