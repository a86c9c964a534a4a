// The HLO text parser (hlo.h): a streaming lexer with two tokens of
// lookahead and a recursive-descent parser over it. Size (800 lines): one
// grammar whose productions call each other; split, its pieces would not read.
#include <algorithm>
#include <charconv>
#include <deque>
#include <iterator>

#include "compile/xla/hlo.h"
#include "support/text_scanner.h"

namespace az::compile::xla {
namespace {

enum class Tok { kEof, kError, kSplit, kIdent, kInt, kWord, kString, kPunct, kArrow, kLessEq, kEllipsis };

struct Token {
  Tok kind = Tok::kEof;
  std::string_view spelling;
  size_t begin = 0, end = 0;  // byte offsets
  int line = 1, col = 1;
  bool spaced = false;    // whitespace or a comment before it
  bool new_line = false;  // a line break before it
  std::string message;    // kError
  bool Is(char c) const { return kind == Tok::kPunct && spelling.size() == 1 && spelling[0] == c; }
  bool IsIdent(std::string_view word) const { return kind == Tok::kIdent && spelling == word; }
};

bool IsNameChar(char c) { return IsIdentChar(c) || c == '.' || c == '-'; }

class Lexer : public TextScanner {
 public:
  explicit Lexer(std::string_view text) : TextScanner(text) {}

  Token Next() {
    bool spaced = false, new_line = pos_ == 0;
    for (;;) {
      size_t before = pos_;
      int line_before = line_;
      // Whitespace, `//` comments (a `// -----` line splits modules), `/* */`
      // comments and `#` lit directives at the start of a line.
      while (!AtEnd() && (Peek() == ' ' || Peek() == '\t' || Peek() == '\n' || Peek() == '\r')) Advance();
      if (Peek() == '/' && Peek(1) == '/') {
        if (text_.substr(pos_, 8) == "// -----") {
          Token t = Make(Tok::kSplit, pos_, line_, col_);
          while (!AtEnd() && Peek() != '\n') Advance();
          t.end = pos_;
          t.spelling = text_.substr(t.begin, t.end - t.begin);
          return t;
        }
        while (!AtEnd() && Peek() != '\n') Advance();
      } else if (Peek() == '/' && Peek(1) == '*') {
        int line = line_, col = col_;
        Advance();
        Advance();
        while (!AtEnd() && !(Peek() == '*' && Peek(1) == '/')) Advance();
        if (AtEnd()) return Error(line, col, "unterminated /* comment");
        Advance();
        Advance();
      } else if (Peek() == '#' && AtLineStart()) {
        while (!AtEnd() && Peek() != '\n') Advance();
      }
      if (pos_ != before) spaced = true;
      if (line_ != line_before) new_line = true;
      if (pos_ == before) break;
    }
    Token t = Scan();
    t.spaced = spaced;
    t.new_line = new_line;
    return t;
  }

 private:
  bool AtLineStart() const {
    for (size_t i = pos_; i > 0; --i) {
      char c = text_[i - 1];
      if (c == '\n') return true;
      if (c != ' ' && c != '\t') return false;
    }
    return true;
  }
  Token Make(Tok kind, size_t begin, int line, int col) const {
    Token t;
    t.kind = kind;
    t.begin = begin;
    t.line = line;
    t.col = col;
    return t;
  }
  Token Error(int line, int col, std::string message) const {
    Token t = Make(Tok::kError, pos_, line, col);
    t.message = std::move(message);
    return t;
  }
  Token Finish(Token t) const {
    t.end = pos_;
    t.spelling = text_.substr(t.begin, t.end - t.begin);
    return t;
  }

