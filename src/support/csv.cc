#include "support/csv.h"

#include <charconv>
#include <cmath>
#include <optional>

namespace az::support {

namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

// Cells separated by commas; a cell in double quotes may hold commas ("" is a quote).
std::optional<std::vector<std::string>> SplitCsv(std::string_view line) {
  std::vector<std::string> cells;
  size_t pos = 0;
  while (true) {
    while (pos < line.size() && (line[pos] == ' ' || line[pos] == '\t')) ++pos;
    std::string cell;
    if (pos < line.size() && line[pos] == '"') {
      ++pos;
      bool closed = false;
      while (pos < line.size()) {
        if (line[pos] == '"') {
          if (pos + 1 < line.size() && line[pos + 1] == '"') {
            cell += '"';
            pos += 2;
            continue;
          }
          closed = true;
          ++pos;
          break;
        }
        cell += line[pos++];
      }
      if (!closed) return std::nullopt;
      size_t comma = line.find(',', pos);
      if (!Trim(line.substr(pos, comma == std::string_view::npos ? std::string_view::npos : comma - pos)).empty()) {
        return std::nullopt;  // text after the closing quote
      }
      pos = comma;
    } else {
      size_t comma = line.find(',', pos);
      size_t length = comma == std::string_view::npos ? std::string_view::npos : comma - pos;
      cell = std::string(Trim(line.substr(pos, length)));
      pos = comma;
    }
    cells.push_back(std::move(cell));
    if (pos == std::string_view::npos) break;
    ++pos;
  }
  return cells;
}

}  // namespace

Status LineError(std::string_view file, int line, const std::string& message) {
  return InvalidArgument(std::string(file) + ":" + std::to_string(line) + ": error: " + message);
}

StatusOr<CsvTable> ReadCsv(std::string_view text, std::string_view file, const std::vector<std::string>& required) {
  constexpr size_t kMaxRows = 1'000'000;
  CsvTable table;
  size_t header_size = 0;
  int line_number = 0;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t end = text.find('\n', pos);
    std::string_view line = Trim(text.substr(pos, end == std::string_view::npos ? std::string_view::npos : end - pos));
    pos = end == std::string_view::npos ? text.size() + 1 : end + 1;
    ++line_number;
    if (line.empty() || line.front() == '#') continue;
    auto cells = SplitCsv(line);
    if (!cells) return LineError(file, line_number, "unterminated or misplaced double quote");
    if (header_size == 0) {
      header_size = cells->size();
      for (size_t i = 0; i < cells->size(); ++i) {
        if (!table.column.emplace((*cells)[i], i).second) {
          return LineError(file, line_number, "column '" + (*cells)[i] + "' appears twice in the header");
        }
      }
      for (const std::string& name : required) {
        if (!table.column.count(name)) return LineError(file, line_number, "the header has no '" + name + "' column");
      }
      continue;
    }
    if (cells->size() != header_size) {
      return LineError(file, line_number,
                       "expected " + std::to_string(header_size) + " columns, found " + std::to_string(cells->size()));
    }
    if (table.rows.size() >= kMaxRows) return LineError(file, line_number, "more than a million rows");
    table.rows.push_back({line_number, std::move(*cells)});
  }
  if (header_size == 0) return InvalidArgument(std::string(file) + ": error: no header line (only comments or blanks)");
  if (table.rows.empty()) return InvalidArgument(std::string(file) + ": error: no data rows");
  return table;
}

std::optional<double> ParseNumber(const std::string& cell) {
  double v = 0;
  auto [ptr, ec] = std::from_chars(cell.data(), cell.data() + cell.size(), v);
  if (cell.empty() || ec != std::errc() || ptr != cell.data() + cell.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

std::optional<int64_t> ParseInteger(const std::string& cell) {
  int64_t v = 0;
  auto [ptr, ec] = std::from_chars(cell.data(), cell.data() + cell.size(), v);
  if (cell.empty() || ec != std::errc() || ptr != cell.data() + cell.size()) return std::nullopt;
  return v;
}

}  // namespace az::support
