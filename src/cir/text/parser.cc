#include "cir/text/parser.h"

#include <algorithm>
#include <initializer_list>
#include <map>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include "cir/text/lexer.h"
#include "support/diagnostic.h"
#include "support/token_parser.h"

namespace az::cir {

namespace {

// Keeps line and column numbers and every count far inside int.
constexpr size_t kMaxInputBytes = size_t{1} << 30;
// Device ids and iota sizes; kMaxProgramDevices is the same bound.
constexpr int64_t kMaxGroupInt = kMaxProgramDevices;
// Replica-group and pair ids over the whole program. The iota form expands 20
// bytes of text into up to 2^20 ids; this bounds what a small input can cost
// (16 MiB, and about a second under the fuzzer's sanitizers) while leaving
// room for thousands of collectives over hundreds of devices.
constexpr int64_t kMaxGroupIds = int64_t{1} << 22;
// Expanding the iota form costs its size times its rank. 20 dims is what the
// printer may need: FormatIotaReplicaGroups merges contiguous dims, so each
// dim it prints has size >= 2, and 2^20 devices allow at most 20 of them.
constexpr size_t kMaxIotaRank = 20;

// A done whose start is resolved once every instruction name is known.
struct PendingStart {
  int done = 0;
  std::string name;
  Token token;  // the start's name, for the error
};

class Parser : public TokenParser<Lexer, Token> {
 public:
  Parser(std::string_view text, std::string file_name) : TokenParser(text, std::move(file_name)) {}

  StatusOr<Program> Parse() {
    AZ_RETURN_IF_ERROR(ParseProgramBody());
    AZ_RETURN_IF_ERROR(ResolveStarts());
    return std::move(program_);
  }

 private:
  // ------------------------------------------------------------ literals


  // A device id or an iota size: 0 <= value <= 2^20.
  StatusOr<int> ParseGroupInt(const char* what) {
    Token token = tok_;
    AZ_ASSIGN_OR_RETURN(int64_t value, ParseInt(what));
    if (value < 0) return ErrorAt(token, std::string(what) + " must be non-negative, got " + std::to_string(value));
    if (value > kMaxGroupInt) {
      return ErrorAt(token, std::string(what) + " " + std::to_string(value) + " exceeds the limit of 2^20 devices",
                     StatusCode::kResourceExhausted);
    }
    return static_cast<int>(value);
  }
  Status CountGroupIds(const Token& token, int64_t count) {
    group_ids_ += count;
    if (group_ids_ <= kMaxGroupIds) return Status::Ok();
    return ErrorAt(token, "the program's replica groups and pairs exceed the limit of 2^22 device ids",
                   StatusCode::kResourceExhausted);
  }

  // ------------------------------------------------------------ buffers
  StatusOr<int> ParseUse() {
    if (!At(TokenKind::kBufferRef)) return Expected("a buffer such as %0");
    AZ_ASSIGN_OR_RETURN(int64_t number, BufferNumber());
    auto it = ids_.find(number);
    if (it == ids_.end()) return ErrorAt(tok_, "use of undefined buffer %" + std::to_string(number));
    Advance();
    return it->second;
  }
  StatusOr<int64_t> BufferNumber() const { return RefNumber("buffer number out of range"); }
  // '(' refs? ')'
  StatusOr<std::vector<int>> ParseRefList(const char* what) {
    AZ_RETURN_IF_ERROR(Expect(TokenKind::kLParen, what));
    std::vector<int> ids;
    while (!At(TokenKind::kRParen)) {
      if (!ids.empty()) AZ_RETURN_IF_ERROR(Expect(TokenKind::kComma, "',' or ')' in the buffer list"));
      AZ_ASSIGN_OR_RETURN(int id, ParseUse());
      ids.push_back(id);
    }
    Advance();
    return ids;
  }
  Status ParseLists(Instruction* instruction) {
    AZ_ASSIGN_OR_RETURN(instruction->operands, ParseRefList("'(' to start the operands"));
    AZ_RETURN_IF_ERROR(Expect(TokenKind::kArrow, "'->' between the operands and the results"));
    AZ_ASSIGN_OR_RETURN(instruction->results, ParseRefList("'(' to start the results"));
    return Status::Ok();
  }

