// RapidCheck mutation test of the JSON config readers (sweep, model, arch): byte flips,
// truncations, values replaced by odd ones (negative, huge, non-numbers, wrong types) and
// duplicated keys, applied to the shipped configs. Every mutated file must either load or
// be rejected with an InputError whose message names the file; nothing else may escape,
// and no single load may take more than 5 s (a watchdog aborts the test). The number of
// inputs per reader is printed and recorded as test properties.

#include <cstdlib>
#include <fstream>
#include <functional>
#include <iostream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <rapidcheck.h>

#include "core/errors.h"
#include "dse/space/sweep_spec.h"
#include "hls/reports/xml_util.h"
#include "models/model_spec.h"
#include "hw/arch_spec.h"
#include "tests/core/hang_guard.h"

namespace ttsim {
namespace {

struct Reader {
  const char* name;
  std::vector<std::string> seeds;  // config files mutated
  std::function<void(const std::string&)> load;
};

const std::vector<std::string> kOdd = {"-1", "-0.5", "0", "1e308", "-1e308", "1e400", "99999999999999999999",
                                       "\"x\"", "null", "true", "[]", "{}", "[1,2]", "\"\"", "3.5", "\"-1\""};

// One mutation of `text` drawn by RapidCheck.
std::string mutate(const std::string& text) {
  std::string t = text;
  switch (*rc::gen::inRange(0, 4)) {
    case 0:  // truncation
      return t.substr(0, *rc::gen::inRange<std::size_t>(0, t.size()));
    case 1: {  // 1-6 byte flips
      const int n = *rc::gen::inRange(1, 7);
      for (int i = 0; i < n; ++i) t[*rc::gen::inRange<std::size_t>(0, t.size())] = static_cast<char>(*rc::gen::inRange(0, 256));
      return t;
    }
    case 2: {  // a value (after a ':' or '[' or ',') replaced by an odd one
      const std::size_t from = *rc::gen::inRange<std::size_t>(0, t.size());
      std::size_t p = t.find_first_of(":[,", from);
      if (p == std::string::npos) p = t.find_first_of(":[,");
      if (p == std::string::npos) return t;
      std::size_t b = t.find_first_not_of(" \n\t", p + 1);
      if (b == std::string::npos) return t;
      std::size_t e = t.find_first_of(",}]\n", b);
      if (e == std::string::npos) e = t.size();
      return t.substr(0, b) + *rc::gen::elementOf(kOdd) + t.substr(e);
    }
    default: {  // a "key": value member repeated after itself
      const std::size_t from = *rc::gen::inRange<std::size_t>(0, t.size());
      std::size_t q = t.find('"', from);
      if (q == std::string::npos) q = t.find('"');
      std::size_t colon = t.find("\":", q);
      if (q == std::string::npos || colon == std::string::npos) return t;
      std::size_t e = t.find_first_of(",}\n", colon);
      if (e == std::string::npos) return t;
      return t.substr(0, e) + ", " + t.substr(q, e - q) + t.substr(e);
    }
  }
}

TEST(ConfigFuzz, MutatedConfigsLoadOrNameTheFileInAnInputError) {
  const std::vector<Reader> readers = {
      {"sweep", {"configs/sweeps/smoke.json", "configs/sweeps/atis_u50.json"},
       [](const std::string& p) { dse::load_sweep_spec(p); }},
      {"model", {"configs/models/atis_2enc.json", "configs/models/atis_6enc.json", "configs/models/bert_like_ffn3072.json"},
       [](const std::string& p) { load_model_spec(p); }},
      {"arch", {"configs/arch/u50_paper.json", "configs/arch/u50_tt_sequential.json", "configs/arch/u50_mm_baseline.json"},
       [](const std::string& p) { load_arch_spec(p); }},
  };
  testing::HangGuard guard;
  const std::string path = ::testing::TempDir() + "/fuzz_config.json";
  for (const Reader& r : readers) {
    std::vector<std::string> texts;
    for (const auto& s : r.seeds) texts.push_back(hls::xml::read_file(s));
    long tried = 0, rejected = 0;
    const bool ok = rc::check(std::string(r.name) + " configs load or throw InputError naming the file", [&] {
      const std::string text = mutate(*rc::gen::elementOf(texts));
      { std::ofstream(path, std::ios::binary | std::ios::trunc) << text; }
      ++tried;
      guard.begin(r.name);
      try {
        r.load(path);
      } catch (const InputError& e) {
        ++rejected;
        if (std::string(e.what()).find(path) == std::string::npos) {
          RC_FAIL(std::string("rejection does not name the file: ") + e.what());
        }
      }
      guard.end();
    });
    EXPECT_TRUE(ok) << r.name;
    std::cout << "config fuzz " << r.name << ": " << tried << " inputs, " << rejected << " rejected\n";
    ::testing::Test::RecordProperty(std::string(r.name) + "_inputs", std::to_string(tried));
    EXPECT_GE(tried, 20000) << r.name;
  }
}

}  // namespace
}  // namespace ttsim
