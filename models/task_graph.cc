#include "models/task_graph.h"

#include <algorithm>
#include <array>
#include <cstring>

#include <string>

#include "hls/include/kernel_spec.h"

namespace ttsim {

const char* to_string(BufferClass c) {
  switch (c) {
    case BufferClass::kParameter: return "parameter";
    case BufferClass::kGradient: return "gradient";
    case BufferClass::kActivation: return "activation";
    case BufferClass::kTemporary: return "temporary";
  }
  return "?";
}

const char* to_string(Stage s) {
  switch (s) {
    case Stage::kForward: return "forward";
    case Stage::kBackward: return "backward";
    case Stage::kUpdate: return "update";
  }
  return "?";
}

const char* to_string(UnitKind u) {
  switch (u) {
    case UnitKind::kContraction: return "contraction";
    case UnitKind::kSoftmax: return "softmax";
    case UnitKind::kLayerNorm: return "layernorm";
    case UnitKind::kGelu: return "gelu";
    case UnitKind::kElementwise: return "elementwise";
    case UnitKind::kLoss: return "loss";
    case UnitKind::kUpdate: return "update";
  }
  return "?";
}

const char* to_string(TaskOp op) {
  switch (op) {
    case TaskOp::kContraction: return "contraction";
    case TaskOp::kSoftmax: return "softmax";
    case TaskOp::kSoftmaxGrad: return "softmax_grad";
    case TaskOp::kLayerNorm: return "layernorm";
    case TaskOp::kLayerNormGrad: return "layernorm_grad";
    case TaskOp::kGelu: return "gelu";
    case TaskOp::kGeluGrad: return "gelu_grad";
    case TaskOp::kAdd: return "add";
    case TaskOp::kLoss: return "loss";
    case TaskOp::kSgdUpdate: return "sgd_update";
  }
  return "?";
}

bool task_op_named(const char* name, TaskOp* op) {
  for (int k = 0; k < kTaskOpCount; ++k) {
    const TaskOp o = static_cast<TaskOp>(k);
    if (std::strcmp(to_string(o), name) == 0) {
      *op = o;
      return true;
    }
  }
  return false;
}

UnitKind unit_of(TaskOp op) {
  switch (op) {
    case TaskOp::kContraction: return UnitKind::kContraction;
    case TaskOp::kSoftmax:
    case TaskOp::kSoftmaxGrad: return UnitKind::kSoftmax;
    case TaskOp::kLayerNorm:
    case TaskOp::kLayerNormGrad: return UnitKind::kLayerNorm;
    case TaskOp::kGelu:
    case TaskOp::kGeluGrad: return UnitKind::kGelu;
    case TaskOp::kAdd: return UnitKind::kElementwise;
    case TaskOp::kLoss: return UnitKind::kLoss;
    case TaskOp::kSgdUpdate: return UnitKind::kUpdate;
  }
  return UnitKind::kElementwise;
}

const std::vector<TaskOp>& ops_of_unit(UnitKind k) {
  constexpr int kUnits = static_cast<int>(UnitKind::kUpdate) + 1;
  static const std::array<std::vector<TaskOp>, kUnits> ops = [] {
    std::array<std::vector<TaskOp>, kUnits> by_unit;
    for (int i = 0; i < kTaskOpCount; ++i) by_unit[static_cast<int>(unit_of(static_cast<TaskOp>(i)))].push_back(static_cast<TaskOp>(i));
    return by_unit;
  }();
  return ops.at(static_cast<std::size_t>(k));
}

int task_variant(TaskOp op, int variant, const std::vector<int>& reads, const std::vector<int>& writes) {
  if (op != TaskOp::kContraction) return variant;
  for (int w : writes) {
    if (std::find(reads.begin(), reads.end(), w) != reads.end()) return ttsim_spec::accumulating_variant(variant);
  }
  return variant;
}

}  // namespace ttsim