  Status ParseBuffer() {
    Token start = tok_;
    Advance();  // 'buffer'
    if (static_cast<int64_t>(program_.buffers.size()) >= kMaxProgramBuffers) {
      return ErrorAt(start, "more than " + std::to_string(kMaxProgramBuffers) + " buffers",
                     StatusCode::kResourceExhausted);
    }
    if (!At(TokenKind::kBufferRef)) return Expected("a buffer such as %0");
    Token number_token = tok_;
    AZ_ASSIGN_OR_RETURN(int64_t number, BufferNumber());
    if (ids_.count(number)) return ErrorAt(tok_, "buffer %" + std::to_string(number) + " is defined twice");
    Advance();
    Buffer buffer;
    buffer.loc = Loc(start);
    AZ_ASSIGN_OR_RETURN(buffer.name, ParseString("the buffer's name (a quoted string)"));
    if (!At(TokenKind::kIdent)) {
      return Expected("a buffer kind (param, input, activation, communication, const, opt_state or grad)");
    }
    std::optional<BufferKind> kind = ParseBufferKind(tok_.text);
    if (!kind) {
      return ErrorAt(tok_, "unknown buffer kind '" + tok_.text +
                               "' (expected param, input, activation, communication, const, opt_state or grad)");
    }
    buffer.kind = *kind;
    Advance();
    AZ_RETURN_IF_ERROR(ParseType(&buffer));
    ids_.emplace(number, program_.AddBuffer(std::move(buffer)));
    return Status::Ok();
  }

  // IDENT '[' dims ']', within the limits of program.h so that Buffer::bytes()
  // cannot overflow on a parsed program.
  Status ParseType(Buffer* buffer) {
    if (!At(TokenKind::kIdent)) return Expected("a type such as bf16[8,16]");
    Token dtype_token = tok_;
    std::optional<pir::DType> dtype = pir::ParseDType(tok_.text);
    if (!dtype) return ErrorAt(tok_, "unknown dtype '" + tok_.text + "'");
    buffer->dtype = *dtype;
    Advance();
    AZ_RETURN_IF_ERROR(Expect(TokenKind::kLBracket, "'[' after the dtype"));
    int64_t nonzero_product = 1;
    while (!At(TokenKind::kRBracket)) {
      if (!buffer->shape.empty()) AZ_RETURN_IF_ERROR(Expect(TokenKind::kComma, "',' or ']' in the shape"));
      Token dim_token = tok_;
      AZ_ASSIGN_OR_RETURN(int64_t dim, ParseInt("a dimension"));
      if (dim < 0) return ErrorAt(dim_token, "a dimension must be non-negative, got " + std::to_string(dim));
      if (static_cast<int64_t>(buffer->shape.size()) == kMaxBufferRank) {
        return ErrorAt(dim_token, "buffer rank exceeds the limit of 64", StatusCode::kResourceExhausted);
      }
      // Bounding the product of the nonzero dims bounds every partial product.
      if (dim > 0 && nonzero_product > kMaxBufferElements / dim) {
        return ErrorAt(dim_token, "buffer shape exceeds the limit of 2^62 elements", StatusCode::kResourceExhausted);
      }
      if (dim > 0) nonzero_product *= dim;
      buffer->shape.push_back(dim);
    }
    Advance();
    if (nonzero_product > kMaxBufferBytes / pir::DTypeBytes(buffer->dtype)) {
      return ErrorAt(dtype_token, "buffer size exceeds the limit of 2^62 bytes", StatusCode::kResourceExhausted);
    }
    return Status::Ok();
  }

  // ------------------------------------------------------------ groups and pairs
  StatusOr<ReplicaGroups> ParseGroups() {
    if (At(TokenKind::kLBracket)) return ParseIotaGroups();
    if (!At(TokenKind::kLBrace)) return Expected("replica groups such as {{0,1},{2,3}} or [2,2]<=[4]");
    Advance();
    ReplicaGroups groups;
    while (!At(TokenKind::kRBrace)) {
      if (!groups.groups.empty()) AZ_RETURN_IF_ERROR(Expect(TokenKind::kComma, "',' or '}' between groups"));
      AZ_RETURN_IF_ERROR(Expect(TokenKind::kLBrace, "'{' to start a replica group"));
      std::vector<int> group;
      while (!At(TokenKind::kRBrace)) {
        if (!group.empty()) AZ_RETURN_IF_ERROR(Expect(TokenKind::kComma, "',' or '}' in the replica group"));
        Token id_token = tok_;
        AZ_ASSIGN_OR_RETURN(int id, ParseGroupInt("a device id"));
        AZ_RETURN_IF_ERROR(CountGroupIds(id_token, 1));
        group.push_back(id);
      }
      Advance();
      groups.groups.push_back(std::move(group));
    }
    Advance();
    return groups;
  }

