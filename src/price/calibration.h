// Everything pricing needs to know about the hardware beyond the topology: the
// collective model's calibration (net/calibration.h) and the compute model's
// (compute.h), read from one file.
//
// File format: the JSON `aoizora calibrate` writes for the network (its keys at
// the top level: name, source, link_efficiency, algorithms) plus an optional
// "compute" object with the keys of ComputeCalibrationToJson. A part that is
// absent keeps the topology's defaults, so a network-only calibration file
// still works.
#pragma once

#include <string_view>

#include "hw/topology.h"
#include "net/calibration.h"
#include "price/compute.h"

namespace az::price {

struct PriceCalibration {
  net::Calibration network;
  ComputeCalibration compute;
};

PriceCalibration DefaultPriceCalibration(const hw::Topology& topology);
StatusOr<PriceCalibration> LoadPriceCalibration(std::string_view text, std::string_view file_name,
                                                const hw::Topology& topology);

}  // namespace az::price
