// A program file (StableHLO text, ONNX) loaded as a model: what `--stablehlo
// FILE` / `--onnx FILE` do for every command that takes `--model`, and what
// the Python bindings' plan(stablehlo=...) / plan(onnx=...) do, in one place.
//
// LoadProgram imports the file (or its contents, when the caller holds them
// in memory) with the symbolic dims bound and the latent input named, and
// builds the workload the planner takes (workload/workload.h): `program` is
// the imported graph, `model` names the file, width, height and frames are 0,
// batch is the graph's `batch` attribute (1 when absent), steps the
// request's (1 when absent), CFG none, dtype the one the first einsum runs
// in. Its forward is the program as it is, whatever the workload's depth and
// CFG mode: one block unit, and the token counts are the graph's attributes
// (frontend/import/dit.h); it has no denoising step, training step or
// stages, and no deployment rule. Import warnings are left in
// `program.warnings` for the caller to show (the CLI prints them on stderr).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "frontend/import/imported.h"
#include "workload/workload.h"
#include "support/status.h"

namespace az::frontend {

struct ProgramRequest {
  enum class Format { kStableHlo, kOnnx };
  Format format = Format::kStableHlo;
  // The file to read; with `contents`, only the name the program, its
  // diagnostics and the plan's `model` carry.
  std::string file;
  std::optional<std::string> contents;  // StableHLO text or ONNX bytes
  std::string latent;                   // empty: found from the attention (dit.h)
  std::vector<std::string> dims;        // "NAME=SIZE", symbolic dims to bind
  std::optional<int64_t> steps;
};

// "video_tokens=75600" -> {"video_tokens", 75600}. The error quotes the text:
// "'x=0': expected NAME=SIZE with a positive size (e.g. video_tokens=75600)".
StatusOr<std::pair<std::string, int64_t>> ParseDimBinding(std::string_view text);

struct LoadedProgram {
  ImportedProgram program;
  az::workload::Workload workload;  // workload.program is the program's graph
};

StatusOr<LoadedProgram> LoadProgram(const ProgramRequest& request);

// The workload of an already imported graph (what LoadProgram builds, above):
// `name` is its file, `steps` the steps per video.
workload::Workload ProgramWorkload(std::string name, pir::Graph graph, int64_t steps);

}  // namespace az::frontend
