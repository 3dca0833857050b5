// Real report sets as users bring them (shared/data/hls_reports, copied into the test's
// temporary folder and edited there; no report is added to the repository): Vitis HLS
// 2024.x's unbounded sentinels in every set, a "?" latency in one file of a folder,
// per-module files grouped under their top, reports that contradict themselves, identity
// problems and pipeline styles the composition rule does not model. Skipped when
// TTSIM_SHARED is not set.

#include <cstdlib>
#include <filesystem>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <pugixml.hpp>

#include "hls/reports/latency_rules.h"
#include "hls/reports/report_consistency.h"
#include "hls/reports/report_identity.h"
#include "hls/reports/report_set.h"
#include "hls/reports/rules_report.h"

namespace ttsim::hls {
namespace {

namespace fs = std::filesystem;

#define REQUIRE_SHARED()                                                           \
  if (!std::getenv("TTSIM_SHARED")) GTEST_SKIP() << "TTSIM_SHARED not set: real " \
                                                    "reports in shared/data/hls_reports unavailable"

std::string real_dir() { return std::string(std::getenv("TTSIM_SHARED")) + "/data/hls_reports"; }

/// A fresh copy of the real set `set` ("" for every set) under the test's temporary folder.
std::string copy_of(const std::string& set, const std::string& name) {
  const char* t = std::getenv("TEST_TMPDIR");
  const fs::path dest = fs::path(t ? t : "/tmp") / name;
  fs::remove_all(dest);
  fs::create_directories(dest);
  const fs::path from = set.empty() ? fs::path(real_dir()) : fs::path(real_dir()) / set;
  fs::copy(from, set.empty() ? dest : dest / set, fs::copy_options::recursive);
  for (const auto& e : fs::recursive_directory_iterator(dest)) {
    fs::permissions(e.path(), fs::perms::owner_write, fs::perm_options::add);
  }
  return dest.string();
}

/// Sets the text of every node `xpath` selects in the XML file `path`; returns how many.
int edit(const std::string& path, const std::string& xpath, const std::string& value) {
  pugi::xml_document doc;
  EXPECT_TRUE(doc.load_file(path.c_str())) << path;
  int n = 0;
  for (const pugi::xpath_node& x : doc.select_nodes(xpath.c_str())) {
    x.node().text().set(value.c_str());
    ++n;
  }
  EXPECT_TRUE(doc.save_file(path.c_str())) << path;
  return n;
}

/// Replaces a count element's content by <range><min>lo</min><max>hi</max></range>.
void edit_range(const std::string& path, const std::string& xpath, const std::string& lo, const std::string& hi) {
  pugi::xml_document doc;
  ASSERT_TRUE(doc.load_file(path.c_str())) << path;
  const pugi::xpath_node x = doc.select_node(xpath.c_str());
  ASSERT_TRUE(x) << xpath;
  pugi::xml_node n = x.node();
  while (n.first_child()) n.remove_child(n.first_child());
  pugi::xml_node r = n.append_child("range");
  r.append_child("min").text().set(lo.c_str());
  r.append_child("max").text().set(hi.c_str());
  ASSERT_TRUE(doc.save_file(path.c_str()));
}

std::string rel(const std::string& path, const std::string& base) {
  return fs::path(path).lexically_relative(base).string();
}

/// (report path relative to `base`, module) → (reported, predicted) of every evaluated module.
std::map<std::pair<std::string, std::string>, std::pair<std::int64_t, std::int64_t>> results(
    const RuleEvaluation& ev, const std::string& base) {
  std::map<std::pair<std::string, std::string>, std::pair<std::int64_t, std::int64_t>> out;
  for (const auto& r : ev.results) out[{rel(r.source, base), r.module}] = {r.reported, r.predicted};
  return out;
}

const char* kSentinel = "1152921504606846976";      // 2^60
const char* kSentinelII = "1 ~ 1152921504606846977";  // an interval one above it

/// Writes Vitis HLS 2024.x's unbounded form into one module of `file` (its last
/// ModuleInformation module, else the report's top): Worst-caseLatency 2^60, its interval
/// "1 ~ 2^60 + 1", a time of 2^60 cycles and a TripCount of max 2^60. Returns the module.
std::string make_unbounded(const std::string& file) {
  pugi::xml_document doc;
  EXPECT_TRUE(doc.load_file(file.c_str()));
  const pugi::xpath_node_set modules = doc.select_nodes("/profile/ModuleInformation/Module");
  std::string base = "/profile/PerformanceEstimates";
  std::string module = doc.select_node("/profile/UserAssignments/TopModelName").node().text().get();
  if (!modules.empty()) {
    module = modules[modules.size() - 1].node().child("Name").text().get();
    base = "/profile/ModuleInformation/Module[Name='" + module + "']/PerformanceEstimates";
  }
  const std::string lat = base + "/SummaryOfOverallLatency/";
  EXPECT_EQ(edit(file, lat + "Worst-caseLatency", kSentinel), 1) << file;
  edit(file, lat + "Worst-caseRealTimeLatency", "11529215046.068 sec");
  edit(file, lat + "PipelineInitiationInterval", kSentinelII);
  edit(file, lat + "Interval-max", "1152921504606846977");
  pugi::xml_document again;
  again.load_file(file.c_str());
  if (again.select_node((base + "/SummaryOfLoopLatency/*[1]/TripCount").c_str())) {
    edit_range(file, base + "/SummaryOfLoopLatency/*[1]/TripCount", "1", kSentinel);
  }
  return module;
}

TEST(ReportSets, Vitis2024SentinelsInEverySetAreUnknownAndTheRestEvaluatesAsBefore) {
  REQUIRE_SHARED();
  const std::string dir = copy_of("", "sentinels");
  const ReportSet original = read_reports(real_dir());
  std::map<std::string, std::string> edited;  // file → module made unbounded
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (classify_report_file(e.path().string()) == ReportKind::kCsynthXml) {
      edited[e.path().string()] = make_unbounded(e.path().string());
    }
  }
  ASSERT_EQ(edited.size(), original.csynth.size());
  const ReportSet s = read_reports(dir);  // no file, no set rejected
  ASSERT_EQ(s.csynth.size(), original.csynth.size());
  for (const auto& r : s.csynth) {
    int unbounded = 0;
    for (const auto& u : r.unknowns) unbounded += u.module == edited[r.source] && u.kind() == "unbounded";
    EXPECT_GE(unbounded, 2) << r.source;
    EXPECT_TRUE(contradictions(r).empty()) << r.source << ": " << contradictions(r).front().what;
    EXPECT_TRUE(identity_problems(r).empty()) << r.source;
  }
  const auto before = results(evaluate_rules(original.csynth, RuleSet::kHlsStates, original.cosim), real_dir());
  const auto after = results(evaluate_rules(s.csynth, RuleSet::kHlsStates, s.cosim), dir);
  EXPECT_GT(after.size(), before.size() / 2);
  for (const auto& [key, figures] : after) {
    ASSERT_TRUE(before.count(key)) << key.first << " " << key.second << " evaluated only with the sentinels";
    EXPECT_EQ(before.at(key), figures) << key.first << " " << key.second;
    EXPECT_NE(edited[(fs::path(dir) / key.first).string()], key.second) << "an unbounded module was evaluated";
  }
  std::cout << "2024 sentinels in " << edited.size() << " files: " << after.size() << " of " << before.size()
            << " modules still evaluated, identically\n";
}

TEST(ReportSets, AQuestionMarkLatencyInOneFileLeavesTheFolderRead) {
  REQUIRE_SHARED();
  const std::string dir = copy_of("gnn_acc_pna_molhiv", "question");
  const std::string conv = dir + "/gnn_acc_pna_molhiv/CONV_csynth.xml";
  ASSERT_EQ(edit(conv, "/profile/PerformanceEstimates/SummaryOfOverallLatency/Worst-caseLatency", "?"), 1);
  const ReportSet s = read_reports(dir);
  ASSERT_EQ(s.csynth.size(), 5u);
  bool listed = false;
  for (const auto& r : s.csynth) {
    for (const auto& u : r.unknowns) {
      listed = listed || (r.source == conv && u.module == "CONV" && u.text == "?" &&
                          u.field == "PerformanceEstimates/SummaryOfOverallLatency/Worst-caseLatency");
    }
    if (r.source == conv) {
      EXPECT_FALSE(r.latency_worst.known());
      EXPECT_EQ(r.latency_best, Count::exact(93452));  // the rest of the file is read
    }
  }
  EXPECT_TRUE(listed);
}

TEST(ReportSets, PerModuleFilesAreModulesOfTheirTop) {
  REQUIRE_SHARED();
  const std::string dir = copy_of("", "grouped");
  const ReportSet all = read_reports(dir);
  const auto groups = group_designs(all.csynth);
  EXPECT_EQ(groups.size(), 16u);  // one design per set: 24 files
  auto group_of = [&](const std::string& set) -> const DesignGroup& {
    for (const auto& g : groups)
      if (fs::path(g.folder).filename() == set) return g;
    ADD_FAILURE() << set;
    return groups.front();
  };
  const DesignGroup& gnn = group_of("gnn_acc_pna_molhiv");
  EXPECT_EQ(gnn.top, "PNA_compute_one_graph");
  EXPECT_EQ(fs::path(all.csynth[gnn.report].source).filename(), "csynth.xml");
  ASSERT_EQ(gnn.same_top.size(), 1u);
  ASSERT_EQ(gnn.modules.size(), 3u);  // CONV, Linear_relu, aggr (by path)
  EXPECT_EQ(all.csynth[gnn.modules[0].report].top, "CONV");
  EXPECT_EQ(gnn.modules[0].parent, "PNA_compute_one_graph");
  EXPECT_EQ(all.csynth[gnn.modules[1].report].top, "Linear_relu");
  EXPECT_EQ(gnn.modules[1].parent, "CONV");
  EXPECT_EQ(gnn.modules[2].parent, "message_passing");
  EXPECT_TRUE(gnn.mismatches.empty());
  // Without csynth.xml (the per-module files print no hierarchy), the outlined loops'
  // files still group under the top's own file by their "<top>_Pipeline_<loop>" names.
  fs::remove(dir + "/systolic_multiplier/csynth.xml");
  const ReportSet sys = read_reports(dir + "/systolic_multiplier");
  const auto g = group_designs(sys.csynth);
  ASSERT_EQ(g.size(), 1u);
  EXPECT_EQ(g[0].top, "multiplier");
  EXPECT_EQ(fs::path(sys.csynth[g[0].report].source).filename(), "multiplier_csynth.xml");
  ASSERT_EQ(g[0].modules.size(), 2u);
  EXPECT_EQ(g[0].modules[0].parent, "multiplier");
  // A module file of another part is not of the build: a design of its own, named.
  edit(dir + "/systolic_multiplier/multiplier_Pipeline_systolic1_csynth.xml", "/profile/UserAssignments/Part",
       "xcu50-fsvh2104-2-e");
  const auto g2 = group_designs(read_reports(dir + "/systolic_multiplier").csynth);
  ASSERT_EQ(g2.size(), 2u);
  const DesignGroup& mul = g2[0].top == "multiplier" ? g2[0] : g2[1];
  EXPECT_EQ(mul.modules.size(), 1u);
  ASSERT_EQ(mul.mismatches.size(), 1u);
  EXPECT_NE(mul.mismatches[0].find("names module multiplier_Pipeline_systolic1 of design multiplier but reports "
                                     "part xcu50-fsvh2104-2-e (the design's report: xck26-sfvc784-2LV-c)"),
            std::string::npos)
      << mul.mismatches[0];
}

/// The contradictions of the ahls_knn report after `change` (an edit of its copy).
std::vector<Contradiction> knn_after(const std::string& name, const std::function<void(const std::string&)>& change) {
  const std::string dir = copy_of("ahls_knn", name);
  const std::string file = dir + "/ahls_knn/csynth.xml";
  change(file);
  return contradictions(read_reports(file).csynth.front());
}

bool has(const std::vector<Contradiction>& cs, const std::string& module, const std::string& needle) {
  for (const auto& c : cs)
    if (c.module == module && c.what.find(needle) != std::string::npos) return true;
  return false;
}

TEST(ReportSets, AReportThatContradictsItselfIsFlaggedWithTheNumbers) {
  REQUIRE_SHARED();
  const std::string m = "/profile/ModuleInformation/Module[Name='md_kernel']";
  const std::string loop_i = m + "/PerformanceEstimates/SummaryOfLoopLatency/loop_i";
  EXPECT_TRUE(knn_after("knn0", [](const std::string&) {}).empty());
  auto c = knn_after("knn1", [&](const std::string& f) { edit(f, loop_i + "/Latency", "26291"); });
  EXPECT_TRUE(has(c, "md_kernel", "loop loop_i: Latency 26291 is not TripCount 256 × IterationLatency 1027"));
  c = knn_after("knn2", [&](const std::string& f) { edit(f, loop_i + "/TripCount", "2560"); });
  EXPECT_TRUE(has(c, "md_kernel", "loop loop_i: Latency 262912 is not TripCount 2560 × IterationLatency 1027"));
  c = knn_after("knn2b", [&](const std::string& f) { edit(f, loop_i + "/Latency", "300000"); });
  EXPECT_TRUE(has(c, "md_kernel", "Worst-caseLatency 262913 below the latency 300000 of its own loop loop_i"));
  c = knn_after("knn3", [&](const std::string& f) { edit(f, m + "/PerformanceEstimates/SummaryOfOverallLatency/Best-caseLatency", "300000"); });
  EXPECT_TRUE(has(c, "md_kernel", "Best-caseLatency 300000 above Worst-caseLatency 262913"));
  c = knn_after("knn4", [&](const std::string& f) {
    edit(f, m + "/BindNodes/BindNode[@RTLNAME='dmul_64ns_64ns_64_4_max_dsp_1_U4']/@DSP", "");
    pugi::xml_document d;
    d.load_file(f.c_str());
    d.select_node((m + "/BindNodes/BindNode[@RTLNAME='dmul_64ns_64ns_64_4_max_dsp_1_U4']").c_str())
        .node().attribute("DSP").set_value("80");
    d.save_file(f.c_str());
  });
  EXPECT_TRUE(has(c, "md_kernel", "its BindNodes declare 105 DSP (one per RTL unit) but the module reports 33"));
  c = knn_after("knn5", [&](const std::string& f) { edit(f, m + "/PerformanceEstimates/SummaryOfOverallLatency/PipelineInitiationInterval", "100"); });
  EXPECT_TRUE(has(c, "md_kernel", "PipelineType no (not pipelined) but its interval 100 is below its best-case latency 262913"));
  c = knn_after("knn6", [&](const std::string& f) { edit(f, "/profile/PerformanceEstimates/SummaryOfOverallLatency/Worst-caseLatency", "262999"); });
  EXPECT_TRUE(has(c, "md_kernel", "Worst-caseLatency 262999 in the summary but 262913 in its ModuleInformation entry"));
  // compare-rules skips the module, naming the contradiction.
  const std::string dir = copy_of("ahls_knn", "knn7");
  edit(dir + "/ahls_knn/csynth.xml", loop_i + "/Latency", "26291");
  const RuleEvaluation ev = evaluate_rules(read_reports(dir).csynth, RuleSet::kHlsStates);
  EXPECT_TRUE(ev.results.empty());
  bool skipped = false;
  for (const auto& k : ev.skipped) skipped = skipped || (k.module == "md_kernel" && k.reason.rfind(kContradicts, 0) == 0);
  EXPECT_TRUE(skipped);
}

TEST(ReportSets, BlockRamBelowTheDeclaredStorageSizesIsFlagged) {
  // fft1D_512 (ahls_trans_fft) reports BRAM_18K 8 for DATA_x, DATA_y (64 x 512: 2 BRAM18
  // each) and smem (64 x 576: 2); smem declared four times as deep needs 8 alone.
  REQUIRE_SHARED();
  const std::string dir = copy_of("ahls_trans_fft", "fft_storage");
  const std::string f = dir + "/ahls_trans_fft/csynth.xml";
  auto of_fft = [](const CsynthReport& r) {
    std::vector<Contradiction> c;
    for (const auto& x : contradictions(r)) if (x.module == "fft1D_512") c.push_back(x);
    return c;
  };
  const CsynthReport before = read_csynth_xml(f);
  const BindNode* smem = nullptr;
  for (const auto& b : before.module("fft1D_512")->bind_nodes) if (b.variable == "smem") smem = &b;
  ASSERT_NE(smem, nullptr);
  EXPECT_EQ(smem->storage_bits(), 64 * 576);
  EXPECT_TRUE(of_fft(before).empty());
  pugi::xml_document d;
  ASSERT_TRUE(d.load_file(f.c_str()));
  d.select_node("/profile/ModuleInformation/Module[Name='fft1D_512']/BindNodes/BindNode[@VARIABLE='smem']")
      .node().attribute("STORAGESIZE").set_value("64 2304 1");
  ASSERT_TRUE(d.save_file(f.c_str()));
  const std::vector<Contradiction> c = of_fft(read_csynth_xml(f));
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].what, "BRAM_18K 8 is below the 12 BRAM18 (18 Kib) blocks its declared storage needs (STORAGESIZE "
                       "width x depth x banks: DATA_x 64 x 512 x 1 = 32768 bits, DATA_y 64 x 512 x 1 = 32768 bits, "
                       "smem 64 x 2304 x 1 = 147456 bits)");
}