  // '[' INT ',' INT ']' '<=' '[' INT (',' INT)* ']' ('T' '(' INT (',' INT)* ')')?
  // Checked here so that every error has a location; expanded by
  // ParseReplicaGroups, the one implementation of XLA's iota form.
  StatusOr<ReplicaGroups> ParseIotaGroups() {
    Token start = tok_;
    Advance();  // '['
    AZ_ASSIGN_OR_RETURN(int num_groups, ParseGroupInt("a group count"));
    AZ_RETURN_IF_ERROR(Expect(TokenKind::kComma, "',' between the group count and the group size"));
    AZ_ASSIGN_OR_RETURN(int group_size, ParseGroupInt("a group size"));
    AZ_RETURN_IF_ERROR(Expect(TokenKind::kRBracket, "']' after the group size"));
    AZ_RETURN_IF_ERROR(Expect(TokenKind::kLessEqual, "'<=' in the iota form"));
    Token dims_token = tok_;
    AZ_ASSIGN_OR_RETURN(std::vector<int> dims, ParseIotaList(TokenKind::kLBracket, TokenKind::kRBracket, "'['",
                                                             "',' or ']' in the iota dims", "an iota dim"));
    int64_t total = 1;
    for (int dim : dims) {
      if (dim < 1) return ErrorAt(dims_token, "iota dims must be positive");
      total *= dim;
      if (total > kMaxGroupInt) {
        return ErrorAt(dims_token, "the iota form exceeds the limit of 2^20 devices", StatusCode::kResourceExhausted);
      }
    }
    std::vector<int> perm;
    if (AtKeyword("T")) {
      Token perm_token = tok_;
      Advance();
      AZ_ASSIGN_OR_RETURN(perm, ParseIotaList(TokenKind::kLParen, TokenKind::kRParen, "'(' after 'T'",
                                              "',' or ')' in the permutation", "a dim index"));
      std::vector<char> seen(dims.size(), 0);
      bool is_permutation = perm.size() == dims.size();
      for (int p : perm) {
        if (!is_permutation) break;
        is_permutation = p < static_cast<int>(dims.size()) && !seen[p];
        if (is_permutation) seen[p] = 1;
      }
      if (!is_permutation) {
        return ErrorAt(perm_token, "T(...) must be a permutation of the " + std::to_string(dims.size()) + " iota dims");
      }
    }
    if (static_cast<int64_t>(num_groups) * group_size != total) {
      return ErrorAt(start, "[" + std::to_string(num_groups) + "," + std::to_string(group_size) + "] does not hold " +
                                std::to_string(total) + " devices");
    }
    AZ_RETURN_IF_ERROR(CountGroupIds(start, total));
    std::string text =
        "[" + std::to_string(num_groups) + "," + std::to_string(group_size) + "]<=" + JoinInts('[', dims, ']');
    if (!perm.empty()) text += "T" + JoinInts('(', perm, ')');
    StatusOr<ReplicaGroups> groups = ParseReplicaGroups(text, static_cast<int>(total), /*allow_partial=*/true);
    if (!groups.ok()) return ErrorAt(start, groups.status().message());
    return groups;
  }
  StatusOr<std::vector<int>> ParseIotaList(TokenKind open, TokenKind close, const char* open_what,
                                           const char* separator_what, const char* element_what) {
    AZ_RETURN_IF_ERROR(Expect(open, open_what));
    std::vector<int> list;
    do {
      if (!list.empty()) AZ_RETURN_IF_ERROR(Expect(TokenKind::kComma, separator_what));
      if (list.size() == kMaxIotaRank) {
        return ErrorAt(tok_, "the iota form exceeds the limit of 20 dims", StatusCode::kResourceExhausted);
      }
      AZ_ASSIGN_OR_RETURN(int value, ParseGroupInt(element_what));
      list.push_back(value);
    } while (!At(close));
    Advance();
    return list;
  }
  static std::string JoinInts(char open, const std::vector<int>& values, char close) {
    std::string out(1, open);
    for (size_t i = 0; i < values.size(); ++i) {
      if (i) out += ',';
      out += std::to_string(values[i]);
    }
    return out + close;
  }

