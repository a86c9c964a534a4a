// libFuzzer target for the XLA HLO text importer (compile/xla): the parser and
// the lowering to CIR.
//
// Properties checked on every input:
//   - ParseHlo returns a file or an error: no crash, hang, or sanitizer report;
//     a parse error names the file;
//   - every module that parses either imports or fails with an error (never a
//     crash), and an imported program passes the CIR verifier and evidence
//     extraction's Validate.
// Unrolling is capped lower than the default so a large trip count found by
// the fuzzer costs milliseconds, not seconds.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "compile/xla/hlo.h"
#include "compile/xla/hlo_import.h"
#include "evidence/evidence.h"
#include "support/status.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto file = az::compile::xla::ParseHlo(text, "fuzz.hlo");
  if (!file.ok()) {
    AZ_CHECK_MSG(file.status().message().find("fuzz.hlo") != std::string::npos, file.status().message());
    return 0;
  }
  for (size_t m = 0; m < file->modules.size() && m < 4; ++m) {
    az::compile::xla::ImportOptions options;
    options.module = static_cast<int>(m);
    options.max_instructions = 20'000;
    auto imported = az::compile::xla::ImportHlo(*file, options);
    if (!imported.ok()) continue;
    AZ_CHECK_MSG(az::cir::VerifyProgram(imported->program).ok(), "imported program fails the verifier");
    az::evidence::Evidence e = az::evidence::Extract(imported->program, "xla");
    AZ_CHECK_MSG(az::evidence::Validate(e).ok(), "evidence of an imported program fails Validate");
  }
  return 0;
}
