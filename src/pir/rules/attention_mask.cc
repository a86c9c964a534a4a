#include "pir/rules/attention_mask.h"

#include <algorithm>

namespace az::pir {

std::string_view MaskKindName(MaskKind kind) {
  switch (kind) {
    case MaskKind::kNone: return "none";
    case MaskKind::kCausal: return "causal";
    case MaskKind::kWindow: return "window";
    case MaskKind::kTensor: return "tensor";
  }
  return "none";
}

StatusOr<AttentionMask> ReadAttentionMask(const Attributes& attrs) {
  AttentionMask mask;
  const std::string name = attrs.GetString("mask").value_or("none");
  bool known = false;
  for (MaskKind kind : {MaskKind::kNone, MaskKind::kCausal, MaskKind::kWindow, MaskKind::kTensor}) {
    if (name == MaskKindName(kind)) {
      mask.kind = kind;
      known = true;
    }
  }
  if (!known) return InvalidArgument("attention mask must be none, causal, window or tensor, got '" + name + "'");
  auto window = attrs.GetInt("window");
  if (window && mask.kind != MaskKind::kWindow) return InvalidArgument("attention window needs mask = \"window\"");
  if (mask.kind == MaskKind::kWindow) {
    if (!window || *window < 1) return InvalidArgument("attention mask \"window\" needs a positive window");
    mask.window = *window;
  }
  return mask;
}

int64_t KeptScores(const AttentionMask& mask, int64_t lq, int64_t lk) {
  const int64_t full = lq * lk;
  switch (mask.kind) {
    case MaskKind::kNone:
    case MaskKind::kTensor: return full;
    case MaskKind::kCausal: return lq == lk ? lq * (lq + 1) / 2 : full / 2;
    case MaskKind::kWindow: {
      const int64_t w = mask.window;
      if (lq != lk) return std::min(full, lq * std::min(w, lk));
      if (w >= lq) return lq * (lq + 1) / 2;
      return w * (w + 1) / 2 + (lq - w) * w;
    }
  }
  return full;
}

}  // namespace az::pir