  StatusOr<std::vector<std::pair<int, int>>> ParsePairs() {
    AZ_RETURN_IF_ERROR(Expect(TokenKind::kLBrace, "source-target pairs such as {{0,1},{1,0}}"));
    std::vector<std::pair<int, int>> pairs;
    while (!At(TokenKind::kRBrace)) {
      if (!pairs.empty()) AZ_RETURN_IF_ERROR(Expect(TokenKind::kComma, "',' or '}' between pairs"));
      Token pair_token = tok_;
      AZ_RETURN_IF_ERROR(Expect(TokenKind::kLBrace, "'{' to start a source-target pair"));
      AZ_ASSIGN_OR_RETURN(int source, ParseGroupInt("a device id"));
      AZ_RETURN_IF_ERROR(Expect(TokenKind::kComma, "',' between the source and the target"));
      AZ_ASSIGN_OR_RETURN(int target, ParseGroupInt("a device id"));
      AZ_RETURN_IF_ERROR(Expect(TokenKind::kRBrace, "'}' to end the pair"));
      AZ_RETURN_IF_ERROR(CountGroupIds(pair_token, 2));
      pairs.emplace_back(source, target);
    }
    Advance();
    return pairs;
  }

  // ------------------------------------------------------------ instructions
  // The attribute dictionary of one instruction: `allowed` keys in printed
  // order, of which the first `required` must appear.
  Status ParseAttrs(Instruction* instruction, const Token& start, std::initializer_list<std::string_view> allowed,
                    size_t required) {
    AZ_RETURN_IF_ERROR(Expect(TokenKind::kLBrace, "'{' to start the attributes"));
    std::vector<char> seen(allowed.size(), 0);
    bool first = true;
    while (!At(TokenKind::kRBrace)) {
      if (!first) AZ_RETURN_IF_ERROR(Expect(TokenKind::kComma, "',' or '}' in the attributes"));
      first = false;
      if (!At(TokenKind::kIdent)) return Expected("an attribute name");
      Token key = tok_;
      auto it = std::find(allowed.begin(), allowed.end(), key.text);
      if (it == allowed.end()) {
        std::string list;
        for (std::string_view name : allowed) list += (list.empty() ? "" : ", ") + std::string(name);
        return ErrorAt(key, "unknown attribute '" + key.text + "' for " + OpcodeName(*instruction) + " (expected " +
                                list + ")");
      }
      char& key_seen = seen[static_cast<size_t>(it - allowed.begin())];
      if (key_seen) return ErrorAt(key, "duplicate attribute '" + key.text + "'");
      key_seen = 1;
      Advance();
      AZ_RETURN_IF_ERROR(Expect(TokenKind::kEqual, "'=' after the attribute name"));
      AZ_RETURN_IF_ERROR(ParseAttrValue(key.text, instruction));
    }
    Advance();
    for (size_t i = 0; i < required; ++i) {
      if (!seen[i]) {
        return ErrorAt(start, OpcodeName(*instruction) + " '" + instruction->name + "' lacks the attribute '" +
                                  std::string(allowed.begin()[i]) + "'");
      }
    }
    return Status::Ok();
  }
  Status ParseAttrValue(const std::string& key, Instruction* instruction) {
    if (key == "origin") {
      AZ_ASSIGN_OR_RETURN(instruction->origin, ParseString("the origin (a quoted string)"));
    } else if (key == "groups") {
      AZ_ASSIGN_OR_RETURN(instruction->groups, ParseGroups());
    } else if (key == "pairs") {
      AZ_ASSIGN_OR_RETURN(instruction->pairs, ParsePairs());
    } else if (key == "dims") {
      AZ_RETURN_IF_ERROR(Expect(TokenKind::kLBracket, "'[' to start the dims"));
      while (!At(TokenKind::kRBracket)) {
        if (!instruction->dims.empty()) AZ_RETURN_IF_ERROR(Expect(TokenKind::kComma, "',' or ']' in the dims"));
        if (instruction->dims.size() >= kMaxKernelDims) {
          return ErrorHere("more than " + std::to_string(kMaxKernelDims) + " kernel dims");
        }
        AZ_ASSIGN_OR_RETURN(int64_t dim, ParseInt("a kernel dim"));
        instruction->dims.push_back(dim);
      }
      Advance();
    } else if (key == "precision") {
      if (!At(TokenKind::kIdent)) return Expected("a dtype such as bf16 or f32");
      std::optional<pir::DType> dtype = pir::ParseDType(tok_.text);
      if (!dtype) return ErrorHere("unknown dtype '" + tok_.text + "' for the precision");
      instruction->precision = *dtype;
      Advance();
    } else {
      AZ_ASSIGN_OR_RETURN(int64_t value, ParseInt("an integer"));
      if (key == "flops") instruction->flops = Flops(value);
      if (key == "read") instruction->bytes_read = Bytes(value);
      if (key == "written") instruction->bytes_written = Bytes(value);
      if (key == "bytes") instruction->collective_bytes = Bytes(value);
    }
    return Status::Ok();
  }