TEST(ReportSets, PipelinedLoopBoundsAndTypesAreChecked) {
  REQUIRE_SHARED();
  const std::string dir = copy_of("radix_sort_separate_bucket_parallel_5", "pipe");
  const std::string f = dir + "/radix_sort_separate_bucket_parallel_5/csynth.xml";
  const std::string m = "/profile/ModuleInformation/Module[Name='radix_sort_separate_bucket_parallel_5_Pipeline_initialization']";
  const std::string loop = m + "/PerformanceEstimates/SummaryOfLoopLatency/*[1]";
  EXPECT_TRUE(contradictions(read_reports(f).csynth.front()).empty());
  edit(f, loop + "/Latency", "1000");
  auto c = contradictions(read_reports(f).csynth.front());
  EXPECT_TRUE(has(c, "radix_sort_separate_bucket_parallel_5_Pipeline_initialization", "Latency 1000 above (TripCount"));
  edit(f, loop + "/Latency", "1");
  edit(f, loop + "/PipelineType", "no");
  c = contradictions(read_reports(f).csynth.front());
  EXPECT_TRUE(has(c, "radix_sort_separate_bucket_parallel_5_Pipeline_initialization", "PipelineType no but PipelineII"));
  edit(f, loop + "/PipelineType", "yes");
  edit(f, loop + "/TripCount", "100");
  c = contradictions(read_reports(f).csynth.front());
  EXPECT_TRUE(has(c, "radix_sort_separate_bucket_parallel_5_Pipeline_initialization",
                  "Latency 1 below (TripCount 100 − 1) · PipelineII"));
}

