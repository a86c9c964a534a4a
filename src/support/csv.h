// A small CSV reader for the measurement files (data/measurements): '#'
// comment lines and blank lines skipped, the first other line the header,
// cells separated by commas, a cell in double quotes may hold commas ("" is a
// quote), surrounding blanks trimmed. Errors are located: "file:line: error:
// ...". Used by the measurement readers (price/compute_fit.cc,
// fidelity/video_fit.cc, net/tpu_points.cc, net/fit.cc).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "support/status.h"

namespace az::support {

struct CsvRow {
  int line = 0;  // in the file
  std::vector<std::string> cells;
};

struct CsvTable {
  std::map<std::string, size_t> column;  // header name -> cell index
  std::vector<CsvRow> rows;
};

// "file:line: error: message".
Status LineError(std::string_view file, int line, const std::string& message);

// Errors: no header, a repeated or `required` column missing from it, a row
// with another cell count than the header, a stray quote, no data rows, more
// than a million rows.
StatusOr<CsvTable> ReadCsv(std::string_view text, std::string_view file, const std::vector<std::string>& required);

// A cell as a finite number / an integer: the whole cell, nothing else
// (nullopt for "", "12x", "nan", "inf").
std::optional<double> ParseNumber(const std::string& cell);
std::optional<int64_t> ParseInteger(const std::string& cell);

}  // namespace az::support
