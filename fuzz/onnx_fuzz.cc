// libFuzzer target for the ONNX importer (frontend/onnx): libprotobuf's parse
// of the ModelProto (and the error locator behind it), ONNX's checker and
// shape inference (libonnx, built by Debian with GCC and not instrumented:
// the sanitizers see our side of every call), the accessors and
// the conversion to PIR.
//
// Properties checked on every input:
//   - ImportOnnx returns a program or an error: no crash, hang, or sanitizer
//     report (in particular no allocation sized by a declared count or dim);
//     an error names the file;
//   - an imported program passes the PIR verifier, and its arguments and
//     results are values of its graph.
// Every symbolic dim of the graph inputs is bound to a small size (so that the
// fuzzer reaches the shape plumbing), and the op limit is low so that a large
// model found by the fuzzer costs milliseconds.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include <onnx/onnx_pb.h>

#include "frontend/onnx/import.h"
#include "pir/verify/verifier.h"
#include "support/status.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  az::frontend::ImportOptions options;
  options.max_ops = 20'000;
  if (::ONNX_NAMESPACE::ModelProto model; model.ParseFromArray(data, static_cast<int>(size))) {
    int64_t next = 2;
    for (const auto& input : model.graph().input()) {
      for (const auto& dim : input.type().tensor_type().shape().dim()) {
        if (dim.has_dim_param() && !options.dims.count(dim.dim_param())) options.dims[dim.dim_param()] = next++ % 7 + 1;
      }
    }
  }
  auto imported = az::frontend::ImportOnnx(bytes, "fuzz.onnx", options);
  if (!imported.ok()) {
    AZ_CHECK_MSG(imported.status().message().find("fuzz.onnx") != std::string::npos, imported.status().message());
    return 0;
  }
  AZ_CHECK_MSG(az::pir::VerifyGraph(imported->graph).ok(), "imported program fails the verifier");
  for (const auto& argument : imported->arguments) AZ_CHECK(imported->graph.IsValidValue(argument.value));
  for (const auto& result : imported->results) AZ_CHECK(imported->graph.IsValidValue(result.value));
  return 0;
}
