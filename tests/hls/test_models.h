#pragma once
// Models shared by the tests that run the HLS kernels: the small 2-encoder model and the
// path of a shipped model preset in the test's runfiles.

#include <cstdlib>
#include <string>

#include "core/json_view.h"
#include "models/model_spec.h"

namespace ttsim::testing {

/// The small model's document with `encoders` encoders: d_model 12, 3 heads, FFN 16, seq_len
/// 6; a 2-core TTM, a 2+2-core attention layer, a 3+2-core FFN-in and a 2+1-core FFN-out
/// (e = 1: no right merge); dense heads. Named "tiny_<encoders>enc".
inline Json tiny_doc(int encoders) {
  Json doc = Json::parse(R"({
    "name": "tiny_2enc", "encoders": 2, "d_model": 12, "heads": 3, "ffn_dim": 16,
    "seq_len": 6, "batch": 1, "vocab": 20, "intents": 5, "slot_tags": 7,
    "token_embedding": {"format": "ttm", "vocab_factors": [4, 5], "dim_factors": [3, 4], "rank": 3},
    "layers": {
      "attention": {"format": "tt", "in_factors": [3, 4], "out_factors": [4, 3], "rank": 3},
      "ffn_in": {"format": "tt", "in_factors": [2, 2, 3], "out_factors": [4, 4], "rank": 2},
      "ffn_out": {"format": "tt", "in_factors": [4, 4], "out_factors": [12], "rank": 3},
      "intent_head": {"format": "dense"},
      "slot_head": {"format": "dense"}
    }
  })");
  doc["name"] = "tiny_" + std::to_string(encoders) + "enc";
  doc["encoders"] = encoders;
  return doc;
}

/// The small model of tiny_doc(encoders).
inline ModelSpec tiny_spec(int encoders) {
  const Json doc = tiny_doc(encoders);
  return parse_model_spec(doc, doc["name"].get<std::string>() + ".json");
}

/// tiny_spec(2), the small 2-encoder model.
inline ModelSpec tiny_2enc_spec() { return tiny_spec(2); }

/// tiny_spec(3) with the encoders' TT ranks uneven (per-layer overrides): encoder 0 at rank 1,
/// encoder 1 at rank 3 and encoder 2 at rank 2 in every linear layer, so that each arena's
/// share of a recomputing step's encoder region is another encoder's. Named "tiny_uneven".
inline ModelSpec tiny_uneven_spec() {
  Json doc = tiny_doc(3);
  doc["name"] = "tiny_uneven";
  const int ranks[3] = {1, 3, 2};
  for (int e = 0; e < 3; ++e) {
    for (const char* l : {"q", "k", "v", "o", "ffn_in", "ffn_out"}) {
      doc["overrides"]["enc" + std::to_string(e) + "." + l] = {{"rank", ranks[e]}};
    }
  }
  return parse_model_spec(doc, "tiny_uneven.json");
}

/// A small model whose rank-1 ends keep their plain form (the rows are not the longer side):
/// a 3-core TTM with e_3 = 4 = e_1·e_2 (hls/kernels/ttm_embedding.h ttm_last_transposed) and
/// an attention layer with r·n_1 = 6 < n_2 = 8 (tt_linear.h btt_right_end_transposed); its
/// FFN-in layer (r·n_1 = 8 > n_2 = 4) runs transposed. d_model 16, 4 heads, seq_len 5.
/// Its document (tiny_plain_ends_spec parses it).
inline Json tiny_plain_ends_doc() {
  return Json::parse(R"({
    "name": "tiny_plain_ends", "encoders": 1, "d_model": 16, "heads": 4, "ffn_dim": 16,
    "seq_len": 5, "batch": 1, "vocab": 20, "intents": 5, "slot_tags": 7,
    "token_embedding": {"format": "ttm", "vocab_factors": [2, 2, 5], "dim_factors": [2, 2, 4], "rank": 3},
    "layers": {
      "attention": {"format": "tt", "in_factors": [4, 4], "out_factors": [2, 8], "rank": 3},
      "ffn_in": {"format": "tt", "in_factors": [4, 4], "out_factors": [4, 4], "rank": 2},
      "ffn_out": {"format": "tt", "in_factors": [4, 4], "out_factors": [16], "rank": 3},
      "intent_head": {"format": "dense"},
      "slot_head": {"format": "dense"}
    }
  })");
}

/// The model of tiny_plain_ends_doc().
inline ModelSpec tiny_plain_ends_spec() { return parse_model_spec(tiny_plain_ends_doc(), "tiny_plain_ends.json"); }

/// A small model whose TTM embedding has four cores, its last step transposed
/// (Epre(3) = 8 > e_4·r_4 = 2), and a TTM rank (15) high enough that the embedding's
/// temporaries (up to K·Epre(3)·r_3 = 600 words) are larger than the activations of act
/// (480 words) and out, so the embedding sets those arrays' sizes (model_step.h make_layout).
/// d_model 16, 4 heads, seq_len 5, one encoder. (At rank 13 or 16 the key bias's gradient,
/// zero in exact arithmetic, shows FP32 noise above the 1e-4 every gradient is held to by
/// model_step_test; every other tensor is within it.)
inline ModelSpec tiny_ttm4_spec() {
  Json doc = tiny_plain_ends_doc();  // its encoder and heads, a square attention layer
  doc["name"] = "tiny_ttm4";
  doc["vocab"] = 24;
  doc["token_embedding"] = Json::parse(
      R"({"format": "ttm", "vocab_factors": [2, 2, 2, 3], "dim_factors": [2, 2, 2, 2], "rank": 15})");
  doc["layers"]["attention"]["out_factors"] = Json::array({4, 4});
  return parse_model_spec(doc, "tiny_ttm4.json");
}

/// Path of configs/models/<name> in the test's runfiles (the target needs
/// data = ["//configs:models"]).
inline std::string model_preset_path(const std::string& name) {
  const char* dir = std::getenv("TEST_SRCDIR");
  const char* ws = std::getenv("TEST_WORKSPACE");
  return std::string(dir ? dir : ".") + "/" + (ws ? ws : "ttsim") + "/configs/models/" + name;
}

}  // namespace ttsim::testing
