// A small CSV reader for the measurement files (data/measurements): '#'
// comment lines and blank lines skipped, the first other line the header,
// cells separated by commas, a cell in double quotes may hold commas ("" is a
// quote), surrounding blanks trimmed. Errors are located: "file:line: error:
// ...". Used by price/compute_fit.cc and net/tpu_points.cc.
#pragma once

#include <map>
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

}  // namespace az::support
