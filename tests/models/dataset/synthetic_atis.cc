#include "tests/models/dataset/synthetic_atis.h"

#include <sys/stat.h>

#include <cstdlib>
#include <fstream>
#include <random>
#include <stdexcept>

namespace ttsim::dataset::testing {

namespace {

void make_dirs(const std::string& path) {
  for (std::size_t pos = 1; pos <= path.size(); ++pos) {
    if (pos == path.size() || path[pos] == '/') {
      ::mkdir(path.substr(0, pos).c_str(), 0755);
    }
  }
}

}  // namespace

void write_text(const std::string& path, const std::string& content) {
  const auto slash = path.rfind('/');
  if (slash != std::string::npos) make_dirs(path.substr(0, slash));
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw std::runtime_error("cannot write " + path);
  out << content;
}

void write_split(const std::string& dir, const std::string& split,
                 const std::vector<SyntheticLine>& lines) {
  std::string in, out, label;
  for (const auto& l : lines) {
    in += l.words + "\n";
    out += l.tags + "\n";
    label += l.intent + "\n";
  }
  write_text(dir + "/" + split + "/seq.in", in);
  write_text(dir + "/" + split + "/seq.out", out);
  write_text(dir + "/" + split + "/label", label);
}

void write_labels(const std::string& dir, const std::vector<std::string>& intents,
                  const std::vector<std::string>& slot_tags) {
  std::string a, b;
  for (const auto& s : intents) a += s + "\n";
  for (const auto& s : slot_tags) b += s + "\n";
  write_text(dir + "/intent_label.txt", a);
  write_text(dir + "/slot_label.txt", b);
}

std::string fresh_dir(const std::string& name) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  std::string dir = std::string(tmp ? tmp : "/tmp") + "/" + name;
  std::string cmd = "rm -rf '" + dir + "'";
  if (std::system(cmd.c_str()) != 0) throw std::runtime_error("cannot clear " + dir);
  make_dirs(dir);
  return dir;
}

std::string write_toy_atis(const std::string& name, int train, int dev, int test,
                           unsigned seed) {
  const std::string dir = fresh_dir(name);
  write_labels(dir, {"UNK", "flight", "airfare", "ground_service"},
               {"PAD", "UNK", "O", "B-fromloc", "I-fromloc", "B-toloc", "I-toloc"});
  const std::vector<std::string> cities = {"boston", "denver", "dallas", "atlanta", "miami"};
  const std::vector<std::vector<std::string>> two_word = {{"new", "york"}, {"san", "diego"}};
  const std::vector<std::pair<std::string, std::string>> intents = {
      {"flights", "flight"}, {"fares", "airfare"}, {"transport", "ground_service"}};
  std::mt19937 rng(seed);
  auto gen = [&](int n) {
    std::vector<SyntheticLine> lines;
    for (int i = 0; i < n; ++i) {
      const auto& [kw, intent] = intents[rng() % intents.size()];
      SyntheticLine l;
      l.intent = intent;
      l.words = "show " + kw + " from";
      l.tags = "O O O";
      if (rng() % 3 == 0) {
        const auto& c = two_word[rng() % two_word.size()];
        l.words += " " + c[0] + " " + c[1];
        l.tags += " B-fromloc I-fromloc";
      } else {
        l.words += " " + cities[rng() % cities.size()];
        l.tags += " B-fromloc";
      }
      l.words += " to " + cities[rng() % cities.size()];
      l.tags += " O B-toloc";
      lines.push_back(l);
    }
    return lines;
  };
  write_split(dir, "train", gen(train));
  write_split(dir, "dev", gen(dev));
  write_split(dir, "test", gen(test));
  return dir;
}

}  // namespace ttsim::dataset::testing
