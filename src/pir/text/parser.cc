#include "pir/text/parser.h"

#include <algorithm>
#include <map>
#include <set>
#include <unordered_set>
#include <utility>
#include <vector>

#include "pir/text/lexer.h"
#include "support/diagnostic.h"
#include "support/token_parser.h"

namespace az::pir {

namespace {

constexpr int64_t kTextMaxRank = 64;
constexpr int64_t kTextMaxElements = int64_t{1} << 62;
constexpr int64_t kTextMaxBytes = int64_t{1} << 62;
// Keeps line and column numbers and value counts far inside int.
constexpr size_t kMaxInputBytes = size_t{1} << 30;

// A name for a message: bare when it is an identifier, else quoted and escaped
// (so that a message never carries raw control bytes).
std::string ShowName(std::string_view name) { return IsIdentifier(name) ? std::string(name) : QuoteString(name); }

class Parser : public TokenParser<Lexer, Token> {
 public:
  Parser(std::string_view text, std::string file_name) : TokenParser(text, std::move(file_name)) {}

  StatusOr<Graph> Parse() {
    Status status = ParseGraphBody();
    if (!status.ok()) return status;
    return std::move(graph_);
  }

 private:
  // ------------------------------------------------------------ literals

  StatusOr<int64_t> ParseNonNegativeInt(const char* what) {
    Token start = tok_;
    AZ_ASSIGN_OR_RETURN(int64_t value, ParseInt(what));
    if (value < 0) return ErrorAt(start, std::string(what) + " must be non-negative, got " + std::to_string(value));
    return value;
  }


  // ------------------------------------------------------------ values
  // A value number being defined; checks it is new (it is bound later, once
  // the defining statement has created the value).
  StatusOr<int64_t> ParseDefinition(const std::unordered_set<int64_t>& pending) {
    if (!At(TokenKind::kValueRef)) return Expected("a value such as %0");
    AZ_ASSIGN_OR_RETURN(int64_t number, ValueNumber());
    if (ids_.count(number) || pending.count(number)) {
      return ErrorAt(tok_, "value %" + std::to_string(number) + " is defined twice");
    }
    Advance();
    return number;
  }
  StatusOr<ValueId> ParseUse() {
    if (!At(TokenKind::kValueRef)) return Expected("a value such as %0");
    AZ_ASSIGN_OR_RETURN(int64_t number, ValueNumber());
    auto it = ids_.find(number);
    if (it == ids_.end()) return ErrorAt(tok_, "use of undefined value %" + std::to_string(number));
    Advance();
    return it->second;
  }
  StatusOr<int64_t> ValueNumber() const { return RefNumber("integer literal out of range"); }
  StatusOr<std::vector<ValueId>> ParseUseList() {
    std::vector<ValueId> values;
    AZ_ASSIGN_OR_RETURN(ValueId first, ParseUse());
    values.push_back(first);
    while (At(TokenKind::kComma)) {
      Advance();
      AZ_ASSIGN_OR_RETURN(ValueId next, ParseUse());
      values.push_back(next);
    }
    return values;
  }

  // ------------------------------------------------------------ types, shardings
  StatusOr<TensorType> ParseType() {
    if (!At(TokenKind::kIdent)) return Expected("a type such as bf16[8,16]");
    Token dtype_token = tok_;
    std::optional<DType> dtype = ParseDType(tok_.text);
    if (!dtype) return ErrorAt(tok_, "unknown dtype '" + tok_.text + "'");
    Advance();
    AZ_RETURN_IF_ERROR(Expect(TokenKind::kLBracket, "'[' after the dtype"));
    TensorType type{*dtype, {}};
    int64_t nonzero_product = 1;
    while (!At(TokenKind::kRBracket)) {
      if (!type.shape.empty()) AZ_RETURN_IF_ERROR(Expect(TokenKind::kComma, "',' or ']' in the shape"));
      Token dim_token = tok_;
      AZ_ASSIGN_OR_RETURN(int64_t dim, ParseNonNegativeInt("a dimension"));
      if (type.rank() == kTextMaxRank) {
        return ErrorAt(dim_token, "tensor rank exceeds the limit of " + std::to_string(kTextMaxRank),
                       StatusCode::kResourceExhausted);
      }
      // Bounding the product of the nonzero dims bounds every partial product,
      // so TensorType::NumElements cannot overflow whatever the order of dims.
      if (dim > 0 && nonzero_product > kTextMaxElements / dim) {
        return ErrorAt(dim_token, "tensor shape exceeds the limit of 2^62 elements", StatusCode::kResourceExhausted);
      }
      if (dim > 0) nonzero_product *= dim;
      type.shape.push_back(dim);
    }
    Advance();
    if (nonzero_product > kTextMaxBytes / DTypeBytes(type.dtype)) {
      return ErrorAt(dtype_token, "tensor size exceeds the limit of 2^62 bytes", StatusCode::kResourceExhausted);
    }
    return type;
  }

