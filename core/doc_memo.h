#pragma once
// The results of parsing the most recently seen JSON documents: a design-space sweep
// resolves every point to a model and an arch document, and neighbouring points share
// them (an arch axis leaves the model document as it was), so each distinct document is
// parsed once while it stays among the recent ones.

#include <cstddef>
#include <functional>
#include <list>
#include <memory>
#include <string>
#include <utility>

#include "core/json_view.h"

namespace ttsim {

/// The results of `parse(doc, file)` for the `Capacity` most recently used (document,
/// file) pairs. A result is returned only for a document equal to the one it was parsed
/// from (nlohmann::json equality, every member and value) and the same file name, so a
/// memoized parse returns what the parse function would. A parse that throws is not kept.
/// Not thread-safe: keep one per thread (thread_local).
template <typename T, std::size_t Capacity>
class DocMemo {
 public:
  /// The parse of (doc, file): the kept one when an equal document from the same file was
  /// parsed recently, else `parse(doc, file)` (whose exceptions propagate), kept. The
  /// result stays valid while the caller holds it, whatever is evicted later.
  template <typename Parse>
  std::shared_ptr<const T> get(const Json& doc, const std::string& file, Parse&& parse) {
    return lookup(doc, file, parse, nullptr);
  }
  /// get(*doc, file, parse) for a shared document that is never changed: an entry last
  /// found for this very object is returned without reading the document (the entry keeps
  /// the object alive, so its address names no other document meanwhile).
  template <typename Parse>
  std::shared_ptr<const T> get(const std::shared_ptr<const Json>& doc, const std::string& file, Parse&& parse) {
    for (auto it = entries_.begin(); doc && it != entries_.end(); ++it) {
      if (it->shared != doc || it->file != file) continue;
      entries_.splice(entries_.begin(), entries_, it);
      return entries_.front().value;
    }
    static const Json null;
    return lookup(doc ? *doc : null, file, parse, doc);
  }

 private:
  struct Entry {
    std::size_t hash;
    Json doc;
    std::string file;
    std::shared_ptr<const T> value;
    std::shared_ptr<const Json> shared;  ///< the shared document last found equal to `doc`, if any
  };

  template <typename Parse>
  std::shared_ptr<const T> lookup(const Json& doc, const std::string& file, Parse& parse,
                                  const std::shared_ptr<const Json>& shared) {
    // The document's hash (nlohmann's, over every member and value) first: one walk of it,
    // and a full comparison only with an entry of the same hash.
    const std::size_t hash = std::hash<Json>{}(doc);
    for (auto it = entries_.begin(); it != entries_.end(); ++it) {
      if (it->hash != hash || it->file != file || it->doc != doc) continue;
      if (shared) it->shared = shared;
      entries_.splice(entries_.begin(), entries_, it);
      return entries_.front().value;
    }
    auto value = std::make_shared<const T>(parse(doc, file));
    entries_.push_front({hash, doc, file, value, shared});
    if (entries_.size() > Capacity) entries_.pop_back();
    return value;
  }

  std::list<Entry> entries_;  // most recently used first
};

}  // namespace ttsim
