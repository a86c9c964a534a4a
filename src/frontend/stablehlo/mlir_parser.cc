// The MLIR text parser (mlir_parser.h). Size (620 lines): one recursive-descent
// grammar whose productions call each other; split, its pieces would not read.
#include "frontend/stablehlo/mlir_parser.h"

#include <charconv>
#include <deque>

#include "support/diagnostic.h"

namespace az::frontend::shlo {

const NamedAttr* FindAttr(const AttrDict& dict, std::string_view name) {
  for (const NamedAttr& attr : dict) {
    if (attr.name == name) return &attr;
  }
  return nullptr;
}

int64_t Operation::NumResults() const {
  int64_t n = 0;
  for (const ResultGroup& group : results) n += group.count;
  return n;
}

namespace {

using K = TokenKind;

class Parser {
 public:
  Parser(std::string_view text, std::string file_name)
      : source_(std::move(file_name), std::string(text)), lexer_(source_.text()) {
    tok_ = lexer_.Next();
  }

  StatusOr<Module> ParseFile();
  StatusOr<Trees> ParseAllTrees();

 private:
  // ---- tokens
  const Token& Peek(size_t ahead) {
    if (ahead == 0) return tok_;
    while (ahead_.size() < ahead) ahead_.push_back(lexer_.Next());
    return ahead_[ahead - 1];
  }
  void Advance() {
    if (tok_.kind != K::kEof) {
      prev_line_ = tok_.line;
      prev_col_ = tok_.col + static_cast<int>(tok_.spelling.size());
    }
    if (tok_.kind == K::kError || tok_.kind == K::kEof) return;
    if (!ahead_.empty()) {
      tok_ = std::move(ahead_.front());
      ahead_.pop_front();
    } else {
      tok_ = lexer_.Next();
    }
  }
  bool At(K kind) const { return tok_.kind == kind; }
  bool AtIdent(std::string_view word) const { return tok_.kind == K::kIdent && tok_.text == word; }
  Status ErrorAt(int line, int col, const std::string& message) const {
    return LocatedError(StatusCode::kParseError, SourceLocation::Text(source_.name(), line, col), message, &source_);
  }
  Status ErrorHere(const std::string& message) const {
    if (tok_.kind == K::kError) return ErrorAt(tok_.line, tok_.col, tok_.text);
    if (tok_.kind == K::kEof && prev_line_ > 0) return ErrorAt(prev_line_, prev_col_, message);
    return ErrorAt(tok_.line, tok_.col, message);
  }
  Status Expected(const std::string& what) const {
    return ErrorHere("expected " + what + ", found " + DescribeToken(tok_));
  }
  Status Expect(K kind, const char* what) {
    if (!At(kind)) return Expected(what);
    Advance();
    return Status::Ok();
  }
  Status Enter() {
    if (++depth_ > kMaxNesting) return ErrorHere("nesting deeper than " + std::to_string(kMaxNesting) + " levels");
    return Status::Ok();
  }
  void Leave() { --depth_; }

  // ---- pieces
  StatusOr<Tree> ParseTree();
  Status ParseTreesUntil(K close, Trees* out);
  StatusOr<AttrDict> ParseDict();  // at '{'
  StatusOr<pir::TensorType> ParseType();
  Status ParseLoc(LocRef* loc);  // at 'loc'
  Status MaybeLoc(LocRef* loc) { return AtIdent("loc") && Peek(1).kind == K::kLParen ? ParseLoc(loc) : Status::Ok(); }
  StatusOr<std::vector<BlockArg>> ParseArgList();  // at '('
  StatusOr<BlockArg> ParseArg();
  StatusOr<Region> ParseRegion();  // at '{'
  StatusOr<Operation> ParseOp();
  Status ParsePrettyBody(Operation& op);
  Status ParseSignature(Operation& op);
  bool LooksLikeRegion();
  bool LooksLikeArgList() { return At(K::kLParen) && Peek(1).kind == K::kValueRef && Peek(2).kind == K::kColon; }
  Status ParseModuleBody(Module& module, bool braced);
  Status ParseFunc(Module& module);

