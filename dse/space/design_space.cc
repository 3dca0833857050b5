#include "dse/space/design_space.h"

#include <stdexcept>

#include "core/errors.h"

namespace ttsim::dse {

std::string value_text(const Json& v) {
  if (v.is_string()) return v.get<std::string>();
  return v.dump();
}

DesignSpace::DesignSpace(std::vector<Axis> axes) : axes_(std::move(axes)) {
  grid_size_ = 1;
  for (const auto& a : axes_) {
    if (a.values.empty()) throw InputError("axis \"" + a.name + "\" has no values");
    if (grid_size_ > (std::uint64_t{1} << 62) / a.values.size()) {
      throw InputError("the design space has more than 2^62 grid points");
    }
    grid_size_ *= a.values.size();
  }
}

PointId DesignSpace::add_reference(const std::vector<int>& indices, const std::string& label) {
  if (indices.size() != axes_.size()) throw std::invalid_argument("reference: wrong index count");
  bool all_values = true;
  for (std::size_t i = 0; i < indices.size(); ++i) {
    if (indices[i] == kBaseValue) {
      all_values = false;
    } else if (indices[i] < 0 || static_cast<std::size_t>(indices[i]) >= axes_[i].values.size()) {
      throw std::out_of_range("reference: index out of range");
    }
  }
  PointId id;
  if (all_values) {
    id = encode(indices);
  } else {
    id = grid_size_ + extras_.size();
    for (std::size_t k = 0; k < extras_.size(); ++k) {
      if (extras_[k] == indices) id = grid_size_ + k;
    }
    if (id == grid_size_ + extras_.size()) extras_.push_back(indices);
  }
  for (std::size_t k = 0; k < reference_ids_.size(); ++k) {
    if (reference_ids_[k] == id) return id;
  }
  reference_ids_.push_back(id);
  reference_labels_.push_back(label);
  return id;
}

std::vector<int> DesignSpace::decode(PointId id) const {
  if (id >= grid_size_) {
    if (id - grid_size_ >= extras_.size()) throw std::out_of_range("point id out of range");
    return extras_[id - grid_size_];
  }
  std::vector<int> idx(axes_.size());
  for (std::size_t i = axes_.size(); i-- > 0;) {
    const std::uint64_t n = axes_[i].values.size();
    idx[i] = static_cast<int>(id % n);
    id /= n;
  }
  return idx;
}

PointId DesignSpace::encode(const std::vector<int>& indices) const {
  PointId id = 0;
  for (std::size_t i = 0; i < axes_.size(); ++i) {
    id = id * axes_[i].values.size() + static_cast<std::uint64_t>(indices.at(i));
  }
  return id;
}

bool DesignSpace::is_reference(PointId id, std::string* label) const {
  for (std::size_t k = 0; k < reference_ids_.size(); ++k) {
    if (reference_ids_[k] == id) {
      if (label) *label = reference_labels_[k];
      return true;
    }
  }
  return false;
}

const Json* DesignSpace::value(PointId id, std::size_t axis) const {
  const int i = decode(id).at(axis);
  return i == kBaseValue ? nullptr : &axes_[axis].values[i];
}

std::string DesignSpace::describe(PointId id) const {
  const auto idx = decode(id);
  std::string out;
  for (std::size_t i = 0; i < axes_.size(); ++i) {
    if (i) out += ' ';
    out += axes_[i].name + "=" +
           (idx[i] == kBaseValue ? std::string("base") : value_text(axes_[i].values[idx[i]]));
  }
  return out;
}

}  // namespace ttsim::dse