  // '{' (STRING (',' STRING)*)? '}'
  StatusOr<std::vector<std::string>> ParseAxisSet() {
    AZ_RETURN_IF_ERROR(Expect(TokenKind::kLBrace, "'{' to start a list of mesh axes"));
    std::vector<std::string> axes;
    while (!At(TokenKind::kRBrace)) {
      if (!axes.empty()) AZ_RETURN_IF_ERROR(Expect(TokenKind::kComma, "',' or '}' in the axis list"));
      AZ_ASSIGN_OR_RETURN(std::string axis, ParseString("a mesh axis name (a quoted string)"));
      axes.push_back(std::move(axis));
    }
    Advance();
    return axes;
  }

  StatusOr<std::optional<TensorSharding>> ParseOptionalSharding() {
    if (!AtKeyword("sharding")) return std::optional<TensorSharding>();
    Advance();
    AZ_RETURN_IF_ERROR(Expect(TokenKind::kLAngle, "'<' after 'sharding'"));
    TensorSharding sharding;
    if (!At(TokenKind::kMeshRef)) return Expected("a mesh reference such as @m");
    sharding.mesh = std::move(tok_.text);
    Advance();
    AZ_RETURN_IF_ERROR(Expect(TokenKind::kComma, "','"));
    AZ_RETURN_IF_ERROR(Expect(TokenKind::kLBracket, "'[' to start the per-dimension axes"));
    bool first = true;
    while (!At(TokenKind::kRBracket)) {
      if (!first) AZ_RETURN_IF_ERROR(Expect(TokenKind::kComma, "',' or ']' in the per-dimension axes"));
      first = false;
      AZ_ASSIGN_OR_RETURN(std::vector<std::string> axes, ParseAxisSet());
      sharding.dim_axes.push_back(std::move(axes));
    }
    Advance();
    if (At(TokenKind::kComma)) {
      Advance();
      AZ_RETURN_IF_ERROR(ExpectKeyword("replicated"));
      AZ_RETURN_IF_ERROR(Expect(TokenKind::kEqual, "'=' after 'replicated'"));
      AZ_ASSIGN_OR_RETURN(sharding.replicated, ParseAxisSet());
    }
    AZ_RETURN_IF_ERROR(Expect(TokenKind::kRAngle, "'>' to end the sharding"));
    return std::optional<TensorSharding>(std::move(sharding));
  }

  // ------------------------------------------------------------ attributes
  StatusOr<AttrValue> ParseAttrValue() {
    if (At(TokenKind::kInt)) {
      AZ_ASSIGN_OR_RETURN(int64_t value, ParseInt("an integer"));
      return AttrValue(value);
    }
    if (At(TokenKind::kFloat) || AtKeyword("inf") || AtKeyword("nan")) {
      std::optional<double> value = FromChars<double>(tok_.spelling);
      if (!value) return ErrorAt(tok_, "float literal out of range");
      Advance();
      return AttrValue(*value);
    }
    if (At(TokenKind::kString)) {
      AttrValue value(std::move(tok_.text));
      Advance();
      return value;
    }
    if (AtKeyword("true") || AtKeyword("false")) {
      AttrValue value(tok_.text == "true");
      Advance();
      return value;
    }
    if (At(TokenKind::kLBracket)) {
      Advance();
      std::vector<int64_t> list;
      while (!At(TokenKind::kRBracket)) {
        if (!list.empty()) AZ_RETURN_IF_ERROR(Expect(TokenKind::kComma, "',' or ']' in the integer list"));
        AZ_ASSIGN_OR_RETURN(int64_t element, ParseInt("an integer"));
        list.push_back(element);
      }
      Advance();
      return AttrValue(std::move(list));
    }
    return Expected("an attribute value");
  }

