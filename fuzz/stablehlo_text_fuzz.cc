// libFuzzer target for the StableHLO importer (frontend/stablehlo): the MLIR
// parser, the shardings, the op lowering and the manual-computation
// reconstruction.
//
// Properties checked on every input:
//   - ImportStableHlo returns a program or an error: no crash, hang, or
//     sanitizer report; an error names the file;
//   - an imported program passed FinishImport (so the PIR verifier), and its
//     arguments, results and pinned values name real values;
//   - ListManualCollectives returns or fails likewise.
// The op budget is capped lower than the default so that inlining a call
// tree the fuzzer grows costs milliseconds, not seconds.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "frontend/stablehlo/import.h"
#include "support/status.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  az::frontend::ImportOptions options;
  options.max_ops = 20'000;
  auto program = az::frontend::ImportStableHlo(text, "fuzz.mlir", options);
  if (!program.ok()) {
    AZ_CHECK_MSG(program.status().message().find("fuzz.mlir") != std::string::npos, program.status().message());
  } else {
    for (const auto& arg : program->arguments) AZ_CHECK(program->graph.IsValidValue(arg.value));
    for (const auto& result : program->results) AZ_CHECK(program->graph.IsValidValue(result.value));
    for (const auto& [value, sharding] : program->pinned) AZ_CHECK(program->graph.IsValidValue(value));
  }
  auto collectives = az::frontend::ListManualCollectives(text, "fuzz.mlir");
  if (!collectives.ok()) {
    AZ_CHECK_MSG(collectives.status().message().find("fuzz.mlir") != std::string::npos, collectives.status().message());
  }
  return 0;
}
