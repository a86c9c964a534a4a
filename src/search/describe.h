// From a source's pick (sources.h) to the Configuration the plan reports
// (plan.h): mesh, sharding, placement, latency, memory, the noise experts'
// mode, the xDiT degrees, and the simulated breakdown; for the plan's best
// also the timeline and every tensor's PartitionSpec (from the sharding the
// evaluator propagated: nothing is rebuilt or re-propagated).
#pragma once

#include <string>

#include "search/plan.h"
#include "search/sources.h"

namespace az::search {

// `config`: the workload (whether its deployed code accepts the xDiT form).
StatusOr<Configuration> Describe(const std::string& label, const Pick& pick, const workload::Workload& config,
                                 const hw::Topology& topology, const PlanOptions& options, bool best);

}  // namespace az::search