  // Entries are collected and inserted in key order at the end, so that a
  // dictionary of n keys costs O(n log n) rather than n sorted inserts.
  Status ParseAttrDict(Attributes* attrs) {
    AZ_RETURN_IF_ERROR(Expect(TokenKind::kLBrace, "'{' to start the attributes"));
    std::vector<std::pair<std::string, AttrValue>> entries;
    std::set<std::string> keys;
    while (!At(TokenKind::kRBrace)) {
      if (!entries.empty()) AZ_RETURN_IF_ERROR(Expect(TokenKind::kComma, "',' or '}' in the attributes"));
      if (!At(TokenKind::kIdent) && !At(TokenKind::kString)) return Expected("an attribute name");
      std::string key = std::move(tok_.text);
      if (!keys.insert(key).second) return ErrorAt(tok_, "duplicate attribute key '" + ShowName(key) + "'");
      Advance();
      AZ_RETURN_IF_ERROR(Expect(TokenKind::kEqual, "'=' after the attribute name"));
      AZ_ASSIGN_OR_RETURN(AttrValue value, ParseAttrValue());
      entries.emplace_back(std::move(key), std::move(value));
    }
    Advance();
    std::sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (auto& [key, value] : entries) attrs->Set(std::move(key), std::move(value));
    return Status::Ok();
  }

  // ------------------------------------------------------------ statements
  Status ParseGraphBody() {
    AZ_RETURN_IF_ERROR(ExpectKeyword("graph"));
    AZ_ASSIGN_OR_RETURN(std::string name, ParseString("the graph name (a quoted string)"));
    graph_.set_name(std::move(name));
    if (AtKeyword("attributes")) {
      Advance();
      AZ_RETURN_IF_ERROR(ParseAttrDict(&graph_.attrs()));
    }
    AZ_RETURN_IF_ERROR(Expect(TokenKind::kLBrace, "'{' to start the graph body"));
    while (!AtKeyword("return")) {
      if (AtKeyword("mesh")) {
        AZ_RETURN_IF_ERROR(ParseMesh());
      } else if (AtKeyword("input") || AtKeyword("param") || AtKeyword("const") || AtKeyword("opt_state")) {
        AZ_RETURN_IF_ERROR(ParseLeaf());
      } else if (At(TokenKind::kValueRef) || At(TokenKind::kIdent)) {
        AZ_RETURN_IF_ERROR(ParseOp());
      } else {
        return Expected("a statement (mesh, input, param, const, opt_state, an op or return)");
      }
    }
    Advance();
    if (At(TokenKind::kValueRef)) {
      AZ_ASSIGN_OR_RETURN(std::vector<ValueId> outputs, ParseUseList());
      for (ValueId output : outputs) graph_.AddOutput(output);
    }
    AZ_RETURN_IF_ERROR(Expect(TokenKind::kRBrace, "'}' to end the graph after 'return'"));
    if (!At(TokenKind::kEof)) return Expected("end of input after the graph");
    return Status::Ok();
  }

  Status ParseMesh() {
    Advance();  // 'mesh'
    Mesh mesh;
    if (!At(TokenKind::kMeshRef)) return Expected("a mesh name such as @m");
    mesh.name = std::move(tok_.text);
    Advance();
    AZ_RETURN_IF_ERROR(Expect(TokenKind::kEqual, "'=' after the mesh name"));
    AZ_RETURN_IF_ERROR(Expect(TokenKind::kLBracket, "'[' to start the mesh axes"));
    while (!At(TokenKind::kRBracket)) {
      if (!mesh.axes.empty()) AZ_RETURN_IF_ERROR(Expect(TokenKind::kComma, "',' or ']' in the mesh axes"));
      AZ_ASSIGN_OR_RETURN(std::string axis, ParseString("a mesh axis name (a quoted string)"));
      AZ_RETURN_IF_ERROR(Expect(TokenKind::kEqual, "'=' after the axis name"));
      AZ_ASSIGN_OR_RETURN(int64_t size, ParseNonNegativeInt("an axis size"));
      mesh.axes.emplace_back(std::move(axis), size);
    }
    Advance();
    graph_.AddMesh(std::move(mesh));
    return Status::Ok();
  }