TEST(ReportSets, PipelineStylesTheRuleDoesNotModelAreSaidSo) {
  REQUIRE_SHARED();
  const std::string dir = copy_of("radix_sort_separate_bucket_parallel_5", "rewind");
  const std::string f = dir + "/radix_sort_separate_bucket_parallel_5/csynth.xml";
  ASSERT_EQ(edit(f, "/profile/ModuleInformation/Module[Name='radix_sort_separate_bucket_parallel_5_Pipeline_initialization']"
                    "/PerformanceEstimates/SummaryOfLoopLatency/*[1]/PipelineType", "rewind"), 1);
  RulesComparison c;
  c.rules_name = "hls";
  c.dir = dir;
  c.ev = evaluate_rules(read_reports(dir).csynth, RuleSet::kHlsStates);
  bool skipped = false;
  for (const auto& k : c.ev.skipped) {
    skipped = skipped || (k.module == "radix_sort_separate_bucket_parallel_5_Pipeline_initialization" &&
                          k.reason.find("pipeline style \"rewind\" not modelled by the composition rule") !=
                              std::string::npos);
  }
  EXPECT_TRUE(skipped);
  const std::string summary = rule_summary(c);
  EXPECT_NE(summary.find("not modelled by the composition rule, skipped: a loop's pipeline style \"rewind\" (1 module)"),
            std::string::npos)
      << summary;
}