  Token Scan() {
    int line = line_, col = col_;
    size_t begin = pos_;
    if (AtEnd()) return Finish(Make(Tok::kEof, begin, line, col));
    char c = Peek();
    if (c == '"') {
      Advance();
      while (!AtEnd() && Peek() != '"') {
        if (Peek() == '\\' && pos_ + 1 < text_.size()) Advance();
        Advance();
      }
      if (AtEnd()) return Error(line, col, "unterminated string");
      Advance();
      return Finish(Make(Tok::kString, begin, line, col));
    }
    bool negative_number = c == '-' && IsDigitChar(Peek(1));
    if (IsDigitChar(c) || negative_number) {
      Advance();
      bool all_digits = true;
      while (!AtEnd()) {
        char d = Peek();
        if (IsIdentChar(d) || d == '.') {
          if (!IsDigitChar(d)) all_digits = false;
          Advance();
        } else if ((d == '+' || d == '-') && (text_[pos_ - 1] == 'e' || text_[pos_ - 1] == 'E') &&
                   IsDigitChar(Peek(1))) {
          all_digits = false;
          Advance();
        } else {
          break;
        }
      }
      return Finish(Make(all_digits ? Tok::kInt : Tok::kWord, begin, line, col));
    }
    if (IsIdentStartChar(c) || c == '%' || (c == '-' && IsIdentStartChar(Peek(1)))) {
      Advance();
      while (!AtEnd() && IsNameChar(Peek()) && !(Peek() == '-' && Peek(1) == '>')) Advance();
      return Finish(Make(Tok::kIdent, begin, line, col));
    }
    if (c == '-' && Peek(1) == '>') {
      Advance();
      Advance();
      return Finish(Make(Tok::kArrow, begin, line, col));
    }
    if (c == '<' && Peek(1) == '=') {
      Advance();
      Advance();
      return Finish(Make(Tok::kLessEq, begin, line, col));
    }
    if (c == '.' && Peek(1) == '.' && Peek(2) == '.') {
      Advance();
      Advance();
      Advance();
      return Finish(Make(Tok::kEllipsis, begin, line, col));
    }
    if (static_cast<unsigned char>(c) < 0x20 && c != '\t') {
      Advance();
      return Error(line, col, "unexpected control byte " + DescribeByte(c));
    }
    Advance();
    return Finish(Make(Tok::kPunct, begin, line, col));
  }
};

std::string Describe(const Token& t) {
  switch (t.kind) {
    case Tok::kEof:
      return "end of input";
    case Tok::kSplit:
      return "'// -----'";
    case Tok::kError:
      return "an invalid token";
    default:
      break;
  }
  std::string s(t.spelling.substr(0, 40));
  return "'" + s + (t.spelling.size() > 40 ? "...'" : "'");
}

std::string StripPercent(std::string_view name) {
  if (!name.empty() && name[0] == '%') name.remove_prefix(1);
  return std::string(name);
}

class Parser {
 public:
  Parser(std::string_view text, const std::string& file_name)
      : source_(std::make_shared<SourceBuffer>(file_name, std::string(text))), lexer_(source_->text()) {
    tok_ = lexer_.Next();
  }

  StatusOr<HloFile> ParseFile() {
    HloFile file;
    file.source = source_;
    for (;;) {
      while (tok_.kind == Tok::kSplit) Advance();
      if (tok_.kind == Tok::kEof) break;
      HloModule module;
      AZ_RETURN_IF_ERROR(ParseModule(module));
      if (!module.computations.empty()) file.modules.push_back(std::move(module));
    }
    if (file.modules.empty()) {
      return LocatedError(StatusCode::kParseError, SourceLocation::Text(source_->name(), 1, 1),
                          "no HLO computation in the file", source_.get());
    }
    file.warnings = std::move(warnings_);
    return file;
  }

