#include "support/diagnostic.h"

#include <algorithm>

namespace az {

SourceBuffer::SourceBuffer(std::string name, std::string text) : name_(std::move(name)), text_(std::move(text)) {
  line_starts_.push_back(0);
  for (size_t i = 0; i < text_.size(); ++i) {
    if (text_[i] == '\n') line_starts_.push_back(i + 1);
  }
}

std::string_view SourceBuffer::Line(int line) const {
  if (line < 1 || static_cast<size_t>(line) > line_starts_.size()) return {};
  size_t begin = line_starts_[line - 1];
  size_t end = text_.find('\n', begin);
  if (end == std::string::npos) end = text_.size();
  std::string_view view(text_);
  return view.substr(begin, end - begin);
}

std::string SourceLocation::ToString() const {
  if (is_text()) return file + ":" + std::to_string(line) + ":" + std::to_string(col);
  if (!op.empty()) return "op '" + op + "'";
  return "";
}

void DiagnosticEngine::Error(SourceLocation loc, std::string message) {
  diagnostics_.push_back({Severity::kError, std::move(loc), std::move(message)});
  ++error_count_;
}
void DiagnosticEngine::Warning(SourceLocation loc, std::string message) {
  diagnostics_.push_back({Severity::kWarning, std::move(loc), std::move(message)});
}
void DiagnosticEngine::Note(SourceLocation loc, std::string message) {
  diagnostics_.push_back({Severity::kNote, std::move(loc), std::move(message)});
}

static const char* SeverityName(Severity s) {
  switch (s) {
    case Severity::kError: return "error";
    case Severity::kWarning: return "warning";
    case Severity::kNote: return "note";
  }
  return "error";
}

std::string RenderDiagnostic(const Diagnostic& d, const SourceBuffer* source) {
  std::string out;
  std::string where = d.location.ToString();
  if (!where.empty()) out += where + ": ";
  out += SeverityName(d.severity);
  out += ": ";
  out += d.message;
  if (d.location.is_text() && source != nullptr && source->name() == d.location.file) {
    std::string_view line = source->Line(d.location.line);
    if (!line.empty() || d.location.line == 1) {
      out += "\n  ";
      out += line;
      out += "\n  ";
      // Keep tabs so that the caret lines up under the column.
      int col = std::max(1, d.location.col);
      for (int i = 1; i < col; ++i) {
        out += (static_cast<size_t>(i - 1) < line.size() && line[i - 1] == '\t') ? '\t' : ' ';
      }
      out += '^';
    }
  }
  return out;
}

std::string DiagnosticEngine::Render(const Diagnostic& d) const { return RenderDiagnostic(d, source_.get()); }

std::string DiagnosticEngine::RenderAll() const {
  std::string out;
  for (const Diagnostic& d : diagnostics_) {
    if (!out.empty()) out += '\n';
    out += Render(d);
  }
  return out;
}

Status DiagnosticEngine::ToStatus(StatusCode code) const {
  if (!has_errors()) return Status::Ok();
  std::string out;
  for (const Diagnostic& d : diagnostics_) {
    if (d.severity != Severity::kError) continue;
    if (!out.empty()) out += '\n';
    out += Render(d);
  }
  return Status(code, out);
}

Status LocatedError(StatusCode code, const SourceLocation& loc, const std::string& message,
                    const SourceBuffer* source) {
  return Status(code, RenderDiagnostic({Severity::kError, loc, message}, source));
}

}  // namespace az