  // Splits "all-gather-start" into its kind and InstrKind; nullopt when the
  // word is no opcode.
  static std::optional<std::pair<InstrKind, CollectiveKind>> ParseOpcode(std::string_view word) {
    InstrKind kind = InstrKind::kCollective;
    for (auto [suffix, suffix_kind] : {std::pair<std::string_view, InstrKind>{"-start", InstrKind::kCollectiveStart},
                                       std::pair<std::string_view, InstrKind>{"-done", InstrKind::kCollectiveDone}}) {
      if (word.size() > suffix.size() && word.substr(word.size() - suffix.size()) == suffix) {
        word.remove_suffix(suffix.size());
        kind = suffix_kind;
        break;
      }
    }
    StatusOr<CollectiveKind> collective = ParseCollectiveKind(word);
    if (!collective.ok()) return std::nullopt;
    return std::pair(kind, *collective);
  }

  Status ParseInstruction() {
    Token start = tok_;
    if (static_cast<int64_t>(program_.instructions.size()) >= kMaxProgramInstructions) {
      return ErrorAt(start, "more than " + std::to_string(kMaxProgramInstructions) + " instructions",
                     StatusCode::kResourceExhausted);
    }
    Instruction instruction;
    instruction.loc = Loc(start);
    if (start.text == "kernel") {
      instruction.kind = InstrKind::kKernel;
    } else if (auto opcode = ParseOpcode(start.text)) {
      instruction.kind = opcode->first;
      instruction.collective = opcode->second;
    } else {
      return ErrorAt(start, "unknown instruction '" + start.text +
                                "' (expected buffer, kernel, outputs, or a collective such as all-reduce, "
                                "all-gather-start or all-gather-done)");
    }
    Advance();
    Token name_token = tok_;
    AZ_ASSIGN_OR_RETURN(instruction.name, ParseString("the instruction's name (a quoted string)"));
    const int index = static_cast<int>(program_.instructions.size());
    auto [it, inserted] = names_.emplace(instruction.name, index);
    if (!inserted) {
      const SourceLocation& first = program_.instructions[it->second].loc;
      return ErrorAt(name_token, "instruction name '" + instruction.name + "' is already used at line " +
                                     std::to_string(first.line));
    }
    switch (instruction.kind) {
      case InstrKind::kKernel: {
        if (!At(TokenKind::kIdent)) return Expected("a kernel kind such as matmul");
        std::optional<KernelKind> kernel = ParseKernelKind(tok_.text);
        if (!kernel) {
          return ErrorAt(tok_, "unknown kernel kind '" + tok_.text +
                                   "' (expected matmul, attention, convolution, elementwise, norm, reduce, copy or "
                                   "custom)");
        }
        instruction.kernel = *kernel;
        Advance();
        AZ_RETURN_IF_ERROR(ParseLists(&instruction));
        AZ_RETURN_IF_ERROR(ParseAttrs(&instruction, start, {"flops", "read", "written", "dims", "precision", "origin"}, 3));
        break;
      }
      case InstrKind::kCollective:
      case InstrKind::kCollectiveStart: {
        AZ_RETURN_IF_ERROR(ParseLists(&instruction));
        std::string_view members =
            instruction.collective == CollectiveKind::kCollectivePermute ? "pairs" : "groups";
        AZ_RETURN_IF_ERROR(ParseAttrs(&instruction, start, {"bytes", members, "origin"}, 2));
        break;
      }
      case InstrKind::kCollectiveDone: {
        if (At(TokenKind::kLParen)) AZ_RETURN_IF_ERROR(ParseLists(&instruction));
        AZ_RETURN_IF_ERROR(ExpectKeyword("start"));
        AZ_RETURN_IF_ERROR(Expect(TokenKind::kEqual, "'=' after 'start'"));
        Token start_name = tok_;
        AZ_ASSIGN_OR_RETURN(std::string start_instruction, ParseString("the start's name (a quoted string)"));
        pending_starts_.push_back({index, std::move(start_instruction), std::move(start_name)});
        if (At(TokenKind::kLBrace)) AZ_RETURN_IF_ERROR(ParseAttrs(&instruction, start, {"origin"}, 0));
        break;
      }
    }
    program_.AddInstruction(std::move(instruction));
    return Status::Ok();
  }