 private:
  // ---- tokens
  void Advance() {
    prev_end_ = tok_.end;
    if (!ahead_.empty()) {
      tok_ = std::move(ahead_.front());
      ahead_.pop_front();
    } else {
      tok_ = lexer_.Next();
    }
  }
  const Token& Peek(size_t n = 1) {
    while (ahead_.size() < n) ahead_.push_back(lexer_.Next());
    return ahead_[n - 1];
  }
  Status ErrorAt(const Token& t, const std::string& message, StatusCode code = StatusCode::kParseError) const {
    return LocatedError(code, SourceLocation::Text(source_->name(), t.line, t.col), message, source_.get());
  }
  Status ErrorHere(const std::string& what) const {
    if (tok_.kind == Tok::kError) return ErrorAt(tok_, tok_.message);
    return ErrorAt(tok_, "expected " + what + ", found " + Describe(tok_));
  }
  Status ExpectPunct(char c) {
    if (!tok_.Is(c)) return ErrorHere(std::string("'") + c + "'");
    Advance();
    return Status::Ok();
  }
  void Warn(const Token& t, std::string message) {
    warnings_.push_back({Severity::kWarning, SourceLocation::Text(source_->name(), t.line, t.col), std::move(message)});
  }
  Status Deeper(int depth) const {
    if (depth > kMaxHloNesting) {
      return ErrorAt(tok_, "brackets nested deeper than " + std::to_string(kMaxHloNesting),
                     StatusCode::kResourceExhausted);
    }
    return Status::Ok();
  }

  // Skips one balanced bracket group starting at an opening bracket.
  Status SkipBalanced() {
    std::vector<char> stack;
    do {
      if (tok_.kind == Tok::kEof || tok_.kind == Tok::kSplit || tok_.kind == Tok::kError) {
        if (tok_.kind == Tok::kError) return ErrorAt(tok_, tok_.message);
        return ErrorHere(std::string("'") + stack.back() + "'");
      }
      if (tok_.kind == Tok::kPunct) {
        char c = tok_.spelling[0];
        if (c == '{' || c == '(' || c == '[') {
          stack.push_back(c == '{' ? '}' : c == '(' ? ')' : ']');
          AZ_RETURN_IF_ERROR(Deeper(static_cast<int>(stack.size())));
        } else if (c == '}' || c == ')' || c == ']') {
          if (stack.empty() || stack.back() != c) {
            return ErrorAt(tok_, "unbalanced '" + std::string(1, c) + "'" +
                                     (stack.empty() ? "" : ", expected '" + std::string(1, stack.back()) + "'"));
          }
          stack.pop_back();
        }
      }
      Advance();
    } while (!stack.empty());
    return Status::Ok();
  }

  // ---- shapes
  bool AtArrayShape() {
    return tok_.kind == Tok::kIdent && HloTypeBytes(tok_.spelling) >= 0 && Peek().Is('[') && !Peek().spaced;
  }
  bool AtShape() { return tok_.Is('(') || AtArrayShape(); }

  Status ParseShape(HloShape& shape, int depth) {
    AZ_RETURN_IF_ERROR(Deeper(depth));
    if (tok_.Is('(')) {
      shape.is_tuple = true;
      Advance();
      while (!tok_.Is(')')) {
        HloShape element;
        AZ_RETURN_IF_ERROR(ParseShape(element, depth + 1));
        shape.elements.push_back(std::move(element));
        if (tok_.Is(',')) {
          Advance();
        } else if (!tok_.Is(')')) {
          return ErrorHere("',' or ')' in a tuple shape");
        }
      }
      Advance();
      return Status::Ok();
    }
    if (!AtArrayShape()) return ErrorHere("a shape");
    shape.type = std::string(tok_.spelling);
    Advance();  // type
    Advance();  // '['
    while (!tok_.Is(']')) {
      int64_t dim = 0;
      if (tok_.Is('?')) {
        dim = -1;
        Advance();
      } else {
        if (tok_.kind == Tok::kLessEq) Advance();
        AZ_ASSIGN_OR_RETURN(dim, Int("a dimension"));
      }
      if (dim < -1) return ErrorAt(tok_, "negative dimension");
      shape.dims.push_back(dim);
      if (tok_.Is(',')) {
        Advance();
      } else if (!tok_.Is(']')) {
        return ErrorHere("',' or ']' in a shape");
      }
    }
    Advance();
    if (tok_.Is('{') && !tok_.spaced) {
      // A layout: minor-to-major, then after ':' tiles and extras; keep E and S.
      Advance();
      int depth_in = 1;
      while (depth_in > 0) {
        if (tok_.kind == Tok::kEof || tok_.kind == Tok::kSplit) return ErrorHere("'}' closing a layout");
        if (tok_.kind == Tok::kError) return ErrorAt(tok_, tok_.message);
        if ((tok_.IsIdent("E") || tok_.IsIdent("S")) && Peek().Is('(') && Peek(2).kind == Tok::kInt) {
          bool bits = tok_.IsIdent("E");
          Advance();
          Advance();
          AZ_ASSIGN_OR_RETURN(int64_t v, Int("an integer"));
          if (v < 0 || v > 64) return ErrorAt(tok_, "layout value out of range");
          (bits ? shape.element_bits : shape.memory_space) = static_cast<int>(v);
          AZ_RETURN_IF_ERROR(ExpectPunct(')'));
          continue;
        }
        if (tok_.Is('{') || tok_.Is('(')) ++depth_in;
        if (tok_.Is('}') || tok_.Is(')')) --depth_in;
        if (depth_in > kMaxHloNesting) return Deeper(depth_in);
        Advance();
      }
    }
    return Status::Ok();
  }

