// XLA's cost rules per HLO opcode (hlo_cost.h). Size (680 lines): one table
// of opcodes with the convolution, dot and custom-call rules it calls, kept
// together so the table and its rules are checked against each other.
#include "compile/xla/hlo_cost.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <optional>
#include <unordered_set>

namespace az::compile::xla {
namespace {

const HloShape kEmpty{};

const HloShape& Leaf0(const HloShape& s) {
  const HloShape* p = &s;
  int guard = 0;
  while (p->is_tuple && !p->elements.empty() && ++guard < kMaxHloNesting) p = &p->elements[0];
  return p->is_tuple ? kEmpty : *p;
}

const HloShape& OperandShape(const HloInstruction& instr, const std::vector<HloShape>& shapes, size_t j) {
  if (j >= instr.operands.size()) return kEmpty;
  return shapes[instr.operands[j]];
}

std::string Unquote(std::string_view v) {
  if (v.size() >= 2 && v.front() == '"' && v.back() == '"') v = v.substr(1, v.size() - 2);
  return std::string(v);
}

std::vector<int64_t> Ints(const HloInstruction& instr, std::string_view name) {
  const HloAttribute* a = instr.Attr(name);
  if (!a) return {};
  auto v = ParseIntList(*a, nullptr);
  return v.ok() ? *v : std::vector<int64_t>{};
}

// cir::Instruction::precision from a matrix kernel's lhs: its HLO element
// type when PIR names it ("f32", "bf16", "f16"), else bf16.
pir::DType PrecisionOf(const HloShape& lhs) {
  std::optional<pir::DType> dtype = pir::ParseDType(lhs.type);
  return dtype && pir::IsFloat(*dtype) ? *dtype : pir::DType::kBF16;
}

int64_t DimProduct(const HloShape& s, const std::vector<int64_t>& idx) {
  int64_t p = 1;
  for (int64_t i : idx) {
    if (i >= 0 && i < static_cast<int64_t>(s.dims.size()) && s.dims[i] > 0) p *= s.dims[i];
  }
  return p;
}

// An integer value after `key` in a backend config, in JSON ("key":"80",
// \"key\":80) or MLIR dict (key = 80 : i64) spelling.
std::optional<int64_t> ConfigInt(std::string_view text, std::string_view key) {
  size_t pos = 0;
  while ((pos = text.find(key, pos)) != std::string_view::npos) {
    size_t i = pos + key.size();
    bool boundary_before =
        pos == 0 || !(std::isalnum(static_cast<unsigned char>(text[pos - 1])) || text[pos - 1] == '_');
    bool boundary_after = i >= text.size() || !(std::isalnum(static_cast<unsigned char>(text[i])) || text[i] == '_');
    pos = i;
    if (!boundary_before || !boundary_after) continue;
    while (i < text.size() && (text[i] == '"' || text[i] == '\\' || text[i] == ' ')) ++i;
    if (i >= text.size() || (text[i] != ':' && text[i] != '=')) continue;
    ++i;
    while (i < text.size() && (text[i] == '"' || text[i] == '\\' || text[i] == ' ')) ++i;
    int64_t v = 0;
    auto [ptr, ec] = std::from_chars(text.data() + i, text.data() + text.size(), v);
    if (ec == std::errc()) return v;
  }
  return std::nullopt;
}

std::vector<int64_t> ConfigIntList(std::string_view text, std::string_view key) {
  size_t pos = text.find(key);
  if (pos == std::string_view::npos) return {};
  size_t open = text.find('[', pos), close = text.find(']', pos);
  if (open == std::string_view::npos || close == std::string_view::npos || close < open) return {};
  std::vector<int64_t> out;
  size_t i = open + 1;
  while (i < close) {
    if (std::isdigit(static_cast<unsigned char>(text[i]))) {
      int64_t v = 0;
      auto [ptr, ec] = std::from_chars(text.data() + i, text.data() + close, v);
      if (ec != std::errc()) break;
      out.push_back(v);
      i = static_cast<size_t>(ptr - text.data());
    } else {
      ++i;
    }
  }
  return out;
}

bool IsElementwise(std::string_view op) {
  static const std::unordered_set<std::string_view> kOps = {"abs",
                                                            "add",
                                                            "and",
                                                            "atan2",
                                                            "cbrt",
                                                            "ceil",
                                                            "clamp",
                                                            "clz",
                                                            "compare",
                                                            "complex",
                                                            "convert",
                                                            "cosine",
                                                            "divide",
                                                            "erf",
                                                            "exponential",
                                                            "exponential-minus-one",
                                                            "floor",
                                                            "imag",
                                                            "is-finite",
                                                            "log",
                                                            "log-plus-one",
                                                            "logistic",
                                                            "maximum",
                                                            "minimum",
                                                            "multiply",
                                                            "negate",
                                                            "not",
                                                            "or",
                                                            "popcnt",
                                                            "power",
                                                            "real",
                                                            "reduce-precision",
                                                            "remainder",
                                                            "round-nearest-afz",
                                                            "round-nearest-even",
                                                            "rsqrt",
                                                            "select",
                                                            "shift-left",
                                                            "shift-right-arithmetic",
                                                            "shift-right-logical",
                                                            "sign",
                                                            "sine",
                                                            "sqrt",
                                                            "subtract",
                                                            "tan",
                                                            "tanh",
                                                            "xor",
                                                            "stochastic-convert",
                                                            "rng",
                                                            "rng-bit-generator",
                                                            "map"};
  return kOps.count(op) > 0;
}

bool IsDataMovement(std::string_view op) {
  static const std::unordered_set<std::string_view> kOps = {"broadcast",
                                                            "transpose",
                                                            "copy",
                                                            "concatenate",
                                                            "pad",
                                                            "slice",
                                                            "dynamic-slice",
                                                            "dynamic-update-slice",
                                                            "gather",
                                                            "reverse",
                                                            "iota",
                                                            "reshape",
                                                            "bitcast-convert"};
  return kOps.count(op) > 0;
}

int64_t ReducerOps(const HloModule& module, const HloInstruction& instr) {
  const HloAttribute* a = instr.Attr("to_apply");
  if (!a) return 1;
  auto names = ParseNameList(*a, nullptr);
  if (!names.ok()) return 1;
  const HloComputation* c = module.Find(names->front());
  if (!c) return 1;
  int64_t n = 0;
  for (const HloInstruction& i : c->instructions) {
    if (!IsAliasOpcode(i.opcode)) ++n;
  }
  return std::max<int64_t>(n, 1);
}

// Convolution: labels and window.
struct ConvDims {
  int lhs_b = 0, lhs_f = 1, rhs_i = 1, rhs_o = 0;
  std::vector<int> lhs_spatial, rhs_spatial, out_spatial;
};

ConvDims ParseDimLabels(std::string_view labels, size_t rank) {
  ConvDims d;
  // Default (no dim_labels): bf01_oi01->bf01.
  std::string text = labels.empty() ? std::string("bf") : std::string(labels);
  if (labels.empty()) {
    for (size_t i = 2; i < rank; ++i) text += static_cast<char>('0' + (i - 2));
    text += "_oi";
    for (size_t i = 2; i < rank; ++i) text += static_cast<char>('0' + (i - 2));
    text += "->bf";
    for (size_t i = 2; i < rank; ++i) text += static_cast<char>('0' + (i - 2));
  }
  size_t us = text.find('_'), arrow = text.find("->");
  if (us == std::string::npos || arrow == std::string::npos || arrow < us) return d;
  std::string lhs = text.substr(0, us), rhs = text.substr(us + 1, arrow - us - 1), out = text.substr(arrow + 2);
  auto spatial = [](const std::string& s, std::vector<int>& v) {
    std::vector<std::pair<int, int>> digits;
    for (size_t i = 0; i < s.size(); ++i) {
      if (std::isdigit(static_cast<unsigned char>(s[i]))) digits.push_back({s[i] - '0', static_cast<int>(i)});
    }
    std::sort(digits.begin(), digits.end());
    for (auto& [digit, pos] : digits) v.push_back(pos);
  };
  d.lhs_b = static_cast<int>(lhs.find('b'));
  d.lhs_f = static_cast<int>(lhs.find('f'));
  d.rhs_i = static_cast<int>(rhs.find('i'));
  d.rhs_o = static_cast<int>(rhs.find('o'));
  spatial(lhs, d.lhs_spatial);
  spatial(rhs, d.rhs_spatial);
  spatial(out, d.out_spatial);
  return d;
}

struct WindowDim {
  int64_t size = 1, stride = 1, pad_lo = 0, lhs_dilate = 1, rhs_dilate = 1;
};

std::vector<WindowDim> ParseWindow(std::string_view text) {
  // {size=3x3 stride=2x2 pad=1_1x1_1 lhs_dilate=1x1 rhs_dilate=1x1}
  std::vector<WindowDim> dims;
  auto field = [&](std::string_view key) -> std::vector<std::string> {
    std::vector<std::string> out;
    size_t pos = text.find(std::string(key) + "=");
    if (pos == std::string_view::npos) return out;
    if (pos > 0 && (std::isalnum(static_cast<unsigned char>(text[pos - 1])) || text[pos - 1] == '_')) return out;
    size_t i = pos + key.size() + 1;
    size_t end = i;
    while (end < text.size() && text[end] != ' ' && text[end] != '}') ++end;
    std::string_view v = text.substr(i, end - i);
    size_t start = 0;
    for (size_t k = 0; k <= v.size(); ++k) {
      if (k == v.size() || v[k] == 'x') {
        out.emplace_back(v.substr(start, k - start));
        start = k + 1;
      }
    }
    return out;
  };
  auto num = [](const std::string& s) {
    int64_t v = 0;
    std::from_chars(s.data(), s.data() + s.size(), v);
    return v;
  };
  std::vector<std::string> size = field("size"), stride = field("stride"), pad = field("pad"),
                           lhs = field("lhs_dilate"), rhs = field("rhs_dilate");
  dims.resize(size.size());
  for (size_t i = 0; i < size.size(); ++i) {
    dims[i].size = std::max<int64_t>(num(size[i]), 1);
    if (i < stride.size()) dims[i].stride = std::max<int64_t>(num(stride[i]), 1);
    if (i < pad.size()) dims[i].pad_lo = num(pad[i].substr(0, pad[i].find('_')));
    if (i < lhs.size()) dims[i].lhs_dilate = std::max<int64_t>(num(lhs[i]), 1);
    if (i < rhs.size()) dims[i].rhs_dilate = std::max<int64_t>(num(rhs[i]), 1);
  }
  return dims;
}

// Output-position x kernel-position pairs that hit the input along one dim.
double ValidPairs(int64_t in, int64_t k, int64_t out, const WindowDim& w) {
  if (in <= 0 || k <= 0 || out <= 0) return 0;
  if (static_cast<double>(out) * static_cast<double>(k) > 1e7) return static_cast<double>(out) * k;
  int64_t count = 0, last = (in - 1) * w.lhs_dilate;
  for (int64_t o = 0; o < out; ++o) {
    for (int64_t kk = 0; kk < k; ++kk) {
      int64_t pos = o * w.stride - w.pad_lo + kk * w.rhs_dilate;
      if (pos < 0 || pos > last || pos % w.lhs_dilate != 0) continue;
      ++count;
    }
  }
  return static_cast<double>(count);
}

KernelCost ConvolutionCost(const HloInstruction& instr, const std::vector<HloShape>& shapes, const HloShape& out) {
  KernelCost c;
  c.kind = cir::KernelKind::kConvolution;
  const HloShape& lhs = Leaf0(OperandShape(instr, shapes, 0));
  const HloShape& rhs = Leaf0(OperandShape(instr, shapes, 1));
  const HloShape& res = Leaf0(out);
  const HloAttribute* labels = instr.Attr("dim_labels");
  ConvDims d = ParseDimLabels(labels ? std::string_view(labels->value) : std::string_view(), lhs.dims.size());
  const HloAttribute* window = instr.Attr("window");
  std::vector<WindowDim> w = ParseWindow(window ? std::string_view(window->value) : std::string_view());
  auto dim = [](const HloShape& s, int i) -> int64_t {
    return i >= 0 && i < static_cast<int>(s.dims.size()) ? std::max<int64_t>(s.dims[i], 0) : 1;
  };
  int64_t fgc = 1, bgc = 1;
  if (const HloAttribute* a = instr.Attr("feature_group_count"))
    std::from_chars(a->value.data(), a->value.data() + a->value.size(), fgc);
  if (const HloAttribute* a = instr.Attr("batch_group_count"))
    std::from_chars(a->value.data(), a->value.data() + a->value.size(), bgc);
  fgc = std::max<int64_t>(fgc, 1);
  bgc = std::max<int64_t>(bgc, 1);
  double pairs = 1, out_spatial = 1, kernel_volume = 1;
  for (size_t s = 0; s < d.lhs_spatial.size() && s < d.rhs_spatial.size() && s < d.out_spatial.size(); ++s) {
    WindowDim wd = s < w.size() ? w[s] : WindowDim{};
    int64_t k = dim(rhs, d.rhs_spatial[s]);
    wd.size = k;
    int64_t o = dim(res, d.out_spatial[s]);
    pairs *= ValidPairs(dim(lhs, d.lhs_spatial[s]), k, o, wd);
    out_spatial *= static_cast<double>(o);
    kernel_volume *= static_cast<double>(k);
  }
  double in_features = static_cast<double>(dim(lhs, d.lhs_f)), out_features = static_cast<double>(dim(rhs, d.rhs_o));
  double batch = static_cast<double>(dim(lhs, d.lhs_b));
  c.flops = 2.0 * (in_features / static_cast<double>(fgc)) * out_features * (batch / static_cast<double>(bgc)) * pairs;
  c.dims = {1, static_cast<int64_t>(batch / static_cast<double>(bgc) * out_spatial), static_cast<int64_t>(out_features),
            static_cast<int64_t>(in_features / static_cast<double>(fgc) * kernel_volume)};
  c.precision = PrecisionOf(lhs);
  return c;
}

// A matmul from its operands and lhs contracting / batch dims (a dot, or a
// GEMM library call): 2 x result x contracted flops, dims {batch, m, n, k}.
KernelCost MatmulCost(const HloInstruction& instr, const std::vector<HloShape>& shapes, const HloShape& out,
                      const std::vector<int64_t>& contracting, const std::vector<int64_t>& batch_dims) {
  KernelCost c;
  c.kind = cir::KernelKind::kMatmul;
  const HloShape& lhs = Leaf0(OperandShape(instr, shapes, 0));
  const HloShape& rhs = Leaf0(OperandShape(instr, shapes, 1));
  int64_t k = DimProduct(lhs, contracting), batch = DimProduct(lhs, batch_dims);
  c.flops = 2.0 * static_cast<double>(Leaf0(out).Elements()) * static_cast<double>(k);
  c.precision = PrecisionOf(lhs);
  int64_t bk = std::max<int64_t>(batch * k, 1);
  c.dims = {batch, lhs.Elements() / bk, rhs.Elements() / bk, k};
  return c;
}

KernelCost DotCost(const HloInstruction& instr, const std::vector<HloShape>& shapes, const HloShape& out) {
  return MatmulCost(instr, shapes, out, Ints(instr, "lhs_contracting_dims"), Ints(instr, "lhs_batch_dims"));
}

KernelCost AttentionCost(int64_t batch, int64_t heads, int64_t sq, int64_t skv, int64_t dqk, int64_t dv, bool causal,
                         bool backward) {
  KernelCost c;
  c.kind = cir::KernelKind::kAttention;
  c.flops = 2.0 * static_cast<double>(batch) * static_cast<double>(heads) * static_cast<double>(sq) *
            static_cast<double>(skv) * static_cast<double>(dqk + dv);
  if (causal) c.flops /= 2;
  if (backward) c.flops *= 2.5;
  c.dims = {batch * heads, sq, skv, dqk};
  return c;
}

KernelCost CustomCallCost(const HloInstruction& instr, const std::vector<HloShape>& shapes, const HloShape& out) {
  const HloAttribute* t = instr.Attr("custom_call_target");
  std::string target = t ? Unquote(t->value) : "";
  const HloAttribute* b = instr.Attr("backend_config");
  std::string_view config = b ? std::string_view(b->value) : std::string_view();
  KernelCost c;
  c.kind = cir::KernelKind::kCustom;
  if (target.rfind("te_fused_attn", 0) == 0) {
    auto get = [&](std::string_view key) { return ConfigInt(config, key).value_or(0); };
    int64_t mask = get("mask_type");
    return AttentionCost(get("input_batch"), get("attn_heads"), get("q_max_seqlen"), get("kv_max_seqlen"),
                         get("qk_head_dim"), get("v_head_dim"), mask >= 2 && mask <= 5,
                         target.find("backward") != std::string::npos);
  }
  if (target.rfind("__cudnn$fmha", 0) == 0 || target.rfind("__cudnn$fhma", 0) == 0) {
    const HloShape& q = Leaf0(OperandShape(instr, shapes, 0));
    const HloShape& k = Leaf0(OperandShape(instr, shapes, 1));
    std::vector<int64_t> batch_dims = ConfigIntList(config, "lhs_batch_dimensions");
    std::vector<int64_t> contract = ConfigIntList(config, "lhs_contracting_dimensions");
    if (batch_dims.empty() && q.dims.size() == 4) batch_dims = {0, 1};  // [B, H, S, D]
    if (contract.empty() && !q.dims.empty()) contract = {static_cast<int64_t>(q.dims.size()) - 1};
    int64_t bh = DimProduct(q, batch_dims), d = DimProduct(q, contract);
    int64_t sq = q.Elements() / std::max<int64_t>(bh * d, 1), skv = k.Elements() / std::max<int64_t>(bh * d, 1);
    bool backward = target.find("ackward") != std::string::npos;
    bool causal = target.find("ausal") != std::string::npos || config.find("CAUSAL") != std::string_view::npos;
    KernelCost attention = AttentionCost(bh, 1, sq, skv, d, d, causal, backward);
    attention.precision = PrecisionOf(q);
    return attention;
  }
  if (target.find("gemm") != std::string::npos || target.find("matmul") != std::string::npos) {
    // cuBLAS: the dot dimension numbers are in the backend config; without
    // them, the lhs's last dim is contracted.
    const HloShape& lhs = Leaf0(OperandShape(instr, shapes, 0));
    std::vector<int64_t> contract = ConfigIntList(config, "lhs_contracting_dimensions");
    if (contract.empty() && !lhs.dims.empty()) contract = {static_cast<int64_t>(lhs.dims.size()) - 1};
    return MatmulCost(instr, shapes, out, contract, ConfigIntList(config, "lhs_batch_dimensions"));
  }
  if (target.rfind("__cudnn$conv", 0) == 0) return ConvolutionCost(instr, shapes, out);
  c.note = "custom call '" + target + "': cost unknown, priced by the bytes it moves";
  return c;
}

}  // namespace

bool IsAliasOpcode(std::string_view op) {
  static const std::unordered_set<std::string_view> kOps = {
      "parameter",          "constant",           "get-tuple-element",    "tuple",        "bitcast",    "reshape",
      "after-all",          "opt-barrier",        "add-dependency",       "partition-id", "replica-id", "domain",
      "get-dimension-size", "set-dimension-size", "optimization-barrier", "async-update"};
  return kOps.count(op) > 0;
}

bool IsHeavyOpcode(std::string_view op) {
  static const std::unordered_set<std::string_view> kOps = {"dot",
                                                            "convolution",
                                                            "custom-call",
                                                            "fusion",
                                                            "sort",
                                                            "scatter",
                                                            "while",
                                                            "call",
                                                            "conditional",
                                                            "all-reduce",
                                                            "all-gather",
                                                            "reduce-scatter",
                                                            "all-to-all",
                                                            "collective-permute",
                                                            "collective-broadcast",
                                                            "ragged-all-to-all",
                                                            "send",
                                                            "recv",
                                                            "send-done",
                                                            "recv-done",
                                                            "infeed",
                                                            "outfeed",
                                                            "triangular-solve",
                                                            "cholesky",
                                                            "fft",
                                                            "top-k"};
  if (kOps.count(op)) return true;
  return op.ends_with("-start") || op.ends_with("-done") || op.ends_with("-update");
}

std::vector<HloShape> ComputationShapes(const HloComputation& comp) {
  std::vector<HloShape> shapes(comp.instructions.size());
  std::vector<char> known(comp.instructions.size(), 0);
  for (size_t i = 0; i < comp.instructions.size(); ++i) {
    if (comp.instructions[i].has_shape) {
      shapes[i] = comp.instructions[i].shape;
      known[i] = 1;
    }
  }
  // Inference needs the operands' shapes; two sweeps cover text written out of order.
  for (int sweep = 0; sweep < 2; ++sweep) {
    for (size_t i = 0; i < comp.instructions.size(); ++i) {
      if (known[i]) continue;
      const HloInstruction& in = comp.instructions[i];
      bool ready = std::all_of(in.operands.begin(), in.operands.end(), [&](int o) { return known[o] != 0; });
      if (!ready) continue;
      HloShape s;
      if (in.opcode == "get-tuple-element" && !in.operands.empty()) {
        const HloShape& t = shapes[in.operands[0]];
        int64_t index = 0;
        if (const HloAttribute* a = in.Attr("index"))
          std::from_chars(a->value.data(), a->value.data() + a->value.size(), index);
        if (t.is_tuple && index >= 0 && index < static_cast<int64_t>(t.elements.size())) s = t.elements[index];
      } else if (in.opcode == "tuple") {
        s.is_tuple = true;
        for (int o : in.operands) s.elements.push_back(shapes[o]);
      } else if (in.opcode.ends_with("-done") && !in.operands.empty()) {
        const HloShape& t = shapes[in.operands[0]];
        s = t.is_tuple && t.elements.size() >= 2 ? t.elements[1] : t;
      } else if (!in.operands.empty()) {
        s = shapes[in.operands[0]];
        if (in.opcode == "compare" && !s.is_tuple) s.type = "pred";
      }
      shapes[i] = std::move(s);
      known[i] = 1;
    }
  }
  return shapes;
}

int64_t OperandReadBytes(const HloInstruction& instr, const std::vector<HloShape>& shapes, int operand) {
  if (operand < 0 || operand >= static_cast<int>(instr.operands.size())) return 0;
  int64_t full = shapes[instr.operands[operand]].Bytes();
  const std::string& op = instr.opcode;
  if (operand == 0 && (op == "dynamic-update-slice" || op == "scatter")) return 0;  // written in place
  return full;
}

int64_t WrittenBytes(const HloInstruction& instr, const std::vector<HloShape>& shapes, int self) {
  const std::string& op = instr.opcode;
  if (op == "dynamic-update-slice" && instr.operands.size() > 1) return shapes[instr.operands[1]].Bytes();
  if (op == "scatter" && instr.operands.size() > 2) return shapes[instr.operands[2]].Bytes();
  return shapes[self].Bytes();
}

namespace {

// Slicing ops read only their slice of operand 0.
int64_t SlicedRead(const HloInstruction& instr, const std::vector<HloShape>& shapes, int self, int operand) {
  const std::string& op = instr.opcode;
  if (operand == 0 && (op == "slice" || op == "dynamic-slice" || op == "gather")) {
    return std::min(shapes[self].Bytes(), OperandReadBytes(instr, shapes, operand));
  }
  return OperandReadBytes(instr, shapes, operand);
}

}  // namespace

KernelCost InstructionCost(const HloModule& module, const HloComputation& comp, const std::vector<HloShape>& shapes,
                           int index) {
  const HloInstruction& in = comp.instructions[index];
  const HloShape& out = shapes[index];
  KernelCost c;
  const std::string& op = in.opcode;
  if (op == "dot") {
    c = DotCost(in, shapes, out);
  } else if (op == "convolution") {
    c = ConvolutionCost(in, shapes, out);
  } else if (op == "custom-call") {
    c = CustomCallCost(in, shapes, out);
  } else if (op == "reduce") {
    c.kind = cir::KernelKind::kReduce;
    const HloShape& input = Leaf0(OperandShape(in, shapes, 0));
    int64_t inputs = std::max<int64_t>(static_cast<int64_t>(in.operands.size()) / 2, 1);
    c.flops = static_cast<double>(std::max<int64_t>(input.Elements() - Leaf0(out).Elements(), 0)) *
              static_cast<double>(ReducerOps(module, in) * inputs);
  } else if (op == "reduce-window") {
    c.kind = cir::KernelKind::kReduce;
    const HloAttribute* w = in.Attr("window");
    double window = 1;
    for (const WindowDim& d : ParseWindow(w ? std::string_view(w->value) : std::string_view())) window *= d.size;
    c.flops = static_cast<double>(Leaf0(out).Elements()) * window * static_cast<double>(ReducerOps(module, in));
  } else if (op == "sort") {
    c.kind = cir::KernelKind::kCustom;
    const HloShape& input = Leaf0(OperandShape(in, shapes, 0));
    std::vector<int64_t> dims = Ints(in, "dimensions");
    int64_t n = dims.empty() ? input.Elements() : DimProduct(input, dims);
    c.flops = static_cast<double>(input.Elements()) * std::ceil(std::log2(std::max<double>(2, static_cast<double>(n))));
  } else if (op == "scatter") {
    c.kind = cir::KernelKind::kCopy;
    c.flops = static_cast<double>(Leaf0(OperandShape(in, shapes, 2)).Elements()) *
              static_cast<double>(ReducerOps(module, in));
  } else if (IsElementwise(op)) {
    c.kind = cir::KernelKind::kElementwise;
    c.flops = static_cast<double>(out.is_tuple ? Leaf0(out).Elements() : out.Elements());
  } else if (IsDataMovement(op)) {
    c.kind = cir::KernelKind::kCopy;
  } else {
    c.kind = cir::KernelKind::kElementwise;
    c.flops = static_cast<double>(Leaf0(out).Elements());
  }
  for (int j = 0; j < static_cast<int>(in.operands.size()); ++j) c.bytes_read += SlicedRead(in, shapes, index, j);
  c.bytes_written = WrittenBytes(in, shapes, index);
  if (op == "scatter") c.bytes_written *= 2;  // read-modify-write of the updated rows
  return c;
}

KernelCost FusionCost(const HloModule& module, const HloComputation& comp, const std::vector<HloShape>& shapes,
                      int index) {
  const HloInstruction& in = comp.instructions[index];
  KernelCost c;
  c.kind = cir::KernelKind::kElementwise;
  const HloComputation* body = nullptr;
  if (const HloAttribute* a = in.Attr("calls")) {
    auto names = ParseNameList(*a, nullptr);
    if (names.ok()) body = module.Find(names->front());
  }
  if (!body) {
    c.bytes_written = shapes[index].Bytes();
    for (int o : in.operands) c.bytes_read += shapes[o].Bytes();
    c.note = "fusion without a known 'calls' computation: priced by its bytes";
    return c;
  }
  std::vector<HloShape> body_shapes = ComputationShapes(*body);
  double best_matrix_flops = -1;
  bool has_reduce = false, has_compute = false;
  for (int i = 0; i < static_cast<int>(body->instructions.size()); ++i) {
    const HloInstruction& b = body->instructions[i];
    if (IsAliasOpcode(b.opcode)) continue;
    KernelCost part = b.opcode == "fusion" ? FusionCost(module, *body, body_shapes, i)
                                           : InstructionCost(module, *body, body_shapes, i);
    c.flops += part.flops;
    if (part.kind == cir::KernelKind::kMatmul || part.kind == cir::KernelKind::kConvolution ||
        part.kind == cir::KernelKind::kAttention) {
      if (part.flops > best_matrix_flops) {
        best_matrix_flops = part.flops;
        c.kind = part.kind;
        c.dims = part.dims;
        c.precision = part.precision;
      }
    }
    if (part.kind == cir::KernelKind::kReduce) has_reduce = true;
    if (part.kind != cir::KernelKind::kCopy) has_compute = true;
  }
  if (best_matrix_flops < 0)
    c.kind = has_reduce    ? cir::KernelKind::kReduce
             : has_compute ? cir::KernelKind::kElementwise
                           : cir::KernelKind::kCopy;
  // Bytes: the output (a dynamic-update-slice root writes its update in
  // place), plus one read per fused parameter, or the slices slicing users take.
  const HloInstruction& root = body->instructions[body->root];
  std::vector<int> roots;
  if (root.opcode == "tuple") {
    roots = root.operands;
  } else {
    roots = {body->root};
  }
  std::unordered_set<int> in_place;
  for (int r : roots) {
    const HloInstruction& ri = body->instructions[r];
    c.bytes_written += WrittenBytes(ri, body_shapes, r);
    if (ri.opcode == "dynamic-update-slice" && !ri.operands.empty()) in_place.insert(ri.operands[0]);
  }
  std::vector<std::vector<std::pair<int, int>>> users(body->instructions.size());
  for (int i = 0; i < static_cast<int>(body->instructions.size()); ++i) {
    const auto& ops = body->instructions[i].operands;
    for (int j = 0; j < static_cast<int>(ops.size()); ++j) users[ops[j]].push_back({i, j});
  }
  for (int i = 0; i < static_cast<int>(body->instructions.size()); ++i) {
    const HloInstruction& p = body->instructions[i];
    if (p.opcode != "parameter") continue;
    int64_t number = -1;
    std::from_chars(p.literal.data(), p.literal.data() + p.literal.size(), number);
    int64_t full = number >= 0 && number < static_cast<int64_t>(in.operands.size())
                       ? shapes[in.operands[number]].Bytes()
                       : body_shapes[i].Bytes();
    if (in_place.count(i) && users[i].size() == 1) continue;
    bool all_slices = !users[i].empty();
    int64_t sliced = 0;
    for (auto [u, j] : users[i]) {
      const std::string& uop = body->instructions[u].opcode;
      if (j == 0 && (uop == "slice" || uop == "dynamic-slice" || uop == "gather")) {
        sliced += body_shapes[u].Bytes();
      } else {
        all_slices = false;
      }
    }
    c.bytes_read += all_slices ? std::min(sliced, full) : full;
  }
  return c;
}

double ComputationFlops(const HloModule& module, const HloComputation& comp, int depth) {
  if (depth > 64) return 0;
  std::vector<HloShape> shapes = ComputationShapes(comp);
  double total = 0;
  auto called = [&](const HloInstruction& in, std::string_view attr) -> const HloComputation* {
    const HloAttribute* a = in.Attr(attr);
    if (!a) return nullptr;
    auto names = ParseNameList(*a, nullptr);
    return names.ok() ? module.Find(names->front()) : nullptr;
  };
  for (int i = 0; i < static_cast<int>(comp.instructions.size()); ++i) {
    const HloInstruction& in = comp.instructions[i];
    if (IsAliasOpcode(in.opcode)) continue;
    if (in.opcode == "fusion") {
      total += FusionCost(module, comp, shapes, i).flops;
    } else if (in.opcode == "while") {
      for (const char* attr : {"body", "condition"}) {
        if (const HloComputation* c = called(in, attr)) total += ComputationFlops(module, *c, depth + 1);
      }
    } else if (in.opcode == "call" || in.opcode == "async-start") {
      const HloComputation* c = called(in, in.opcode == "call" ? "to_apply" : "calls");
      if (c) total += ComputationFlops(module, *c, depth + 1);
    } else if (in.opcode == "conditional") {
      double best = 0;
      for (const HloAttribute& a : in.attributes) {
        if (a.name != "branch_computations" && a.name != "true_computation" && a.name != "false_computation") continue;
        auto names = ParseNameList(a, nullptr);
        if (!names.ok()) continue;
        for (const std::string& n : *names) {
          if (const HloComputation* c = module.Find(n)) best = std::max(best, ComputationFlops(module, *c, depth + 1));
        }
      }
      total += best;
    } else if (!IsHeavyOpcode(in.opcode) || in.opcode == "dot" || in.opcode == "convolution" ||
               in.opcode == "custom-call" || in.opcode == "sort" || in.opcode == "scatter") {
      total += InstructionCost(module, comp, shapes, i).flops;
    }
  }
  return total;
}

}  // namespace az::compile::xla
