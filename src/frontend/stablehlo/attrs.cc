// Attribute readers over token trees (importer.h).
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>

#include "frontend/stablehlo/importer.h"

namespace az::frontend::shlo {

namespace {
using K = TokenKind;

std::optional<int64_t> TreeInt(const Tree& tree) {
  if (tree.kind != K::kInt) return std::nullopt;
  const std::string& s = tree.spelling;
  int64_t value = 0;
  if (s.size() > 2 && s[0] == '0' && s[1] == 'x') {
    uint64_t bits = 0;
    auto [ptr, ec] = std::from_chars(s.data() + 2, s.data() + s.size(), bits, 16);
    if (ec != std::errc() || ptr != s.data() + s.size()) return std::nullopt;
    return static_cast<int64_t>(bits);
  }
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc() || ptr != s.data() + s.size()) return std::nullopt;
  return value;
}

// The `<...>` body of `dense<...>` / `array<...>` among the trees.
const Tree* AngleAfter(const Trees& trees, std::string_view word) {
  for (size_t i = 0; i + 1 < trees.size(); ++i) {
    if (trees[i].IsIdent(word) && trees[i + 1].kind == K::kLAngle) return &trees[i + 1];
  }
  return nullptr;
}

std::optional<std::vector<int64_t>> IntList(const Trees& children) {
  std::vector<int64_t> values;
  for (const Tree& tree : children) {
    if (tree.kind == K::kComma) continue;
    auto v = TreeInt(tree);
    if (!v) return std::nullopt;
    values.push_back(*v);
  }
  return values;
}

double DecodeHex(uint64_t bits, pir::DType dtype) {
  switch (dtype) {
    case pir::DType::kF64: {
      double d;
      std::memcpy(&d, &bits, sizeof d);
      return d;
    }
    case pir::DType::kF32: {
      auto b = static_cast<uint32_t>(bits);
      float f;
      std::memcpy(&f, &b, sizeof f);
      return f;
    }
    case pir::DType::kBF16: {
      uint32_t b = static_cast<uint32_t>(bits & 0xFFFF) << 16;
      float f;
      std::memcpy(&f, &b, sizeof f);
      return f;
    }
    case pir::DType::kF16: {
      uint32_t sign = (bits >> 15) & 1, exponent = (bits >> 10) & 0x1F, mantissa = bits & 0x3FF;
      double value =
          exponent == 0x1F
              ? (mantissa ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity())
          : exponent == 0 ? std::ldexp(static_cast<double>(mantissa), -24)
                          : std::ldexp(static_cast<double>(mantissa | 0x400), static_cast<int>(exponent) - 25);
      return sign ? -value : value;
    }
    default: return static_cast<double>(static_cast<int64_t>(bits));
  }
}
}  // namespace

std::optional<int64_t> IntOf(const Trees& trees) {
  if (trees.empty()) return std::nullopt;
  return TreeInt(trees[0]);
}

std::optional<double> FloatOf(const Tree& tree) {
  if (tree.kind != K::kFloat && tree.kind != K::kInt) return std::nullopt;
  double value = 0;
  auto [ptr, ec] = std::from_chars(tree.spelling.data(), tree.spelling.data() + tree.spelling.size(), value);
  if (ec != std::errc() || ptr != tree.spelling.data() + tree.spelling.size()) return std::nullopt;
  return value;
}

std::optional<std::vector<int64_t>> IntsOf(const Trees& trees) {
  if (trees.empty()) return std::nullopt;
  if (trees[0].kind == K::kLBracket) return IntList(trees[0].children);
  if (const Tree* body = AngleAfter(trees, "array")) {
    // array<i64: 1, 2> or array<i64>
    const Trees& c = body->children;
    if (c.size() == 1) return std::vector<int64_t>{};
    if (c.size() < 2 || c[1].kind != K::kColon) return std::nullopt;
    return IntList(Trees(c.begin() + 2, c.end()));
  }
  if (const Tree* body = AngleAfter(trees, "dense")) {
    if (body->children.size() == 1 && body->children[0].kind == K::kLBracket)
      return IntList(body->children[0].children);
    if (body->children.size() == 1) {
      auto v = TreeInt(body->children[0]);
      if (v) return std::vector<int64_t>{*v};
    }
  }
  return std::nullopt;
}

std::optional<std::vector<std::vector<int64_t>>> Ints2DOf(const Trees& trees) {
  const Tree* list = nullptr;
  if (const Tree* body = AngleAfter(trees, "dense")) {
    if (body->children.size() == 1 && body->children[0].kind == K::kLBracket) list = &body->children[0];
  } else if (!trees.empty() && trees[0].kind == K::kLBracket) {
    list = &trees[0];
  }
  if (!list) return std::nullopt;
  std::vector<std::vector<int64_t>> rows;
  for (const Tree& row : list->children) {
    if (row.kind == K::kComma) continue;
    if (row.kind != K::kLBracket) return std::nullopt;
    auto values = IntList(row.children);
    if (!values) return std::nullopt;
    rows.push_back(std::move(*values));
  }
  return rows;
}