  StatusOr<int64_t> Int(const char* what) {
    if (tok_.kind != Tok::kInt) return ErrorHere(what);
    int64_t v = 0;
    auto [ptr, ec] = std::from_chars(tok_.spelling.data(), tok_.spelling.data() + tok_.spelling.size(), v);
    if (ec != std::errc() || ptr != tok_.spelling.data() + tok_.spelling.size()) {
      return ErrorAt(tok_, "integer out of range");
    }
    Advance();
    return v;
  }

  // ---- attributes: NAME '=' value; the value is raw text.
  Status ParseAttribute(std::vector<HloAttribute>& out) {
    if (tok_.kind != Tok::kIdent || !Peek().Is('=')) return ErrorHere("an attribute 'name=value'");
    HloAttribute attr;
    attr.name = std::string(tok_.spelling);
    Advance();
    Advance();
    attr.line = tok_.line;
    attr.col = tok_.col;
    size_t begin = tok_.begin, end = tok_.begin;
    bool first = true;
    for (;;) {
      if (tok_.kind == Tok::kEof || tok_.kind == Tok::kSplit) break;
      if (tok_.kind == Tok::kError) return ErrorAt(tok_, tok_.message);
      if (tok_.Is(',') || tok_.Is('}') || tok_.Is(')') || tok_.Is(']')) break;
      if (!first && (tok_.new_line || tok_.IsIdent("ROOT") || tok_.IsIdent("ENTRY") ||
                     (tok_.kind == Tok::kIdent && Peek().Is('=') && Peek().spaced))) {
        break;
      }
      if (tok_.Is('{') || tok_.Is('(') || tok_.Is('[')) {
        AZ_RETURN_IF_ERROR(SkipBalanced());
      } else {
        Advance();
      }
      end = prev_end_;
      first = false;
    }
    if (first) return ErrorHere("a value for attribute '" + attr.name + "'");
    attr.value = source_->text().substr(begin, end - begin);
    out.push_back(std::move(attr));
    return Status::Ok();
  }

