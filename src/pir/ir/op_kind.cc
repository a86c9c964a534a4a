#include "pir/ir/op_kind.h"

#include "support/status.h"

namespace az::pir {

namespace {
constexpr OpKindInfo kOpKinds[] = {
#define AZ_PIR_OP(Enum, Name, Family, MinOperands, MaxOperands, ElementFlops) \
  {OpKind::Enum, Name, OpFamily::k##Family, MinOperands, MaxOperands, ElementFlops},
#include "pir/ir/ops.def"
#undef AZ_PIR_OP
};
constexpr int kNumOpKinds = sizeof(kOpKinds) / sizeof(kOpKinds[0]);
}  // namespace

const OpKindInfo& GetOpKindInfo(OpKind kind) {
  int index = static_cast<int>(kind);
  AZ_CHECK(index >= 0 && index < kNumOpKinds);
  return kOpKinds[index];
}

std::string_view OpKindName(OpKind kind) { return GetOpKindInfo(kind).name; }

std::optional<OpKind> ParseOpKind(std::string_view name) {
  for (const OpKindInfo& info : kOpKinds) {
    if (info.name == name) return info.kind;
  }
  return std::nullopt;
}

const OpKindInfo* AllOpKinds(int* count) {
  *count = kNumOpKinds;
  return kOpKinds;
}

}  // namespace az::pir
