// XLA HLO text, as read by the importer: a lenient recursive-descent parser of
// the text XLA prints (`HloModule::ToString`, `--xla_dump_hlo_as_text`), into a
// small syntax tree that keeps what pricing needs and every attribute as raw
// text. The grammar and its pitfalls are in ../shared/reference/formats.md §1.
//
// Accepted: module headers (`HloModule name, key=value, ...`) and header-less
// text (`ENTRY ...` or `name { ... }`); several modules split by a line
// `// -----`; lit lines (`// RUN:`, `// CHECK`) as comments and `#` directives;
// `/* ... */` comments (`/*index=5*/`); `%` on names or not; shapes with
// layouts, tiles, element bits `E(n)` and memory spaces `S(n)`, tuples, bounded
// (`<=N`) and unbounded (`?`) dims; instructions with or without a shape and
// with or without operand shapes; attribute values of any form, skipped by
// bracket balancing (strings may hold braces). Unknown attributes are kept raw,
// never fatal. Module-level tables are skipped wherever they stand: XLA
// 0.11's stack frames (`FileNames`, `FunctionNames`, `FileLocations`,
// `StackFrames`, a word alone on a line then `ID value...` entries, one per
// line), and any word at a line start followed by such entries. Rejected
// with a located error: protobuf text (`hlo_module {`), unbalanced brackets,
// an unterminated string or comment, an instruction without
// `=`/opcode/operand list, a duplicate instruction or computation name, an
// operand naming no instruction of its computation, a table entry cut off
// with a bracket still open at the end of its line.
//
// Limits (hostile input): the parser bounds bracket and tuple nesting (256),
// instructions (2,000,000) and computations (200,000) per file; past them it
// answers kResourceExhausted with the location. Work is linear in the text.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "support/diagnostic.h"
#include "support/status.h"

namespace az::compile::xla {

constexpr int kMaxHloNesting = 256;
constexpr int64_t kMaxHloInstructions = 2'000'000;
constexpr int64_t kMaxHloComputations = 200'000;

// An HLO shape: an array (`bf16[8,128]{1,0}`), a tuple of shapes, or a token /
// opaque value (an array of type "token" / "opaque" with no dims).
struct HloShape {
  bool is_tuple = false;
  std::string type;                // "bf16", "s4", "pred", "token", ...; empty for tuples
  std::vector<int64_t> dims;       // bounded dynamic dims hold their bound; unbounded ones -1
  int element_bits = 0;            // E(n) in the layout (packed sub-byte); 0 = none
  int memory_space = 0;            // S(n) in the layout
  std::vector<HloShape> elements;  // tuples

  // Elements of an array (unbounded dims count as 1); 0 for tuples. Saturates.
  int64_t Elements() const;
  // Bytes of the value: arrays elements x type width (sub-byte types one byte
  // each unless E(bits) packs them); tuples the sum of their leaves. Saturates.
  int64_t Bytes() const;
  // Leaves of the tuple tree (1 for an array).
  int64_t Leaves() const;
  std::string ToString() const;  // "bf16[8,128]", "(f32[], s32[2])"
};

// Bytes per element of an HLO element type; 0 for token/opaque; -1 for an
// unknown type name. Sub-byte types (s4, u4, f4e2m1fn, ...) answer 1.
int HloTypeBytes(std::string_view type);
// Bit width of a sub-byte type (s1 s2 s4 u1 u2 u4 f4e2m1fn ...), else 0.
int HloSubByteBits(std::string_view type);

struct HloAttribute {
  std::string name;
  std::string value;      // raw source text of the value, e.g. "{{0,1},{2,3}}", "%add", "\"{...}\""
  int line = 0, col = 0;  // of the value's first token
};

struct HloInstruction {
  std::string name;    // without '%'
  std::string opcode;  // "all-gather-start", "fusion", ...
  bool has_shape = false;
  HloShape shape;
  bool is_root = false;
  // Operand names (without '%'), in order; `operands` holds their indices in
  // the computation once resolved. Literal operands (constant(0),
  // parameter(3), iota() forms) are kept in `literal` instead.
  std::vector<std::string> operand_names;
  std::vector<int> operands;
  std::string literal;  // the raw text inside the parentheses of constant / parameter
  std::vector<HloAttribute> attributes;
  int line = 0, col = 0;

  const HloAttribute* Attr(std::string_view name) const;
};

struct HloComputation {
  std::string name;
  bool is_entry = false;
  std::vector<HloInstruction> instructions;    // text order
  int root = -1;                               // ROOT, else the last instruction
  std::unordered_map<std::string, int> index;  // instruction name -> position
  int line = 0, col = 0;
};

struct HloModule {
  std::string name;
  bool has_header = false;
  bool is_scheduled = false;
  int64_t replica_count = 1, num_partitions = 1;
  bool has_replica_count = false, has_num_partitions = false;
  std::vector<HloAttribute> header;            // every header attribute, raw
  std::vector<HloComputation> computations;    // text order (callees first)
  std::unordered_map<std::string, int> index;  // computation name -> position
  int entry = -1;                              // ENTRY, else the last computation
  int line = 0, col = 0;

  const HloComputation* Find(std::string_view name) const;
};

struct HloFile {
  std::shared_ptr<const SourceBuffer> source;
  std::vector<HloModule> modules;  // one per `// -----` section that holds a computation
  std::vector<Diagnostic> warnings;
};

// Parses HLO text; `file_name` locates errors. Warnings (a trailing
// non-computation table skipped, ...) are returned in the file.
StatusOr<HloFile> ParseHlo(std::string_view text, const std::string& file_name);

// Small parsers over attribute values (each answers a located error through
// `attr` on malformed text).
// "{1,2}" / "{}" -> ints.
StatusOr<std::vector<int64_t>> ParseIntList(const HloAttribute& attr, const SourceBuffer* source);
// "%name" / "name" / "{%a, %b}" -> names without '%'.
StatusOr<std::vector<std::string>> ParseNameList(const HloAttribute& attr, const SourceBuffer* source);
// A located error about an attribute.
Status AttributeError(const HloAttribute& attr, const std::string& message, const SourceBuffer* source);

}  // namespace az::compile::xla