  // ---- instructions
  Status ParseInstruction(HloComputation& comp) {
    HloInstruction instr;
    instr.line = tok_.line;
    instr.col = tok_.col;
    if (tok_.IsIdent("ROOT")) {
      instr.is_root = true;
      Advance();
    }
    if (tok_.kind != Tok::kIdent) return ErrorHere("an instruction name");
    instr.name = StripPercent(tok_.spelling);
    Token name_tok = tok_;
    Advance();
    AZ_RETURN_IF_ERROR(ExpectPunct('='));
    if (AtShape()) {
      instr.has_shape = true;
      AZ_RETURN_IF_ERROR(ParseShape(instr.shape, 0));
    }
    if (tok_.kind != Tok::kIdent) return ErrorHere("an opcode");
    instr.opcode = std::string(tok_.spelling);
    Advance();
    if (!tok_.Is('(')) return ErrorHere("'(' after opcode '" + instr.opcode + "'");
    if (instr.opcode == "constant" || instr.opcode == "parameter") {
      size_t begin = tok_.end;
      AZ_RETURN_IF_ERROR(SkipBalanced());
      instr.literal = source_->text().substr(begin, prev_end_ - 1 - begin);
    } else {
      Advance();
      while (!tok_.Is(')')) {
        if (AtShape()) {
          HloShape ignored;
          AZ_RETURN_IF_ERROR(ParseShape(ignored, 0));
        }
        if (tok_.kind != Tok::kIdent) return ErrorHere("an operand name");
        if (Peek().Is('(')) {
          return ErrorAt(tok_, "nested instructions as operands are not supported; print the module with names");
        }
        instr.operand_names.push_back(StripPercent(tok_.spelling));
        Advance();
        if (tok_.Is(',')) {
          Advance();
        } else if (!tok_.Is(')')) {
          return ErrorHere("',' or ')' in the operand list");
        }
      }
      Advance();
    }
    while (tok_.Is(',')) {
      Advance();
      AZ_RETURN_IF_ERROR(ParseAttribute(instr.attributes));
    }
    if (comp.index.count(instr.name)) {
      return ErrorAt(name_tok, "instruction '" + instr.name + "' is defined twice in computation '" + comp.name + "'");
    }
    if (++instruction_count_ > kMaxHloInstructions) {
      return ErrorAt(name_tok, "more than " + std::to_string(kMaxHloInstructions) + " instructions",
                     StatusCode::kResourceExhausted);
    }
    comp.index.emplace(instr.name, static_cast<int>(comp.instructions.size()));
    if (instr.is_root) comp.root = static_cast<int>(comp.instructions.size());
    comp.instructions.push_back(std::move(instr));
    return Status::Ok();
  }

  Status ParseComputation(HloModule& module) {
    HloComputation comp;
    comp.line = tok_.line;
    comp.col = tok_.col;
    if (tok_.IsIdent("ENTRY")) {
      comp.is_entry = true;
      Advance();
    }
    if (tok_.kind != Tok::kIdent) return ErrorHere("a computation name");
    Token name_tok = tok_;
    comp.name = StripPercent(tok_.spelling);
    Advance();
    if (tok_.Is('(')) AZ_RETURN_IF_ERROR(SkipBalanced());  // parameters: the instructions repeat them
    if (tok_.kind == Tok::kArrow) {
      Advance();
      HloShape result;
      AZ_RETURN_IF_ERROR(ParseShape(result, 0));
    }
    if (!tok_.Is('{')) return ErrorHere("'{' opening computation '" + comp.name + "'");
    Advance();
    while (!tok_.Is('}')) {
      if (tok_.kind == Tok::kEof || tok_.kind == Tok::kSplit) {
        return ErrorHere("'}' closing computation '" + comp.name + "'");
      }
      AZ_RETURN_IF_ERROR(ParseInstruction(comp));
    }
    Advance();
    std::vector<HloAttribute> trailing;
    while (tok_.Is(',')) {
      Advance();
      AZ_RETURN_IF_ERROR(ParseAttribute(trailing));
    }
    if (comp.instructions.empty()) return ErrorAt(name_tok, "computation '" + comp.name + "' has no instructions");
    if (comp.root < 0) comp.root = static_cast<int>(comp.instructions.size()) - 1;
    for (HloInstruction& instr : comp.instructions) {
      instr.operands.reserve(instr.operand_names.size());
      for (const std::string& name : instr.operand_names) {
        auto it = comp.index.find(name);
        if (it == comp.index.end()) {
          return LocatedError(
              StatusCode::kParseError, SourceLocation::Text(source_->name(), instr.line, instr.col),
              "operand '" + name + "' of '" + instr.name + "' is not defined in computation '" + comp.name + "'",
              source_.get());
        }
        instr.operands.push_back(it->second);
      }
    }
    if (module.index.count(comp.name)) return ErrorAt(name_tok, "computation '" + comp.name + "' is defined twice");
    if (++computation_count_ > kMaxHloComputations) {
      return ErrorAt(name_tok, "more than " + std::to_string(kMaxHloComputations) + " computations",
                     StatusCode::kResourceExhausted);
    }
    if (comp.is_entry) {
      if (module.entry >= 0) return ErrorAt(name_tok, "a second ENTRY computation");
      module.entry = static_cast<int>(module.computations.size());
    }
    module.index.emplace(comp.name, static_cast<int>(module.computations.size()));
    module.computations.push_back(std::move(comp));
    return Status::Ok();
  }

