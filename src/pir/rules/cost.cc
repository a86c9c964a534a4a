#include "pir/rules/cost.h"

#include "pir/rules/attention_mask.h"
#include "pir/rules/families.h"
#include "pir/rules/rule.h"

namespace az::pir {

OpCost& OpCost::operator+=(const OpCost& o) {
  matmul += o.matmul;
  attention += o.attention;
  other += o.other;
  bytes_read += o.bytes_read;
  bytes_written += o.bytes_written;
  return *this;
}

namespace {

int64_t EinsumMacs(const TensorType& a, const TensorType& b, const std::string& eq_text, bool* contracts) {
  auto eq = ParseEinsumEquation(eq_text);
  if (!eq.ok()) return 0;
  std::string letters;
  int64_t product = 1;
  auto visit = [&](const std::string& term, const TensorType& t) {
    for (size_t d = 0; d < term.size() && d < t.shape.size(); ++d) {
      if (letters.find(term[d]) != std::string::npos) continue;
      letters += term[d];
      product *= t.shape[d];
    }
  };
  visit(eq->inputs[0], a);
  visit(eq->inputs[1], b);
  *contracts = letters.size() > eq->output.size();
  return product;
}

}  // namespace

OpCost ComputeOpCost(OpKind kind, const std::vector<TensorType>& operands, const std::vector<TensorType>& results,
                     const Attributes& attrs) {
  OpCost cost;
  for (const TensorType& t : operands) cost.bytes_read += Bytes(t.NumBytes());
  for (const TensorType& t : results) cost.bytes_written += Bytes(t.NumBytes());
  const OpKindInfo& info = GetOpKindInfo(kind);
  int64_t out_elements = results.empty() ? 0 : results[0].NumElements();
  switch (info.family) {
    case OpFamily::kEinsum: {
      bool contracts = false;
      int64_t macs = EinsumMacs(operands[0], operands[1],
                                attrs.GetString("eq").value_or(""), &contracts);
      cost.matmul = Flops(contracts ? 2 * macs : macs);
      if (operands.size() == 3) cost.other = Flops(out_elements);
      break;
    }
    case OpFamily::kAttention: {
      const Shape& q = operands[0].shape;
      const Shape& k = operands[1].shape;
      // B * H * the kept scores of one head (attention_mask.h: a causal
      // kernel computes about half of Lq * Lk); an unreadable mask prices
      // every score.
      StatusOr<AttentionMask> read = ReadAttentionMask(attrs);
      const AttentionMask mask = read.ok() ? *read : AttentionMask{};
      int64_t scores = q[0] * q[2] * KeptScores(mask, q[1], k[1]);
      cost.attention = Flops(4 * scores * q[3]);
      // A mask operand: one more add (or select) per score.
      cost.other = Flops((operands.size() == 4 ? 6 : 5) * scores);
      break;
    }
    case OpFamily::kAttentionGrad: {
      const Shape& q = operands[0].shape;
      const Shape& k = operands[1].shape;
      const int64_t value_dim = operands[2].shape[3];
      int64_t scores = q[0] * q[2] * q[1] * k[1];  // B * H * Lq * Lk
      cost.attention = Flops(2 * scores * (3 * q[3] + 2 * value_dim));
      cost.other = Flops(5 * scores + 2 * q[0] * q[1] * q[2] * value_dim);
      break;
    }
    case OpFamily::kNormGrad: {
      int64_t per_element = info.element_flops + static_cast<int64_t>(operands.size()) - 2;
      cost.other = Flops(per_element * out_elements);
      break;
    }
    case OpFamily::kConv: {
      const Shape& x = operands[0].shape;
      const Shape& w = operands[1].shape;
      int64_t kernel = w[2] * w[3] * w[4];
      // out_elements = B * O * prod(out spatial)
      cost.matmul = Flops(2 * out_elements * x[1] * kernel);
      if (operands.size() == 3) cost.other = Flops(out_elements);
      break;
    }
    case OpFamily::kNorm: {
      // Affine adds one multiply (weight) and one add (bias) per element.
      int64_t per_element = info.element_flops + static_cast<int64_t>(operands.size()) - 1;
      cost.other = Flops(per_element * out_elements);
      break;
    }
    case OpFamily::kReduce:
      cost.other = Flops(info.element_flops * operands[0].NumElements());
      break;
    case OpFamily::kCustom:
      cost.other = Flops(attrs.GetInt("flops").value_or(0));
      break;
    default:
      cost.other = Flops(info.element_flops * out_elements);
      break;
  }
  return cost;
}

OpCost ComputeOpCost(const Graph& graph, const Op& op) {
  return ComputeOpCost(op.kind, OperandTypes(graph, op), ResultTypes(graph, op), op.attrs);
}

OpCost ComputeGraphCost(const Graph& graph) {
  OpCost total;
  for (const Op& op : graph.ops()) total += ComputeOpCost(graph, op);
  return total;
}

std::vector<int64_t> ProblemDims(OpKind kind, const std::vector<TensorType>& operands,
                                 const std::vector<TensorType>& results, const Attributes& attrs) {
  switch (GetOpKindInfo(kind).family) {
    case OpFamily::kEinsum: {
      if (operands.size() < 2) return {};
      auto eq = ParseEinsumEquation(attrs.GetString("eq").value_or(""));
      if (!eq.ok() || eq->inputs.size() != 2) return {};
      const std::string &lhs = eq->inputs[0], &rhs = eq->inputs[1], &out = eq->output;
      int64_t batch = 1, m = 1, n = 1, k = 1;
      std::string seen;
      auto visit = [&](const std::string& term, const TensorType& t) {
        for (size_t d = 0; d < term.size() && d < t.shape.size(); ++d) {
          char letter = term[d];
          if (seen.find(letter) != std::string::npos) continue;
          seen += letter;
          bool in_lhs = lhs.find(letter) != std::string::npos, in_rhs = rhs.find(letter) != std::string::npos;
          bool in_out = out.find(letter) != std::string::npos;
          int64_t size = t.shape[d];
          if (in_lhs && in_rhs) {
            (in_out ? batch : k) *= size;
          } else if (in_out) {
            (in_lhs ? m : n) *= size;
          } else {
            k *= size;  // summed out of one operand alone: still a reduction
          }
        }
      };
      visit(lhs, operands[0]);
      visit(rhs, operands[1]);
      return {batch, m, n, k};
    }
    case OpFamily::kAttention:
    case OpFamily::kAttentionGrad: {
      if (operands.size() < 2 || operands[0].shape.size() != 4 || operands[1].shape.size() != 4) return {};
      const Shape& q = operands[0].shape;
      return {q[0] * q[2], q[1], operands[1].shape[1], q[3]};
    }
    case OpFamily::kConv: {
      if (operands.size() < 2 || results.empty() || operands[0].shape.size() != 5 || operands[1].shape.size() != 5) {
        return {};
      }
      const Shape& w = operands[1].shape;
      int64_t out_channels = w[0];
      int64_t rows = out_channels > 0 ? results[0].NumElements() / out_channels : 0;
      return {1, rows, out_channels, operands[0].shape[1] * w[2] * w[3] * w[4]};
    }
    default:
      return {};
  }
}

}  // namespace az::pir
