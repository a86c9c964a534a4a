// libFuzzer target for the PIR text parser and printer.
//
// Properties checked on every input:
//   - ParseGraph returns (an error or a graph): no crash, hang, or sanitizer report;
//   - an error is a located diagnostic: "<file>:line:col: error: ..." with a
//     kParseError or kResourceExhausted code;
//   - a parsed graph prints to text that parses again and prints identically
//     (print is a fixed point after one round).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "pir/text/parser.h"
#include "pir/text/printer.h"
#include "support/status.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  az::StatusOr<az::pir::Graph> graph = az::pir::ParseGraph(text, "fuzz.pir");
  if (!graph.ok()) {
    const az::Status status = graph.status();
    AZ_CHECK(status.code() == az::StatusCode::kParseError || status.code() == az::StatusCode::kResourceExhausted);
    AZ_CHECK_MSG(status.message().rfind("fuzz.pir:", 0) == 0, status.message());
    return 0;
  }
  std::string first = az::pir::PrintGraph(*graph);
  az::StatusOr<az::pir::Graph> reparsed = az::pir::ParseGraph(first, "printed.pir");
  AZ_CHECK_MSG(reparsed.ok(), reparsed.status().message() + "\n--- printed ---\n" + first);
  std::string second = az::pir::PrintGraph(*reparsed);
  AZ_CHECK_MSG(second == first, "print is not a fixed point:\n--- first ---\n" + first + "--- second ---\n" + second);
  return 0;
}