  bool AtComputation() {
    if (tok_.IsIdent("ENTRY")) return true;
    return tok_.kind == Tok::kIdent && (Peek().Is('(') || Peek().Is('{'));
  }

  // A module-level table (XLA 0.11 prints its stack frames as `FileNames`,
  // `FunctionNames`, `FileLocations`, `StackFrames` between the header and
  // the first computation): a word alone on its line, then one entry per
  // line, `ID value...`. The four known names, or any word at a line start
  // whose next line starts with an integer (a table a later XLA adds).
  bool AtTable() {
    if (tok_.kind != Tok::kIdent || !tok_.new_line || AtComputation()) return false;
    static constexpr std::string_view kTables[] = {"FileNames", "FunctionNames", "FileLocations", "StackFrames"};
    if (std::find(std::begin(kTables), std::end(kTables), tok_.spelling) != std::end(kTables)) return true;
    return Peek().kind == Tok::kInt && Peek().new_line;
  }

  // Skips a table: the keyword, then entries while a line starts with an
  // integer. An entry ends at the end of its line; one whose brackets are
  // still open there (a cut-off file) is an error at the entry.
  Status SkipTable() {
    std::string table(tok_.spelling);
    Advance();
    while (tok_.kind == Tok::kInt && tok_.new_line) {
      Token entry = tok_;
      Advance();
      int depth = 0;
      for (;;) {
        if (tok_.kind == Tok::kError) return ErrorAt(tok_, tok_.message);
        bool ended = tok_.kind == Tok::kEof || tok_.kind == Tok::kSplit || tok_.new_line;
        if (ended && depth > 0) {
          return ErrorAt(entry, "entry " + std::string(entry.spelling) + " of table '" + table +
                                    "' is cut off: a bracket is not closed on its line");
        }
        if (ended) break;
        if (tok_.Is('{') || tok_.Is('(') || tok_.Is('[')) {
          AZ_RETURN_IF_ERROR(Deeper(++depth));
        } else if (tok_.Is('}') || tok_.Is(')') || tok_.Is(']')) {
          if (--depth < 0) return ErrorAt(tok_, "unbalanced " + Describe(tok_) + " in table '" + table + "'");
        }
        Advance();
      }
    }
    return Status::Ok();
  }