  SourceBuffer source_;
  Lexer lexer_;
  Token tok_;
  std::deque<Token> ahead_;
  int prev_line_ = 0, prev_col_ = 0;
  int depth_ = 0;
};

K CloseOf(K open) {
  switch (open) {
    case K::kLParen: return K::kRParen;
    case K::kLBracket: return K::kRBracket;
    case K::kLBrace: return K::kRBrace;
    default: return K::kRAngle;
  }
}
bool IsOpen(K kind) { return kind == K::kLParen || kind == K::kLBracket || kind == K::kLBrace || kind == K::kLAngle; }
bool IsClose(K kind) { return kind == K::kRParen || kind == K::kRBracket || kind == K::kRBrace || kind == K::kRAngle; }

StatusOr<Tree> Parser::ParseTree() {
  if (At(K::kError)) return ErrorHere("");
  if (At(K::kEof)) return Expected("a value");
  if (IsClose(tok_.kind)) return Expected("a value");
  Tree tree;
  tree.kind = tok_.kind;
  tree.text = tok_.text;
  tree.spelling = std::string(tok_.spelling);
  tree.line = tok_.line;
  tree.col = tok_.col;
  if (!IsOpen(tok_.kind)) {
    Advance();
    return tree;
  }
  K close = CloseOf(tok_.kind);
  AZ_RETURN_IF_ERROR(Enter());
  Advance();
  AZ_RETURN_IF_ERROR(ParseTreesUntil(close, &tree.children));
  Leave();
  AZ_RETURN_IF_ERROR(Expect(close, close == K::kRAngle     ? "'>'"
                                   : close == K::kRParen   ? "')'"
                                   : close == K::kRBracket ? "']'"
                                                           : "'}'"));
  return tree;
}

Status Parser::ParseTreesUntil(K close, Trees* out) {
  while (!At(close)) {
    if (At(K::kEof) || At(K::kError) || IsClose(tok_.kind))
      return Expected(close == K::kRAngle ? "'>'" : "a closing bracket");
    AZ_ASSIGN_OR_RETURN(Tree tree, ParseTree());
    out->push_back(std::move(tree));
  }
  return Status::Ok();
}

StatusOr<AttrDict> Parser::ParseDict() {
  AZ_RETURN_IF_ERROR(Expect(K::kLBrace, "'{'"));
  AZ_RETURN_IF_ERROR(Enter());
  AttrDict dict;
  while (!At(K::kRBrace)) {
    NamedAttr attr;
    attr.line = tok_.line;
    attr.col = tok_.col;
    if (!At(K::kIdent) && !At(K::kString)) return Expected("an attribute name");
    attr.name = tok_.text;
    Advance();
    if (At(K::kEqual)) {
      Advance();
      while (!At(K::kComma) && !At(K::kRBrace)) {
        AZ_ASSIGN_OR_RETURN(Tree tree, ParseTree());
        attr.value.push_back(std::move(tree));
      }
      if (attr.value.empty()) return Expected("an attribute value");
    }
    dict.push_back(std::move(attr));
    if (!At(K::kComma)) break;
    Advance();
  }
  Leave();
  AZ_RETURN_IF_ERROR(Expect(K::kRBrace, "'}'"));
  return dict;
}

StatusOr<pir::TensorType> Parser::ParseType() {
  if (At(K::kBangIdent)) return ErrorHere("unsupported type '!" + tok_.text + "'");
  if (!At(K::kIdent)) return Expected("a type");
  Token at = tok_;
  if (tok_.text == "tensor") {
    if (!ahead_.empty()) return ErrorHere("unexpected type");
    std::string_view body;
    int line = 0, col = 0;
    std::string error;
    if (!lexer_.ReadRawAngleBody(&body, &line, &col, &error)) return ErrorAt(line, col, error);
    Advance();
    auto type = ParseTensorType(body, false);
    if (!type.ok()) return ErrorAt(at.line, at.col, type.status().message());
    return type;
  }
  if (tok_.text == "complex" || tok_.text == "tuple" || tok_.text == "memref" || tok_.text == "vector") {
    return ErrorHere("unsupported type '" + tok_.text + "'");
  }
  auto type = ParseTensorType(tok_.text, true);
  if (!type.ok()) return ErrorHere(type.status().message());
  Advance();
  return type;
}

Status Parser::ParseLoc(LocRef* loc) {
  Advance();  // 'loc'
  AZ_ASSIGN_OR_RETURN(Tree group, ParseTree());
  if (group.children.size() == 1 && group.children[0].kind == K::kHashIdent) {
    loc->alias = group.children[0].text;
  } else {
    loc->inline_loc = std::move(group.children);
  }
  return Status::Ok();
}

StatusOr<BlockArg> Parser::ParseArg() {
  BlockArg arg;
  arg.line = tok_.line;
  arg.col = tok_.col;
  if (!At(K::kValueRef)) return Expected("an argument '%name'");
  arg.name = tok_.text;
  Advance();
  AZ_RETURN_IF_ERROR(Expect(K::kColon, "':'"));
  AZ_ASSIGN_OR_RETURN(arg.type, ParseType());
  if (At(K::kLBrace)) {
    AZ_ASSIGN_OR_RETURN(arg.attrs, ParseDict());
  }
  AZ_RETURN_IF_ERROR(MaybeLoc(&arg.loc));
  return arg;
}

StatusOr<std::vector<BlockArg>> Parser::ParseArgList() {
  AZ_RETURN_IF_ERROR(Expect(K::kLParen, "'('"));
  std::vector<BlockArg> args;
  while (!At(K::kRParen)) {
    AZ_ASSIGN_OR_RETURN(BlockArg arg, ParseArg());
    args.push_back(std::move(arg));
    if (!At(K::kComma)) break;
    Advance();
  }
  AZ_RETURN_IF_ERROR(Expect(K::kRParen, "')'"));
  return args;
}

// At '{': a region when the next token starts an op or a block label.
bool Parser::LooksLikeRegion() {
  const Token& next = Peek(1);
  if (next.kind == K::kValueRef || next.kind == K::kCaretIdent) return true;
  if (next.kind == K::kIdent) {
    K after = Peek(2).kind;
    return after != K::kEqual && after != K::kRBrace && after != K::kComma;
  }
  if (next.kind == K::kString) return Peek(2).kind == K::kLParen;
  return false;
}

StatusOr<Region> Parser::ParseRegion() {
  Region region;
  region.line = tok_.line;
  region.col = tok_.col;
  AZ_RETURN_IF_ERROR(Expect(K::kLBrace, "'{'"));
  AZ_RETURN_IF_ERROR(Enter());
  region.blocks.emplace_back();
  bool first = true;
  while (!At(K::kRBrace)) {
    if (At(K::kCaretIdent)) {
      if (!first || !region.blocks.back().ops.empty()) region.blocks.emplace_back();
      Advance();
      if (At(K::kLParen)) {
        AZ_ASSIGN_OR_RETURN(region.blocks.back().args, ParseArgList());
      }
      AZ_RETURN_IF_ERROR(Expect(K::kColon, "':' after a block label"));
      first = false;
      continue;
    }
    first = false;
    if (At(K::kEof) || At(K::kError)) return Expected("'}'");
    AZ_ASSIGN_OR_RETURN(Operation op, ParseOp());
    region.blocks.back().ops.push_back(std::move(op));
  }
  Leave();
  Advance();  // '}'
  return region;
}

StatusOr<Operation> Parser::ParseOp() {
  Operation op;
  op.line = tok_.line;
  op.col = tok_.col;
  if (At(K::kValueRef)) {
    while (true) {
      if (!At(K::kValueRef)) return Expected("a result name");
      ResultGroup group;
      group.name = tok_.text;
      Advance();
      if (At(K::kColon)) {
        Advance();
        if (!At(K::kInt)) return Expected("a result count");
        auto [ptr, ec] =
            std::from_chars(tok_.spelling.data(), tok_.spelling.data() + tok_.spelling.size(), group.count);
        if (ec != std::errc() || group.count < 1 || group.count > 4096) return ErrorHere("bad result count");
        Advance();
      }
      op.results.push_back(std::move(group));
      if (!At(K::kComma)) break;
      Advance();
    }
    AZ_RETURN_IF_ERROR(Expect(K::kEqual, "'='"));
  }
  op.line = tok_.line;
  op.col = tok_.col;
  if (At(K::kString)) {
    op.generic = true;
    op.name = tok_.text;
    Advance();
    AZ_RETURN_IF_ERROR(Expect(K::kLParen, "'('"));
    while (!At(K::kRParen)) {
      if (!At(K::kValueRef)) return Expected("an operand");
      op.operands.push_back(tok_.text);
      Advance();
      if (!At(K::kComma)) break;
      Advance();
    }
    AZ_RETURN_IF_ERROR(Expect(K::kRParen, "')'"));
    if (At(K::kLBracket)) {  // successors
      AZ_ASSIGN_OR_RETURN(Tree ignored, ParseTree());
      (void)ignored;
    }
    if (At(K::kLAngle)) {
      Advance();
      AZ_ASSIGN_OR_RETURN(op.properties, ParseDict());
      AZ_RETURN_IF_ERROR(Expect(K::kRAngle, "'>'"));
    }
    if (At(K::kLParen) && Peek(1).kind == K::kLBrace) {
      Advance();
      while (true) {
        AZ_ASSIGN_OR_RETURN(Region region, ParseRegion());
        op.regions.push_back(std::move(region));
        if (!At(K::kComma)) break;
        Advance();
      }
      AZ_RETURN_IF_ERROR(Expect(K::kRParen, "')'"));
    }
    if (At(K::kLBrace)) {
      AZ_ASSIGN_OR_RETURN(op.attrs, ParseDict());
    }
    AZ_RETURN_IF_ERROR(Expect(K::kColon, "':' and the op's type"));
    AZ_RETURN_IF_ERROR(ParseSignature(op));
    AZ_RETURN_IF_ERROR(MaybeLoc(&op.loc));
    return op;
  }
  if (!At(K::kIdent)) return Expected("an op");
  op.name = tok_.text;
  Advance();
  AZ_RETURN_IF_ERROR(ParsePrettyBody(op));
  return op;
}

Status Parser::ParsePrettyBody(Operation& op) {
  bool after_equal = false;
  while (!At(K::kColon)) {
    if (At(K::kEof) || At(K::kError) || IsClose(tok_.kind)) break;
    if (At(K::kValueRef) && Peek(1).kind == K::kEqual) break;  // the next op starts (an op without a type)
    if (At(K::kLBrace) && LooksLikeRegion()) {
      AZ_ASSIGN_OR_RETURN(Region region, ParseRegion());
      op.regions.push_back(std::move(region));
      after_equal = false;
      continue;
    }
    if (At(K::kLBrace) && !after_equal) {
      AZ_ASSIGN_OR_RETURN(AttrDict dict, ParseDict());
      for (NamedAttr& attr : dict) op.attrs.push_back(std::move(attr));
      continue;
    }
    if (LooksLikeArgList()) {
      AZ_ASSIGN_OR_RETURN(auto args, ParseArgList());
      op.arg_lists.push_back(std::move(args));
      continue;
    }
    if (AtIdent("loc") && Peek(1).kind == K::kLParen) {
      AZ_RETURN_IF_ERROR(ParseLoc(&op.loc));
      continue;
    }
    after_equal = At(K::kEqual);
    AZ_ASSIGN_OR_RETURN(Tree tree, ParseTree());
    op.body.push_back(std::move(tree));
  }
  if (At(K::kColon)) {
    Advance();
    AZ_RETURN_IF_ERROR(ParseSignature(op));
  }
  if (AtIdent("reducer") && Peek(1).kind == K::kLParen) {
    Advance();
    AZ_ASSIGN_OR_RETURN(auto args, ParseArgList());
    op.arg_lists.push_back(std::move(args));
    if (!At(K::kLBrace)) return Expected("the reducer's region");
    AZ_ASSIGN_OR_RETURN(Region region, ParseRegion());
    op.regions.push_back(std::move(region));
  }
  // stablehlo.while's pretty form: "... : types cond { ... } do { ... }".
  for (const char* keyword : {"cond", "do"}) {
    if (AtIdent(keyword) && Peek(1).kind == K::kLBrace) {
      Advance();
      AZ_ASSIGN_OR_RETURN(Region region, ParseRegion());
      op.regions.push_back(std::move(region));
    }
  }
  return MaybeLoc(&op.loc);
}

// "(t, t) -> t", "(t) -> (t, t)" or "t, t".
Status Parser::ParseSignature(Operation& op) {
  if (At(K::kLParen)) {
    Advance();
    while (!At(K::kRParen)) {
      AZ_ASSIGN_OR_RETURN(pir::TensorType type, ParseType());
      op.input_types.push_back(std::move(type));
      if (!At(K::kComma)) break;
      Advance();
    }
    AZ_RETURN_IF_ERROR(Expect(K::kRParen, "')'"));
    AZ_RETURN_IF_ERROR(Expect(K::kArrow, "'->'"));
    op.functional_type = true;
    if (At(K::kLParen)) {
      Advance();
      while (!At(K::kRParen)) {
        AZ_ASSIGN_OR_RETURN(pir::TensorType type, ParseType());
        op.result_types.push_back(std::move(type));
        if (!At(K::kComma)) break;
        Advance();
      }
      return Expect(K::kRParen, "')'");
    }
    AZ_ASSIGN_OR_RETURN(pir::TensorType type, ParseType());
    op.result_types.push_back(std::move(type));
    return Status::Ok();
  }
  while (true) {
    AZ_ASSIGN_OR_RETURN(pir::TensorType type, ParseType());
    op.result_types.push_back(std::move(type));
    if (!At(K::kComma)) break;
    Advance();
  }
  if (At(K::kArrow)) {  // chlo's "t -> t"
    Advance();
    op.functional_type = true;
    op.input_types = std::move(op.result_types);
    op.result_types.clear();
    AZ_ASSIGN_OR_RETURN(pir::TensorType type, ParseType());
    op.result_types.push_back(std::move(type));
  }
  return Status::Ok();
}

Status Parser::ParseFunc(Module& module) {
  Func func;
  func.line = tok_.line;
  func.col = tok_.col;
  Advance();  // func.func
  if (AtIdent("public") || AtIdent("private") || AtIdent("nested")) {
    func.visibility = tok_.text;
    Advance();
  }
  if (!At(K::kSymbol)) return Expected("a function name '@name'");
  func.name = tok_.text;
  Advance();
  AZ_ASSIGN_OR_RETURN(func.args, ParseArgList());
  if (At(K::kArrow)) {
    Advance();
    if (At(K::kLParen)) {
      Advance();
      while (!At(K::kRParen)) {
        FuncResult result;
        AZ_ASSIGN_OR_RETURN(result.type, ParseType());
        if (At(K::kLBrace)) {
          AZ_ASSIGN_OR_RETURN(result.attrs, ParseDict());
        }
        func.results.push_back(std::move(result));
        if (!At(K::kComma)) break;
        Advance();
      }
      AZ_RETURN_IF_ERROR(Expect(K::kRParen, "')'"));
    } else {
      FuncResult result;
      AZ_ASSIGN_OR_RETURN(result.type, ParseType());
      func.results.push_back(std::move(result));
    }
  }
  if (AtIdent("attributes")) {
    Advance();
    AZ_ASSIGN_OR_RETURN(func.attrs, ParseDict());
  }
  if (At(K::kLBrace)) {
    func.has_body = true;
    AZ_ASSIGN_OR_RETURN(func.body, ParseRegion());
  }
  LocRef loc;
  AZ_RETURN_IF_ERROR(MaybeLoc(&loc));
  module.funcs.push_back(std::move(func));
  return Status::Ok();
}

Status Parser::ParseModuleBody(Module& module, bool braced) {
  while (true) {
    if (braced && At(K::kRBrace)) {
      Advance();
      LocRef loc;
      return MaybeLoc(&loc);
    }
    if (At(K::kEof)) {
      if (braced) return Expected("'}'");
      return Status::Ok();
    }
    if (At(K::kHashIdent) && Peek(1).kind == K::kEqual) {
      std::string alias = tok_.text;
      int line = tok_.line;
      Advance();
      Advance();
      Trees value;
      while (tok_.line == line && !At(K::kEof) && !At(K::kError) && !IsClose(tok_.kind)) {
        AZ_ASSIGN_OR_RETURN(Tree tree, ParseTree());
        value.push_back(std::move(tree));
      }
      if (value.empty()) return Expected("an attribute alias value");
      if (value.size() == 2 && value[0].IsIdent("loc")) value = std::move(value[1].children);
      module.loc_aliases[alias] = std::move(value);
      continue;
    }
    if (At(K::kResourceBegin)) {
      while (!At(K::kResourceEnd)) {
        if (At(K::kEof) || At(K::kError)) return Expected("'#-}'");
        Advance();
      }
      Advance();
      continue;
    }
    if (AtIdent("module")) {
      if (braced || !module.funcs.empty()) return ErrorHere("nested or repeated 'module' is not supported");
      Advance();
      if (At(K::kSymbol)) {
        module.name = tok_.text;
        Advance();
      }
      if (AtIdent("attributes")) {
        Advance();
        AZ_ASSIGN_OR_RETURN(module.attrs, ParseDict());
      }
      if (!At(K::kLBrace)) return Expected("'{'");
      AZ_RETURN_IF_ERROR(Enter());
      Advance();
      AZ_RETURN_IF_ERROR(ParseModuleBody(module, true));
      Leave();
      continue;
    }
    if (AtIdent("func.func")) {
      AZ_RETURN_IF_ERROR(ParseFunc(module));
      continue;
    }
    if (AtIdent("sdy.mesh")) {
      MeshDecl mesh;
      mesh.line = tok_.line;
      mesh.col = tok_.col;
      Advance();
      if (!At(K::kSymbol)) return Expected("a mesh name '@name'");
      mesh.name = tok_.text;
      Advance();
      AZ_RETURN_IF_ERROR(Expect(K::kEqual, "'='"));
      AZ_ASSIGN_OR_RETURN(Tree tree, ParseTree());
      mesh.value.push_back(std::move(tree));
      // JAX 0.11 follows the mesh with an attribute dict repeating it
      // ({stablehlo.mesh = {axes = [...]}}): read, not used.
      if (At(K::kLBrace)) {
        AZ_ASSIGN_OR_RETURN(auto ignored, ParseDict());
        (void)ignored;
      }
      LocRef loc;
      AZ_RETURN_IF_ERROR(MaybeLoc(&loc));
      module.meshes.push_back(std::move(mesh));
      continue;
    }
    if (At(K::kIdent) || At(K::kString) || At(K::kValueRef)) {  // another module-level op: parsed, not used
      AZ_ASSIGN_OR_RETURN(Operation ignored, ParseOp());
      (void)ignored;
      continue;
    }
    return Expected("'module', 'func.func' or 'sdy.mesh'");
  }
}

StatusOr<Module> Parser::ParseFile() {
  Module module;
  AZ_RETURN_IF_ERROR(ParseModuleBody(module, false));
  return module;
}

StatusOr<Trees> Parser::ParseAllTrees() {
  Trees trees;
  while (!At(K::kEof)) {
    AZ_ASSIGN_OR_RETURN(Tree tree, ParseTree());
    trees.push_back(std::move(tree));
  }
  return trees;
}

}  // namespace

StatusOr<Module> ParseMlir(std::string_view text, const std::string& file_name) {
  Parser parser(text, file_name);
  return parser.ParseFile();
}

StatusOr<Trees> ParseTrees(std::string_view text, const std::string& file_name) {
  Parser parser(text, file_name);
  return parser.ParseAllTrees();
}

}  // namespace az::frontend::shlo