TEST(ReportSets, EveryRealReportHoldsTogether) {
  REQUIRE_SHARED();
  const ReportSet s = read_reports(real_dir());
  int unknowns = 0;
  for (const auto& r : s.csynth) {
    for (const auto& p : identity_problems(r)) ADD_FAILURE() << r.source << ": " << p;
    for (const auto& c : contradictions(r)) ADD_FAILURE() << r.source << ": " << c.module << ": " << c.what;
    unknowns += static_cast<int>(r.unknowns.size());
  }
  EXPECT_GT(unknowns, 0);  // undef latencies in several sets
}

TEST(ReportSets, AFileNamedAfterAnotherModuleIsAnIdentityProblem) {
  REQUIRE_SHARED();
  const std::string dir = copy_of("gnn_acc_pna_molhiv", "named");
  fs::copy_file(dir + "/gnn_acc_pna_molhiv/CONV_csynth.xml", dir + "/gnn_acc_pna_molhiv/scatter_sum_csynth.xml");
  edit(dir + "/gnn_acc_pna_molhiv/aggr_csynth.xml", "/profile/ReportVersion/Version", "next");
  for (const auto& r : read_reports(dir).csynth) {
    const auto p = identity_problems(r);
    const std::string name = fs::path(r.source).filename().string();
    if (name == "scatter_sum_csynth.xml") {
      ASSERT_EQ(p.size(), 1u);
      EXPECT_EQ(p[0], "file scatter_sum_csynth.xml claims module scatter_sum but its TopModelName is CONV");
    } else if (name == "aggr_csynth.xml") {
      ASSERT_EQ(p.size(), 1u);
      EXPECT_EQ(p[0], "tool version \"next\" is not of the form YYYY.N or YYYY.N.N");
    } else {
      EXPECT_TRUE(p.empty()) << name;
    }
  }
}

}  // namespace
}  // namespace ttsim::hls