  Status ParseModule(HloModule& module) {
    module.line = tok_.line;
    module.col = tok_.col;
    if (tok_.IsIdent("hlo_module") && (Peek().Is('{') || Peek().Is(':'))) {
      return ErrorAt(tok_,
                     "this is HloModuleProto text, not HLO text; dump HLO text instead "
                     "(XLA_FLAGS=--xla_dump_hlo_as_text, or compiled.as_text() in JAX)");
    }
    if (tok_.IsIdent("HloModule")) {
      module.has_header = true;
      Advance();
      if (tok_.kind != Tok::kIdent && tok_.kind != Tok::kInt) return ErrorHere("a module name");
      module.name = StripPercent(tok_.spelling);
      Advance();
      while (tok_.Is(',')) {
        Advance();
        AZ_RETURN_IF_ERROR(ParseAttribute(module.header));
      }
      for (const HloAttribute& a : module.header) {
        if (a.name == "is_scheduled") module.is_scheduled = a.value == "true";
        if (a.name == "replica_count" || a.name == "num_partitions") {
          int64_t v = 0;
          auto [ptr, ec] = std::from_chars(a.value.data(), a.value.data() + a.value.size(), v);
          if (ec != std::errc() || ptr != a.value.data() + a.value.size() || v < 1 || v > (int64_t{1} << 20)) {
            return LocatedError(StatusCode::kParseError, SourceLocation::Text(source_->name(), a.line, a.col),
                                a.name + " must be an integer in [1, 2^20], found '" + a.value + "'", source_.get());
          }
          if (a.name == "replica_count") {
            module.replica_count = v;
            module.has_replica_count = true;
          } else {
            module.num_partitions = v;
            module.has_num_partitions = true;
          }
        }
      }
    }
    while (tok_.kind != Tok::kEof && tok_.kind != Tok::kSplit) {
      if (tok_.kind == Tok::kError) return ErrorAt(tok_, tok_.message);
      if (AtTable()) {
        AZ_RETURN_IF_ERROR(SkipTable());
        continue;
      }
      if (!AtComputation()) {
        if (module.computations.empty()) return ErrorHere("a computation ('ENTRY name {' or 'name (...) -> ... {')");
        Warn(tok_, "skipped text after the last computation (not a computation): from " + Describe(tok_));
        while (tok_.kind != Tok::kEof && tok_.kind != Tok::kSplit) {
          if (tok_.kind == Tok::kError) return ErrorAt(tok_, tok_.message);
          Advance();
        }
        break;
      }
      AZ_RETURN_IF_ERROR(ParseComputation(module));
    }
    if (module.computations.empty()) return Status::Ok();
    if (module.entry < 0) module.entry = static_cast<int>(module.computations.size()) - 1;
    if (!module.has_header) module.name = "module_" + module.computations[module.entry].name;
    return Status::Ok();
  }

  std::shared_ptr<SourceBuffer> source_;
  Lexer lexer_;
  Token tok_;
  std::deque<Token> ahead_;
  size_t prev_end_ = 0;
  int64_t instruction_count_ = 0, computation_count_ = 0;
  std::vector<Diagnostic> warnings_;
};

int64_t SatMul(int64_t a, int64_t b) {
  if (a == 0 || b == 0) return 0;
  if (a > INT64_MAX / b) return INT64_MAX;
  return a * b;
}
int64_t SatAdd(int64_t a, int64_t b) { return a > INT64_MAX - b ? INT64_MAX : a + b; }

}  // namespace

int HloSubByteBits(std::string_view type) {
  if (type == "s1" || type == "u1") return 1;
  if (type == "s2" || type == "u2") return 2;
  if (type == "s4" || type == "u4" || type == "f4e2m1fn") return 4;
  return 0;
}

int HloTypeBytes(std::string_view type) {
  static const std::unordered_map<std::string_view, int> kBytes = {{"pred", 1},
                                                                   {"s1", 1},
                                                                   {"s2", 1},
                                                                   {"s4", 1},
                                                                   {"s8", 1},
                                                                   {"s16", 2},
                                                                   {"s32", 4},
                                                                   {"s64", 8},
                                                                   {"u1", 1},
                                                                   {"u2", 1},
                                                                   {"u4", 1},
                                                                   {"u8", 1},
                                                                   {"u16", 2},
                                                                   {"u32", 4},
                                                                   {"u64", 8},
                                                                   {"f16", 2},
                                                                   {"bf16", 2},
                                                                   {"f32", 4},
                                                                   {"f64", 8},
                                                                   {"f8e5m2", 1},
                                                                   {"f8e4m3", 1},
                                                                   {"f8e4m3fn", 1},
                                                                   {"f8e4m3b11fnuz", 1},
                                                                   {"f8e3m4", 1},
                                                                   {"f8e5m2fnuz", 1},
                                                                   {"f8e4m3fnuz", 1},
                                                                   {"f4e2m1fn", 1},
                                                                   {"f8e8m0fnu", 1},
                                                                   {"c64", 8},
                                                                   {"c128", 16},
                                                                   {"token", 0},
                                                                   {"opaque", 0}};
  auto it = kBytes.find(type);
  return it == kBytes.end() ? -1 : it->second;
}

int64_t HloShape::Elements() const {
  if (is_tuple) return 0;
  int64_t n = 1;
  for (int64_t d : dims) n = SatMul(n, d < 0 ? 1 : d);
  return n;
}

int64_t HloShape::Bytes() const {
  if (is_tuple) {
    int64_t total = 0;
    for (const HloShape& e : elements) total = SatAdd(total, e.Bytes());
    return total;
  }
  int width = HloTypeBytes(type);
  if (width <= 0) return 0;
  int64_t n = Elements();
  if (element_bits > 0 && element_bits < 8) {
    if (n > INT64_MAX / 8) return INT64_MAX;
    return (n * element_bits + 7) / 8;
  }
  return SatMul(n, width);
}

int64_t HloShape::Leaves() const {
  if (!is_tuple) return 1;
  int64_t n = 0;
  for (const HloShape& e : elements) n = SatAdd(n, e.Leaves());
  return n;
}

std::string HloShape::ToString() const {
  std::string s;
  if (is_tuple) {
    s = "(";
    for (size_t i = 0; i < elements.size(); ++i) s += (i ? ", " : "") + elements[i].ToString();
    return s + ")";
  }
  s = type + "[";
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? "," : "") + (dims[i] < 0 ? "?" : std::to_string(dims[i]));
  return s + "]";
}

