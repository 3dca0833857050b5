#include "dse/accuracy_table.h"

namespace ttsim::dse {

AccuracyByRank load_accuracy_table(const std::string& path) {
  const Json doc = load_json_file(path);
  JsonView root(doc, path);
  AccuracyByRank out;
  for (const auto& e : root.at("ranks").as_array(1)) {
    const auto rank = e.at("rank").as_int(1, 4096);
    const double acc = e.at("test_intent_accuracy").as_double(0, 1);
    if (out.count(rank)) e.at("rank").fail("each rank once", "rank " + std::to_string(rank) + " again");
    out[rank] = acc;
  }
  return out;
}

}  // namespace ttsim::dse
