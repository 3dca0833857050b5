#pragma once
// A discrete design space: named axes, each with a list of JSON values, enumerated as
// a mixed-radix grid (the last axis varies fastest), plus explicitly listed extra
// points (such as the reference design) whose unlisted axes keep the base files' values.
//
// Every point has a stable 64-bit id: grid points 0 .. grid_size()-1 in mixed-radix
// order, extra points grid_size() + k. Ids order every output, so results do not
// depend on evaluation order, thread count or sharding.

#include <cstdint>
#include <string>
#include <vector>

#include "core/json_view.h"

namespace ttsim::dse {

/// One swept parameter.
struct Axis {
  std::string name;         ///< "tt_rank", "encoders", "arch:/clock_mhz", ...
  std::vector<Json> values; ///< at least one
};

/// Index into an axis' values, or kBaseValue for "as in the base file".
constexpr int kBaseValue = -1;

/// Id of a design point (see file comment).
using PointId = std::uint64_t;

/// The grid of a sweep: the axes' value lists and the mixed-radix mapping between a
/// PointId and one value index per axis. Throws InputError from the constructor when the
/// grid has more than 2^62 points.
class DesignSpace {
 public:
  DesignSpace() = default;
  /// Throws InputError when an axis is empty or the grid has more than 2^62 points.
  explicit DesignSpace(std::vector<Axis> axes);

  const std::vector<Axis>& axes() const { return axes_; }
  /// Number of grid points: the product of the axis sizes (1 with no axes).
  std::uint64_t grid_size() const { return grid_size_; }
  /// Grid points plus extra points.
  std::uint64_t size() const { return grid_size_ + extras_.size(); }

  /// Adds an explicit point (one index per axis, kBaseValue allowed) flagged as a
  /// reference. When every index is a real value the point is the grid point with
  /// those indices and only the flag is added. Returns its id.
  PointId add_reference(const std::vector<int>& indices, const std::string& label);

  /// Axis value indices of point `id` (kBaseValue for base values of extra points).
  /// Throws std::out_of_range for id >= size().
  std::vector<int> decode(PointId id) const;
  /// Id of the grid point with these indices (all >= 0).
  PointId encode(const std::vector<int>& indices) const;

  /// True when `id` was added with add_reference; `label` receives its label.
  bool is_reference(PointId id, std::string* label = nullptr) const;
  /// Reference point ids in the order they were added.
  const std::vector<PointId>& references() const { return reference_ids_; }

  /// Value of axis `axis` at point `id`, or nullptr for a base value.
  const Json* value(PointId id, std::size_t axis) const;
  /// "name=value name=value ..." with "base" for base values.
  std::string describe(PointId id) const;

 private:
  std::vector<Axis> axes_;
  std::uint64_t grid_size_ = 1;
  std::vector<std::vector<int>> extras_;
  std::vector<PointId> reference_ids_;
  std::vector<std::string> reference_labels_;
};

/// Compact text of a JSON scalar for labels and CSV cells: strings unquoted.
std::string value_text(const Json& v);

}  // namespace ttsim::dse