  Status ParseLeaf() {
    Token start = tok_;
    ValueRole role = start.text == "input"       ? ValueRole::kInput
                     : start.text == "param"     ? ValueRole::kParameter
                     : start.text == "opt_state" ? ValueRole::kOptimizerState
                                                 : ValueRole::kConstant;
    Advance();
    AZ_ASSIGN_OR_RETURN(int64_t number, ParseDefinition({}));
    AZ_ASSIGN_OR_RETURN(std::string name, ParseString("the value's name (a quoted string)"));
    AZ_RETURN_IF_ERROR(Expect(TokenKind::kColon, "':' before the type"));
    AZ_ASSIGN_OR_RETURN(TensorType type, ParseType());
    AZ_ASSIGN_OR_RETURN(std::optional<TensorSharding> sharding, ParseOptionalSharding());
    ValueId id = graph_.AddLeaf(role, std::move(name), std::move(type), Loc(start));
    graph_.mutable_value(id).sharding = std::move(sharding);
    ids_.emplace(number, id);
    return Status::Ok();
  }

  Status ParseOp() {
    Token start = tok_;
    std::vector<int64_t> results;
    std::unordered_set<int64_t> pending;
    if (At(TokenKind::kValueRef)) {
      while (true) {
        AZ_ASSIGN_OR_RETURN(int64_t number, ParseDefinition(pending));
        pending.insert(number);
        results.push_back(number);
        if (!At(TokenKind::kComma)) break;
        Advance();
      }
      AZ_RETURN_IF_ERROR(Expect(TokenKind::kEqual, "'=' after the op's results"));
    }
    if (!At(TokenKind::kIdent)) return Expected("an op kind");
    std::optional<OpKind> kind = ParseOpKind(tok_.text);
    if (!kind) return ErrorAt(tok_, "unknown op kind '" + tok_.text + "'");
    Advance();
    AZ_ASSIGN_OR_RETURN(std::string name, ParseString("the op's name (a quoted string)"));
    AZ_RETURN_IF_ERROR(Expect(TokenKind::kLParen, "'(' to start the operands"));
    std::vector<ValueId> operands;
    if (!At(TokenKind::kRParen)) {
      AZ_ASSIGN_OR_RETURN(operands, ParseUseList());
    }
    AZ_RETURN_IF_ERROR(Expect(TokenKind::kRParen, "')' to end the operands"));
    Attributes attrs;
    if (At(TokenKind::kLBrace)) AZ_RETURN_IF_ERROR(ParseAttrDict(&attrs));

    std::vector<TensorType> types;
    std::vector<std::optional<TensorSharding>> shardings;
    if (At(TokenKind::kColon)) {
      if (results.empty()) return ErrorAt(tok_, "an op without results declares no result types");
      Advance();
      while (true) {
        AZ_ASSIGN_OR_RETURN(TensorType type, ParseType());
        AZ_ASSIGN_OR_RETURN(std::optional<TensorSharding> sharding, ParseOptionalSharding());
        types.push_back(std::move(type));
        shardings.push_back(std::move(sharding));
        if (!At(TokenKind::kComma)) break;
        Advance();
      }
    } else if (!results.empty()) {
      return Expected("':' and the result types");
    }
    if (types.size() != results.size()) {
      return ErrorAt(start, "op defines " + std::to_string(results.size()) + " result(s) but declares " +
                                std::to_string(types.size()) + " result type(s)");
    }

    OpId op = graph_.AddOp(*kind, std::move(name), std::move(operands), std::move(types), std::move(attrs), Loc(start));
    const std::vector<ValueId>& result_ids = graph_.op(op).results;
    for (size_t i = 0; i < results.size(); ++i) {
      graph_.mutable_value(result_ids[i]).sharding = std::move(shardings[i]);
      ids_.emplace(results[i], result_ids[i]);
    }
    return Status::Ok();
  }

  Graph graph_;
  std::map<int64_t, ValueId> ids_;  // text value number -> ValueId
};

}  // namespace

StatusOr<Graph> ParseGraph(std::string_view text, std::string file_name) {
  if (text.size() > kMaxInputBytes) {
    return LocatedError(StatusCode::kResourceExhausted, SourceLocation::Text(std::move(file_name), 1, 1),
                        "input of " + std::to_string(text.size()) + " bytes exceeds the limit of 1 GiB");
  }
  Parser parser(text, std::move(file_name));
  return parser.Parse();
}

}  // namespace az::pir
