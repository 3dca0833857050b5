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
    // The document's hash (nlohmann's, over every member and value) first: one walk of it,
    // and a full comparison only with an entry of the same hash.
    const std::size_t hash = std::hash<Json>{}(doc);
    for (auto it = entries_.begin(); it != entries_.end(); ++it) {
      if (it->hash != hash || it->file != file || it->doc != doc) continue;
      entries_.splice(entries_.begin(), entries_, it);
      return entries_.front().value;
    }
    auto value = std::make_shared<const T>(parse(doc, file));
    entries_.push_front({hash, doc, file, value});
    if (entries_.size() > Capacity) entries_.pop_back();
    return value;
  }

 private:
  struct Entry {
    std::size_t hash;
    Json doc;
    std::string file;
    std::shared_ptr<const T> value;
  };
  std::list<Entry> entries_;  // most recently used first
};

}  // namespace ttsim