std::optional<std::string> StringOf(const Trees& trees) {
  if (trees.empty() || trees[0].kind != K::kString) return std::nullopt;
  return trees[0].text;
}

std::optional<Trees> BodyValue(const Trees& body, std::string_view key) {
  for (size_t i = 0; i + 1 < body.size(); ++i) {
    if (!body[i].IsIdent(key) || body[i + 1].kind != K::kEqual) continue;
    Trees value;
    for (size_t j = i + 2; j < body.size() && body[j].kind != K::kComma; ++j) value.push_back(body[j]);
    return value;
  }
  return std::nullopt;
}

std::optional<Trees> OpAttr(const Operation& op, std::string_view key) {
  if (const NamedAttr* attr = FindAttr(op.properties, key)) return attr->value;
  if (const NamedAttr* attr = FindAttr(op.attrs, key)) return attr->value;
  return BodyValue(op.body, key);
}

namespace {
std::optional<std::string> FindWordIn(const Trees& trees, std::initializer_list<std::string_view> words, int depth) {
  if (depth > 8) return std::nullopt;
  for (const Tree& tree : trees) {
    if (tree.kind == K::kIdent) {
      for (std::string_view word : words) {
        if (tree.text == word) return tree.text;
      }
    }
    if (!tree.children.empty()) {
      if (auto found = FindWordIn(tree.children, words, depth + 1)) return found;
    }
  }
  return std::nullopt;
}
}  // namespace

std::optional<std::string> FindWord(const Trees& trees, std::initializer_list<std::string_view> words) {
  return FindWordIn(trees, words, 0);
}

std::optional<double> SplatOf(const Trees& trees, pir::DType dtype) {
  const Tree* body = AngleAfter(trees, "dense");
  if (!body || body->children.size() != 1) return std::nullopt;
  const Tree& v = body->children[0];
  if (v.IsIdent("true")) return 1.0;
  if (v.IsIdent("false")) return 0.0;
  if (v.kind == K::kInt && v.spelling.size() > 2 && v.spelling[1] == 'x') {
    auto bits = TreeInt(v);
    if (!bits) return std::nullopt;
    return DecodeHex(static_cast<uint64_t>(*bits), dtype);
  }
  return FloatOf(v);
}

bool DotDimsOf(const Operation& op, std::vector<int64_t>* lb, std::vector<int64_t>* rb, std::vector<int64_t>* lc,
               std::vector<int64_t>* rc) {
  auto pair = [](const Trees& value, std::vector<int64_t>* l, std::vector<int64_t>* r) {
    std::vector<std::vector<int64_t>> lists;
    for (const Tree& t : value) {
      if (t.kind == K::kLBracket) lists.push_back(IntList(t.children).value_or(std::vector<int64_t>{}));
    }
    if (lists.size() != 2) return false;
    *l = lists[0];
    *r = lists[1];
    return true;
  };
  if (auto contract = BodyValue(op.body, "contracting_dims")) {
    if (!pair(*contract, lc, rc)) return false;
    if (auto batch = BodyValue(op.body, "batching_dims")) return pair(*batch, lb, rb);
    return true;
  }
  auto dn = OpAttr(op, "dot_dimension_numbers");
  if (!dn) return false;
  for (const Tree& t : *dn) {
    if (t.kind != K::kLAngle) continue;
    *lb = IntsOf(BodyValue(t.children, "lhs_batching_dimensions").value_or(Trees{})).value_or(*lb);
    *rb = IntsOf(BodyValue(t.children, "rhs_batching_dimensions").value_or(Trees{})).value_or(*rb);
    *lc = IntsOf(BodyValue(t.children, "lhs_contracting_dimensions").value_or(Trees{})).value_or(*lc);
    *rc = IntsOf(BodyValue(t.children, "rhs_contracting_dimensions").value_or(Trees{})).value_or(*rc);
    return true;
  }
  return false;
}

std::vector<std::string> PrettyOperands(const Operation& op) {
  std::vector<std::string> names;
  for (const Tree& tree : op.body) {
    if (tree.kind == K::kValueRef) names.push_back(tree.text);
    if (tree.kind != K::kLParen) continue;
    for (size_t i = 0; i < tree.children.size(); ++i) {
      const Tree& child = tree.children[i];
      if (child.kind != K::kValueRef) continue;
      if (i + 1 < tree.children.size() && tree.children[i + 1].kind == K::kEqual) continue;  // a definition
      names.push_back(child.text);
    }
  }
  return names;
}

}  // namespace az::frontend::shlo
