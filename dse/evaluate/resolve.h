#pragma once
// Turns a point id of a sweep into concrete configuration documents.

#include <vector>

#include "dse/evaluate/evaluator.h"
#include "dse/space/sweep_spec.h"

namespace ttsim::dse {

/// The base model and arch documents of `sweep` with every axis value of point `id`
/// applied in axis order (base values untouched). Throws InputError when a base
/// document lacks a member an axis edits.
PointConfig resolve_point(const SweepSpec& sweep, PointId id);

/// A descriptive name of point `id`: the base model's name followed by one token per
/// axis on which the point has a swept (not base) value, in axis order, except an axis
/// whose single value equals the base documents' (a constant of the sweep), e.g.
/// "atis_2enc-r4-btt-96lanes-grouped" (tt_rank r4, flow btt, lanes 96lanes,
/// memory_strategy grouped; clock_mhz 200mhz, engines 2engines, fusion fusion /
/// no_fusion, tt_rank.<kind> <kind>_r4, flow.<kind> <kind>_btt, ttm_rank ttm_r4,
/// sequence_length effective_length, model:/arch: pointers <last key>_<value>). The
/// encoders axis rewrites a "<N>enc" in the model name ("atis_2enc" -> "atis_4enc"),
/// else adds "<N>enc". Characters other than letters, digits, '_', '.' and '-' become
/// '_'. Throws as resolve_point.
std::string point_name(const SweepSpec& sweep, PointId id);
/// point_name of point `id` already resolved as `resolved` (resolve_point(sweep, id)).
std::string point_name(const SweepSpec& sweep, PointId id, const PointConfig& resolved);
/// point_name of point `id` from its axis values in the resolved documents, one per axis
/// in axis order (axis_current_value of each, as ResultRow::values holds them). Throws
/// std::out_of_range when `values` has fewer entries than the sweep has axes.
std::string point_name(const SweepSpec& sweep, PointId id, const std::vector<Json>& values);

}  // namespace ttsim::dse
