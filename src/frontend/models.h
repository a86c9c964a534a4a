// The frontends' entry points for the layers above them: a zoo model by name
// as a workload (workload/workload.h). Imported programs come in through
// frontend/import/program_load.h. search/ and the tests of the layers above
// the frontend reach models only through these.
#pragma once

#include <string_view>

#include "workload/workload.h"

namespace az::frontend {

// The zoo model `model` at `options` (validated as zoo.h: ResolveConfig does;
// an unknown model is an error that lists the zoo).
StatusOr<workload::Workload> ZooWorkload(std::string_view model, const workload::ModelOptions& options);

}  // namespace az::frontend
