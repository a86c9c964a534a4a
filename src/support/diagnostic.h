// Located diagnostics.
//
// A location is either a position in a text input (file:line:col) or, for graphs
// built in code, the name of the op that carries the problem. An error renders as
//
//   model.pir:12:7: error: unknown op kind 'matmull'
//     %3 = matmull(%1, %2) : bf16[4,8]
//          ^
//
// and becomes a Status whose message is that rendering, so that callers up the
// stack (the CLI) print it unchanged.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "support/status.h"

namespace az {

// The text of one input file, shared by the lexer and by diagnostics.
class SourceBuffer {
 public:
  SourceBuffer(std::string name, std::string text);
  const std::string& name() const { return name_; }
  const std::string& text() const { return text_; }
  // Line `line` (1-based) without its newline; empty when out of range.
  std::string_view Line(int line) const;

 private:
  std::string name_;
  std::string text_;
  std::vector<size_t> line_starts_;
};

struct SourceLocation {
  // Text position (1-based) when `line > 0`.
  std::string file;
  int line = 0;
  int col = 0;
  // For built graphs: the op's name.
  std::string op;

  static SourceLocation Text(std::string file, int line, int col) {
    SourceLocation loc;
    loc.file = std::move(file);
    loc.line = line;
    loc.col = col;
    return loc;
  }
  static SourceLocation Op(std::string name) {
    SourceLocation loc;
    loc.op = std::move(name);
    return loc;
  }
  bool is_text() const { return line > 0; }
  bool known() const { return is_text() || !op.empty(); }
  // "file:line:col", "op 'name'", or "" when unknown.
  std::string ToString() const;
};

enum class Severity { kError, kWarning, kNote };

struct Diagnostic {
  Severity severity = Severity::kError;
  SourceLocation location;
  std::string message;
};

// Collects diagnostics for one input; renders them with source lines and carets.
class DiagnosticEngine {
 public:
  DiagnosticEngine() = default;
  explicit DiagnosticEngine(std::shared_ptr<const SourceBuffer> source) : source_(std::move(source)) {}

  void Error(SourceLocation loc, std::string message);
  void Warning(SourceLocation loc, std::string message);
  void Note(SourceLocation loc, std::string message);

  bool has_errors() const { return error_count_ > 0; }
  int error_count() const { return error_count_; }
  const std::vector<Diagnostic>& diagnostics() const { return diagnostics_; }

  std::string Render(const Diagnostic& diagnostic) const;
  std::string RenderAll() const;
  // OK when there are no errors; otherwise `code` with every diagnostic rendered.
  Status ToStatus(StatusCode code = StatusCode::kInvalidArgument) const;

 private:
  std::shared_ptr<const SourceBuffer> source_;
  std::vector<Diagnostic> diagnostics_;
  int error_count_ = 0;
};

// Renders one diagnostic (with the source line and caret when `source` covers it).
std::string RenderDiagnostic(const Diagnostic& diagnostic, const SourceBuffer* source);

// A Status carrying one rendered, located error.
Status LocatedError(StatusCode code, const SourceLocation& loc, const std::string& message,
                    const SourceBuffer* source = nullptr);

}  // namespace az
