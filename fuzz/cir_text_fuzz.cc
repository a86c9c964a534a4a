// libFuzzer target for the CIR text parser, printer and verifier.
//
// Properties checked on every input:
//   - ParseProgram returns (an error or a program): no crash, hang, or
//     sanitizer report;
//   - an error is a located diagnostic: "<file>:line:col: error: ..." with a
//     kParseError or kResourceExhausted code;
//   - a parsed program goes through VerifyProgram and Summarize (whatever they
//     answer) without a crash or an overflow;
//   - it prints to text that parses again and prints identically (print is a
//     fixed point after one round).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "cir/program.h"
#include "cir/text/parser.h"
#include "cir/text/printer.h"
#include "support/status.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  az::StatusOr<az::cir::Program> program = az::cir::ParseProgram(text, "fuzz.cir");
  if (!program.ok()) {
    const az::Status status = program.status();
    AZ_CHECK(status.code() == az::StatusCode::kParseError || status.code() == az::StatusCode::kResourceExhausted);
    AZ_CHECK_MSG(status.message().rfind("fuzz.cir:", 0) == 0, status.message());
    return 0;
  }
  az::Status verified = az::cir::VerifyProgram(*program);
  AZ_CHECK(verified.ok() || verified.code() == az::StatusCode::kInvalidArgument);
  (void)az::cir::Summarize(*program);
  std::string first = az::cir::PrintProgram(*program);
  az::StatusOr<az::cir::Program> reparsed = az::cir::ParseProgram(first, "printed.cir");
  AZ_CHECK_MSG(reparsed.ok(), reparsed.status().message() + "\n--- printed ---\n" + first);
  std::string second = az::cir::PrintProgram(*reparsed);
  AZ_CHECK_MSG(second == first, "print is not a fixed point:\n--- first ---\n" + first + "--- second ---\n" + second);
  return 0;
}
