// Op kinds and their static facts, generated from ops.def.
#pragma once

#include <optional>
#include <string_view>

namespace az::pir {

enum class OpFamily {
  kEinsum,
  kAttention,
  kConv,
  kNorm,
  kUnary,
  kBinary,
  kRope,
  kSoftmax,
  kBroadcast,
  kReshape,
  kTranspose,
  kConcat,
  kSlice,
  kReduce,
  kGather,
  kResize,
  kCustom,
  kFull,
  kAttentionGrad,
  kNormGrad,
};

enum class OpKind {
#define AZ_PIR_OP(Enum, Name, Family, MinOperands, MaxOperands, ElementFlops) Enum,
#include "pir/ir/ops.def"
#undef AZ_PIR_OP
};

struct OpKindInfo {
  OpKind kind;
  std::string_view name;
  OpFamily family;
  int min_operands;
  int max_operands;  // -1: any number
  int element_flops;  // FLOPs per output element of element-wise work
};

const OpKindInfo& GetOpKindInfo(OpKind kind);
std::string_view OpKindName(OpKind kind);
std::optional<OpKind> ParseOpKind(std::string_view name);
// All kinds, in table order.
const OpKindInfo* AllOpKinds(int* count);

}  // namespace az::pir