  Status ResolveStarts() {
    for (PendingStart& pending : pending_starts_) {
      auto it = names_.find(pending.name);
      if (it == names_.end()) return ErrorAt(pending.token, "no instruction is named '" + pending.name + "'");
      program_.instructions[pending.done].start = it->second;
    }
    return Status::Ok();
  }

  // ------------------------------------------------------------ program
  Status ParseProgramBody() {
    AZ_RETURN_IF_ERROR(ExpectKeyword("program"));
    AZ_ASSIGN_OR_RETURN(program_.name, ParseString("the program name (a quoted string)"));
    AZ_RETURN_IF_ERROR(ExpectKeyword("devices"));
    AZ_RETURN_IF_ERROR(Expect(TokenKind::kEqual, "'=' after 'devices'"));
    Token devices_token = tok_;
    AZ_ASSIGN_OR_RETURN(program_.num_devices, ParseInt("the device count"));
    if (program_.num_devices < 1) {
      return ErrorAt(devices_token, "the device count must be positive, got " + std::to_string(program_.num_devices));
    }
    if (program_.num_devices > kMaxProgramDevices) {
      return ErrorAt(devices_token, "the device count exceeds the limit of 2^20", StatusCode::kResourceExhausted);
    }
    if (AtKeyword("mesh")) {
      Advance();
      AZ_RETURN_IF_ERROR(Expect(TokenKind::kEqual, "'=' after 'mesh'"));
      AZ_ASSIGN_OR_RETURN(program_.mesh, ParseString("the mesh (a quoted string such as \"x=2,y=4\")"));
    }
    AZ_RETURN_IF_ERROR(Expect(TokenKind::kLBrace, "'{' to start the program body"));
    while (!AtKeyword("outputs")) {
      if (AtKeyword("buffer")) {
        AZ_RETURN_IF_ERROR(ParseBuffer());
      } else if (At(TokenKind::kIdent)) {
        AZ_RETURN_IF_ERROR(ParseInstruction());
      } else {
        return Expected("a buffer, an instruction or 'outputs'");
      }
    }
    Advance();
    AZ_ASSIGN_OR_RETURN(program_.outputs, ParseRefList("'(' to start the outputs"));
    AZ_RETURN_IF_ERROR(Expect(TokenKind::kRBrace, "'}' to end the program after the outputs"));
    if (!At(TokenKind::kEof)) return Expected("end of input after the program");
    return Status::Ok();
  }

  Program program_;
  std::map<int64_t, int> ids_;                  // text buffer number -> buffer id
  std::unordered_map<std::string, int> names_;  // instruction name -> index
  std::vector<PendingStart> pending_starts_;
  int64_t group_ids_ = 0;
};

StatusOr<Program> Run(std::string_view text, std::string file_name, bool verify) {
  if (text.size() > kMaxInputBytes) {
    return LocatedError(StatusCode::kResourceExhausted, SourceLocation::Text(std::move(file_name), 1, 1),
                        "input of " + std::to_string(text.size()) + " bytes exceeds the limit of 1 GiB");
  }
  Parser parser(text, std::move(file_name));
  AZ_ASSIGN_OR_RETURN(Program program, parser.Parse());
  if (verify) AZ_RETURN_IF_ERROR(VerifyProgram(program, &parser.source()));
  return program;
}

}  // namespace

StatusOr<Program> ParseProgram(std::string_view text, std::string file_name) {
  return Run(text, std::move(file_name), /*verify=*/false);
}

StatusOr<Program> ParseAndVerifyProgram(std::string_view text, std::string file_name) {
  return Run(text, std::move(file_name), /*verify=*/true);
}

}  // namespace az::cir
