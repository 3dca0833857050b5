// The DEPENDENCE pragmas the priced RecMII relies on are in the kernel sources: read as text
// (every header of hls/kernels), each pipelined loop of the kernel specification must carry
//  - for every recurrence through a kernel array (e.g. the contraction's C), a DEPENDENCE
//    pragma on that array (`<array>_mem`, the function argument) with its declared
//    distance (TTSIM_ACC_SLOTS = kAccSlots; the contraction's TTSIM_ACC_MIN_SLOTS =
//    kAccMinSlots): without it Vitis assumes distance 1 and the loop's II becomes the
//    read → fadd → write latency;
//  - for every recurrence through a kernel-local array (an accumulator, the transpose's tile),
//    a DEPENDENCE pragma on that variable with that distance, and no such pragma on a
//    variable the specification does not list (the LUT estimate prices a LUTRAM memory set
//    per listed variable);
//  - for every array the loop both reads and writes without a declared recurrence (each
//    element touched in one iteration only, or disjoint halves), `inter false` on it.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "hls/include/kernel_spec.h"

namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << path;
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/// The kernel headers (hls/kernels/*.h), in name order.
std::vector<std::string> kernel_headers() {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator("hls/kernels")) {
    if (e.path().extension() == ".h") out.push_back(e.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

/// Loop label → the pragma lines between the label and the loop body's first statement.
std::map<std::string, std::string> loop_pragmas() {
  std::map<std::string, std::string> out;
  for (const std::string& f : kernel_headers()) {
    const std::string text = slurp(f);
    const std::regex label(R"((\w+):\s*\n\s*for\s*\([^\n]*\n((?:\s*(?:#pragma[^\n]*|//[^\n]*)\n)*))");
    for (auto it = std::sregex_iterator(text.begin(), text.end(), label); it != std::sregex_iterator(); ++it) {
      out[(*it)[1].str()] = (*it)[2].str();
    }
  }
  return out;
}

bool is_array(const ttsim_spec::LoopSpec& l, const std::string& name) {
  for (int a = 0; a < l.n_access; ++a) {
    if (name == l.access[a].array) return true;
  }
  return false;
}

TEST(DependencePragmas, EveryRecurrenceAndInPlaceArrayIsDeclaredInTheSource) {
  ASSERT_EQ(ttsim_spec::kAccSlots, 16) << "the pragmas name TTSIM_ACC_SLOTS; update this test with the spec";
  ASSERT_EQ(ttsim_spec::kAccMinSlots, 12) << "the contraction's pragmas name TTSIM_ACC_MIN_SLOTS";
  ASSERT_EQ(ttsim_spec::kTransposeLag, TTSIM_TRANSPOSE_LAG) << "the transpose's pragma names TTSIM_TRANSPOSE_LAG";
  const auto pragmas = loop_pragmas();
  int checked = 0;
  for (const ttsim_spec::KernelSpec& k : ttsim_spec::kKernelSpecs) {
    for (int i = 0; i < k.n_loops; ++i) {
      const ttsim_spec::LoopSpec& l = k.loops[i];
      SCOPED_TRACE(l.name);
      ASSERT_TRUE(pragmas.count(l.name)) << "no pipelined loop labelled " << l.name << " in the kernel sources";
      const std::string& p = pragmas.at(l.name);
      auto has = [&](const std::string& re) { return std::regex_search(p, std::regex(re)); };
      // The contraction's chunks are kAccMinSlots to kAccSlots slots wide (acc_chunk_width):
      // its recurrences are declared at the least; the transpose's tile at kTransposeLag;
      // every other kernel's at kAccSlots.
      const bool contraction = std::string(k.module) == "ttsim_contraction";
      const bool transpose = std::string(l.name) == "transpose";
      const std::string dist = contraction ? "TTSIM_ACC_MIN_SLOTS" : transpose ? "TTSIM_TRANSPOSE_LAG" : "TTSIM_ACC_SLOTS";
      const int want = contraction ? ttsim_spec::kAccMinSlots : transpose ? ttsim_spec::kTransposeLag : ttsim_spec::kAccSlots;
      for (int r = 0; r < l.n_rec; ++r) {
        const std::string v = l.rec[r].variable;
        EXPECT_EQ(l.rec[r].distance, want) << v;
        if (is_array(l, v)) {
          EXPECT_TRUE(has("DEPENDENCE variable = " + v + "_mem type = inter direction = RAW distance = " + dist +
                          " dependent = true"))
              << "recurrence through array " << v << " without its DEPENDENCE pragma:\n" << p;
        } else {
          EXPECT_TRUE(has("DEPENDENCE variable = " + v + " type = inter direction = RAW distance = " + dist +
                          " dependent = true"))
              << "recurrence through accumulator " << v << " without its DEPENDENCE pragma:\n" << p;
        }
        ++checked;
      }
      // Every kernel-local array the loop carries a RAW dependence through is a recurrence of
      // the specification (the LUT estimate prices one LUTRAM memory set per recurrence
      // variable: hw/lut_estimate.h UnitSites).
      const std::regex local(R"(DEPENDENCE variable = (\w+) type = inter direction = RAW)");
      for (auto it = std::sregex_iterator(p.begin(), p.end(), local); it != std::sregex_iterator(); ++it) {
        const std::string v = (*it)[1].str();
        if (v.size() > 4 && v.compare(v.size() - 4, 4, "_mem") == 0) continue;
        bool listed = false;
        for (int r = 0; r < l.n_rec; ++r) listed = listed || v == l.rec[r].variable;
        EXPECT_TRUE(listed) << "local array " << v << " carries a dependence the specification does not list";
      }
      for (int a = 0; a < l.n_access; ++a) {
        const ttsim_spec::ArrayAccess& acc = l.access[a];
        const std::string v = acc.array;
        if (acc.reads == 0 || acc.writes == 0) continue;
        bool recurrent = false;
        for (int r = 0; r < l.n_rec; ++r) recurrent = recurrent || v == l.rec[r].variable;
        if (recurrent) continue;
        EXPECT_TRUE(has("DEPENDENCE variable = " + v + "_mem type = inter false"))
            << v << " is read and written in the loop with no declared recurrence and no `inter false`:\n" << p;
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 20);
}

// Every kernel-local accumulator array (declared `NAME[kAccSlots]…`, or taken by reference
// `(&NAME)[kAccSlots]`) is a recurrence variable of the specification, so the LUT estimate
// prices its LUTRAM (hw/lut_estimate.h UnitSites) — whatever pragma it carries, or none.
TEST(DependencePragmas, EveryAccumulatorArrayIsARecurrenceOfTheSpecification) {
  std::set<std::string> listed;
  for (const ttsim_spec::KernelSpec& k : ttsim_spec::kKernelSpecs) {
    for (int i = 0; i < k.n_loops; ++i) {
      for (int r = 0; r < k.loops[i].n_rec; ++r) listed.insert(k.loops[i].rec[r].variable);
    }
  }
  const std::regex decl(R"((\w+)\)?\[kAccSlots\])");
  int found = 0;
  for (const std::string& f : kernel_headers()) {
    const std::string text = slurp(f);
    for (auto it = std::sregex_iterator(text.begin(), text.end(), decl); it != std::sregex_iterator(); ++it) {
      EXPECT_TRUE(listed.count((*it)[1].str())) << f << ": accumulator " << (*it)[1].str()
                                                << " is no recurrence variable of the specification";
      ++found;
    }
  }
  EXPECT_GE(found, 20);
}

}  // namespace
