#include "models/model_reparse.h"

#include <cstdint>
#include <utility>
#include <vector>

namespace ttsim {

namespace {

struct RankChange {
  const std::string* layer;  ///< key in the new document's /overrides
  std::int64_t rank;
};

/// Appends to `out` the rank changes from override object `a` to `b`; false when they
/// differ otherwise (or a rank is not one the fast path takes).
bool override_rank_changes(const std::string& layer, const Json& a, const Json& b, std::vector<RankChange>& out) {
  if (!a.is_object() || !b.is_object() || a.size() != b.size() || b.contains("ranks")) return false;
  for (auto ia = a.begin(), ib = b.begin(); ia != a.end(); ++ia, ++ib) {
    if (ia.key() != ib.key()) return false;
    if (ia.key() != "rank") {
      if (ia.value() != ib.value()) return false;
      continue;
    }
    if (ia.value() == ib.value()) continue;
    if (!ib.value().is_number_integer()) return false;
    const std::int64_t r = ib.value().get<std::int64_t>();
    if (r < 1 || r > kMaxRank) return false;
    out.push_back({&layer, r});
  }
  return true;
}

/// The rank changes from document `a` to `b` when they differ only as
/// ModelReparser takes; false otherwise.
bool rank_changes(const Json& a, const Json& b, std::vector<RankChange>& out) {
  if (!a.is_object() || !b.is_object() || a.size() != b.size()) return false;
  for (auto ia = a.begin(), ib = b.begin(); ia != a.end(); ++ia, ++ib) {
    if (ia.key() != ib.key()) return false;
    if (ia.key() != "overrides") {
      if (ia.value() != ib.value()) return false;
      continue;
    }
    const Json& oa = ia.value();
    const Json& ob = ib.value();
    if (!oa.is_object() || !ob.is_object() || oa.size() != ob.size()) return false;
    for (auto la = oa.begin(), lb = ob.begin(); la != oa.end(); ++la, ++lb) {
      if (la.key() != lb.key()) return false;
      if (la.value() == lb.value()) continue;
      if (!override_rank_changes(lb.key(), la.value(), lb.value(), out)) return false;
    }
  }
  return true;
}

}  // namespace

std::shared_ptr<const ModelSpec> ModelReparser::parse(const std::shared_ptr<const Json>& doc,
                                                      const std::string& file) {
  if (doc && spec_ && doc == shared_ && file == file_) return spec_;
  static const Json null;
  shared_.reset();  // until the parse below succeeds
  auto spec = parse(doc ? *doc : null, file);
  shared_ = doc;
  return spec;
}

std::shared_ptr<const ModelSpec> ModelReparser::parse(const Json& doc, const std::string& file) {
  shared_.reset();  // doc_ is about to change
  thread_local std::vector<RankChange> changes;
  changes.clear();
  if (spec_ && file == file_ && rank_changes(doc_, doc, changes)) {
    if (changes.empty()) return spec_;
    std::vector<LinearLayerSpec*> layers;
    layers.reserve(changes.size());
    for (const RankChange& c : changes) {
      LinearLayerSpec* found = nullptr;
      for (LinearLayerSpec& l : spec_->linears) {
        if (l.name == *c.layer) found = &l;
      }
      if (!found || found->format != WeightFormat::kTT) {
        layers.clear();
        break;
      }
      layers.push_back(found);
    }
    if (layers.size() == changes.size()) {
      if (spec_.use_count() > 1) {  // a caller still holds the previous result: copy it
        const std::ptrdiff_t n = static_cast<std::ptrdiff_t>(layers.size());
        std::vector<std::ptrdiff_t> at(n);
        for (std::ptrdiff_t i = 0; i < n; ++i) at[i] = layers[i] - spec_->linears.data();
        spec_ = std::make_shared<ModelSpec>(*spec_);
        for (std::ptrdiff_t i = 0; i < n; ++i) layers[i] = spec_->linears.data() + at[i];
      }
      for (std::size_t i = 0; i < changes.size(); ++i) {
        std::vector<std::int64_t>& r = layers[i]->tt.ranks;
        std::fill(r.begin(), r.end(), changes[i].rank);
        r.front() = 1;
        r.back() = 1;
        doc_["overrides"][*changes[i].layer]["rank"] = changes[i].rank;
      }
      return spec_;
    }
  }
  spec_ = std::make_shared<ModelSpec>(parse_model_spec(doc, file));
  doc_ = doc;
  file_ = file;
  return spec_;
}

}  // namespace ttsim
