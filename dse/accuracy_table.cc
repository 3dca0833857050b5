#include "dse/accuracy_table.h"

#include <algorithm>
#include <limits>

namespace ttsim::dse {

AccuracyTable parse_accuracy_table(const Json& doc, const std::string& file) {
  JsonView root(doc, file);
  root.allow_keys({"source", "command", "model", "epochs", "lr", "seed", "limit", "ranks"});
  AccuracyTable t;
  t.file = file;
  t.source = root.at("source").as_string();
  t.command = root.at("command").as_string();
  t.model = root.at("model").as_string();
  t.epochs = root.at("epochs").as_int(1, std::numeric_limits<std::int32_t>::max());
  t.lr = root.at("lr").as_double(0, 1e6);
  t.seed = root.at("seed").as_int(std::numeric_limits<std::int64_t>::min(),
                                  std::numeric_limits<std::int64_t>::max());
  const JsonView limit = root.at("limit");
  if (!limit.raw().is_null()) t.limit = limit.as_int(1, std::numeric_limits<std::int64_t>::max());
  for (const auto& e : root.at("ranks").as_array(1)) {
    e.allow_keys({"rank", "test_intent_accuracy", "test_slot_f1", "dev_intent_accuracy", "dev_slot_f1",
                  "final_train_loss", "seconds"});
    RankAccuracy r;
    r.rank = e.at("rank").as_int(1, 4096);
    r.test_intent_accuracy = e.at("test_intent_accuracy").as_double(0, 1);
    r.test_slot_f1 = e.at("test_slot_f1").as_double(0, 1);
    r.dev_intent_accuracy = e.at("dev_intent_accuracy").as_double(0, 1);
    r.dev_slot_f1 = e.at("dev_slot_f1").as_double(0, 1);
    r.final_train_loss = e.at("final_train_loss").as_double(0, 1e9);
    r.seconds = e.at("seconds").as_double(0, 1e12);
    for (const auto& seen : t.ranks) {
      if (seen.rank == r.rank) {
        e.at("rank").fail("each rank once", "rank " + std::to_string(r.rank) + " again");
      }
    }
    t.ranks.push_back(r);
  }
  std::sort(t.ranks.begin(), t.ranks.end(),
            [](const RankAccuracy& a, const RankAccuracy& b) { return a.rank < b.rank; });
  return t;
}

AccuracyTable load_accuracy_table(const std::string& path) {
  return parse_accuracy_table(load_json_file(path), path);
}

std::optional<AccuracyLookup> AccuracyTable::at(std::int64_t rank) const {
  // First row with a rank >= `rank`.
  const auto hi = std::lower_bound(ranks.begin(), ranks.end(), rank,
                                   [](const RankAccuracy& r, std::int64_t v) { return r.rank < v; });
  if (hi == ranks.end()) return std::nullopt;
  AccuracyLookup l;
  if (hi->rank == rank) {
    l.intent_accuracy = hi->test_intent_accuracy;
    l.slot_f1 = hi->test_slot_f1;
    l.lower_rank = l.upper_rank = rank;
    return l;
  }
  if (hi == ranks.begin()) return std::nullopt;  // below the smallest rank
  const auto lo = hi - 1;
  const double w = static_cast<double>(rank - lo->rank) / static_cast<double>(hi->rank - lo->rank);
  l.intent_accuracy = lo->test_intent_accuracy + w * (hi->test_intent_accuracy - lo->test_intent_accuracy);
  l.slot_f1 = lo->test_slot_f1 + w * (hi->test_slot_f1 - lo->test_slot_f1);
  l.interpolated = true;
  l.lower_rank = lo->rank;
  l.upper_rank = hi->rank;
  return l;
}

Json AccuracyTable::provenance() const {
  Json listed = Json::array();
  for (const auto& r : ranks) listed.push_back(r.rank);
  return Json{{"file", file},     {"source", source}, {"command", command},
              {"model", model},   {"epochs", epochs}, {"lr", lr},
              {"seed", seed},     {"limit", limit ? Json(*limit) : Json(nullptr)},
              {"ranks", listed}};
}

}  // namespace ttsim::dse