const HloAttribute* HloInstruction::Attr(std::string_view name) const {
  for (const HloAttribute& a : attributes) {
    if (a.name == name) return &a;
  }
  return nullptr;
}

const HloComputation* HloModule::Find(std::string_view name) const {
  if (!name.empty() && name[0] == '%') name.remove_prefix(1);
  auto it = index.find(std::string(name));
  return it == index.end() ? nullptr : &computations[it->second];
}

StatusOr<HloFile> ParseHlo(std::string_view text, const std::string& file_name) {
  Parser parser(text, file_name);
  return parser.ParseFile();
}

Status AttributeError(const HloAttribute& attr, const std::string& message, const SourceBuffer* source) {
  return LocatedError(StatusCode::kParseError,
                      SourceLocation::Text(source ? source->name() : std::string("<hlo>"), attr.line, attr.col),
                      attr.name + ": " + message, source);
}

StatusOr<std::vector<int64_t>> ParseIntList(const HloAttribute& attr, const SourceBuffer* source) {
  std::string_view v = attr.value;
  auto trim = [](std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\n' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\n' || s.back() == '\t')) s.remove_suffix(1);
    return s;
  };
  v = trim(v);
  if (v.size() < 2 || v.front() != '{' || v.back() != '}') return AttributeError(attr, "expected '{ints}'", source);
  v = trim(v.substr(1, v.size() - 2));
  std::vector<int64_t> out;
  while (!v.empty()) {
    size_t comma = v.find(',');
    std::string_view item = trim(v.substr(0, comma));
    int64_t x = 0;
    auto [ptr, ec] = std::from_chars(item.data(), item.data() + item.size(), x);
    if (item.empty() || ec != std::errc() || ptr != item.data() + item.size()) {
      return AttributeError(attr, "expected an integer, found '" + std::string(item.substr(0, 40)) + "'", source);
    }
    out.push_back(x);
    if (comma == std::string_view::npos) break;
    v = v.substr(comma + 1);
  }
  return out;
}

StatusOr<std::vector<std::string>> ParseNameList(const HloAttribute& attr, const SourceBuffer* source) {
  std::string_view v = attr.value;
  std::vector<std::string> out;
  size_t i = 0;
  while (i < v.size()) {
    char c = v[i];
    if (c == '{' || c == '}' || c == ',' || c == ' ' || c == '\n' || c == '\t') {
      ++i;
      continue;
    }
    size_t j = i;
    if (v[j] == '%') ++j;
    size_t start = j;
    while (j < v.size() && IsNameChar(v[j])) ++j;
    if (j == start) return AttributeError(attr, "expected a computation name", source);
    out.emplace_back(v.substr(start, j - start));
    i = j;
  }
  if (out.empty()) return AttributeError(attr, "expected a computation name", source);
  return out;
}

}  // namespace az::compile::xla
