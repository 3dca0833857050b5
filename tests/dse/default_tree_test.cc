// The tree's build files are one rendering of the default design, not a hand-written
// variant: hls/include/design_config.h and hls/scripts/{run_hls.tcl, hls_config.cfg,
// u50_link.cfg} equal, byte for byte, what `ttsim emit` renders for
// configs/models/atis_2enc.json on configs/arch/u50_paper.json and configs/devices/u50.json
// (regenerate with `bazel run //cli:ttsim -- emit --default-tree`); emitting that design
// gives the same files; and no kernel source spells a model shape of it as a number.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include <gtest/gtest.h>

#include "tests/testing/code_of.h"
#include "tests/testing/slurp.h"
#include "core/json_view.h"
#include "dse/emit/emit.h"

namespace ttsim::dse {
namespace {

namespace fs = std::filesystem;

using ttsim::testing::code_of;
using ttsim::testing::slurp;

const char* const kRegenerate = "; regenerate with `bazel run //cli:ttsim -- emit --default-tree`";

TEST(DefaultTree, CheckedInFilesAreTheRenderingOfTheDefaultDesign) {
  const auto files = default_tree_files(".");
  ASSERT_EQ(files.size(), 5u);
  for (const auto& [rel, text] : files) {
    ASSERT_TRUE(fs::exists(rel)) << rel;
    EXPECT_TRUE(slurp(rel) == text) << rel << " is not the rendering of the default design" << kRegenerate
                                    << "\n--- rendering ---\n"
                                    << text;
  }
}

TEST(DefaultTree, EmittingTheDefaultDesignWritesTheTreesFiles) {
  const Json chosen{{"configs",
                     {{"model", load_json_file(kDefaultModelFile)},
                      {"arch", load_json_file(kDefaultArchFile)},
                      {"device", load_json_file(kDefaultDeviceFile)}}}};
  const char* t = std::getenv("TEST_TMPDIR");
  const std::string out = std::string(t ? t : "/tmp") + "/default_emit";
  fs::remove_all(out);
  emit_design(chosen, "chosen.json", out, ".");
  for (const auto& [rel, text] : default_tree_files(".")) {
    EXPECT_TRUE(slurp(out + "/" + rel) == slurp(rel)) << rel << " of the emitted default design differs from the tree's";
  }
}

TEST(DefaultTree, KernelSourcesSpellNoModelShapeAsANumber) {
  // Arena sizes and the m_axi depth reach the kernels only through design_config.h (and the
  // offsets through design_layout.h, rendered with it: the first test checks its text).
  const BuildDesign d = default_design(".");
  std::set<std::int64_t> shapes = {d.machine.param_words, d.model.vocab, d.model.d_model, d.model.ffn_dim,
                                   d.model.intents, d.model.slot_tags};
  for (const auto& m : d.machine.memories) shapes.insert(m.words);
  for (const auto& e : fs::directory_iterator("hls/kernels")) {
    const auto ext = e.path().extension();
    if ((ext != ".h" && ext != ".cc") || e.path().filename() == "design_layout.h") continue;
    const std::string code = code_of(slurp(e.path().string()));
    const std::regex number(R"(\b[0-9]+\b)");
    for (auto it = std::sregex_iterator(code.begin(), code.end(), number); it != std::sregex_iterator(); ++it) {
      const std::int64_t v = std::stoll(it->str());
      EXPECT_EQ(shapes.count(v), 0u) << e.path().string() << " spells the model shape " << v
                                     << " (use the design_config.h constant)";
    }
  }
}

}  // namespace
}  // namespace ttsim::dse
