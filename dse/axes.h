#pragma once
// The named sweep axes and how each one edits the base model and arch documents.
//
//   model axes: tt_rank (every TT layer kind), tt_rank.<kind> (kind = attention, ffn_in,
//               ffn_out), ttm_rank (token embedding), encoders
//   arch axes : flow, flow.<kind> (mm | tt | btt), engines, lanes (contraction engines),
//               policy (sequential | parallel), parallel_merges, qkv_reschedule, fusion,
//               memory_strategy (naive | grouped), clock_mhz, sequence_length
//               (padded | effective)
//   generic   : "model:<JSON pointer>" and "arch:<JSON pointer>" set any member.
// The documents' own loaders (parse_model_spec, parse_arch_spec) validate the result.

#include <string>
#include <vector>

#include "core/json_view.h"

namespace ttsim::dse {

/// Canonical order of the named axes (the order of the point's mixed-radix digits).
const std::vector<std::string>& named_axes();

/// True for a named axis or a well-formed "model:/..." / "arch:/..." axis.
bool is_known_axis(const std::string& name);

/// Checks one value of axis `name` (type and range); throws ConfigError at `v`.
void validate_axis_value(const std::string& name, const JsonView& v);

/// Sets axis `name` to `value` in the model or arch document.
/// Throws InputError when the document lacks the member the axis edits.
void apply_axis(const std::string& name, const Json& value, Json& model, Json& arch);

/// The value axis `name` has in the (resolved) documents, e.g. the attention layers'
/// rank for tt_rank; null when the documents do not hold it (a dense layer's rank).
Json axis_current_value(const std::string& name, const Json& model, const Json& arch);

}  // namespace ttsim::dse
