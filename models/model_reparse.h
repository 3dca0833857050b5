#pragma once
// Parsing the model documents of a design-space sweep one after another. Neighbouring
// points of a sweep with per-layer rank axes differ only in the TT rank of a few layer
// overrides ("overrides": {"enc1.ffn_out": {"rank": 8}}); parsing each whole document again
// (parse_model_spec: every key, type and factor product validated) costs several
// microseconds per point, changing the ranks of the previous result a few hundred
// nanoseconds.

#include <memory>
#include <string>

#include "core/json_view.h"
#include "models/model_spec.h"

namespace ttsim {

/// parse_model_spec over a sequence of documents, reusing the previous result where the
/// new document differs from the previous one only in integer "rank" members of
/// /overrides/<layer> objects (same keys, every other member equal), the layer being a TT
/// layer, the rank in 1..4096 and the object without "ranks": those layers get the uniform
/// rank list [1, r, ..., r, 1] over their cores, as parse_model_spec gives. Any other
/// difference (and every rank the check above does not cover, so that parse_model_spec
/// reports its error) is a full parse. Not thread-safe: keep one per thread.
class ModelReparser {
 public:
  /// parse_model_spec(doc, file): the same value, same errors (InputError / ConfigError).
  /// The result stays valid while the caller holds it; the next call may reuse its storage
  /// only once no caller holds it.
  std::shared_ptr<const ModelSpec> parse(const Json& doc, const std::string& file);
  /// parse(*doc, file) for a shared document that is never changed: the last result again,
  /// without reading the document, when it is the object last parsed (kept alive here, so
  /// its address names no other document meanwhile).
  std::shared_ptr<const ModelSpec> parse(const std::shared_ptr<const Json>& doc, const std::string& file);

 private:
  Json doc_;                          ///< the document spec_ is the parse of
  std::string file_;
  std::shared_ptr<ModelSpec> spec_;  ///< null before the first parse
  std::shared_ptr<const Json> shared_;  ///< the shared document doc_ was copied from, if any
};

}  // namespace ttsim
