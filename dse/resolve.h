#pragma once
// Turns a point id of a sweep into concrete configuration documents.

#include "dse/evaluator.h"
#include "dse/sweep_spec.h"

namespace ttsim::dse {

/// The base model and arch documents of `sweep` with every axis value of point `id`
/// applied in axis order (base values untouched). Throws InputError when a base
/// document lacks a member an axis edits.
PointConfig resolve_point(const SweepSpec& sweep, PointId id);

}  // namespace ttsim::dse
