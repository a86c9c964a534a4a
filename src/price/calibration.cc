#include "price/calibration.h"

#include <nlohmann/json.hpp>

namespace az::price {

PriceCalibration DefaultPriceCalibration(const hw::Topology& topology) {
  return {net::DefaultCalibration(topology), DefaultComputeCalibration(topology.chip)};
}

StatusOr<PriceCalibration> LoadPriceCalibration(std::string_view text, std::string_view file_name,
                                                const hw::Topology& topology) {
  PriceCalibration c = DefaultPriceCalibration(topology);
  nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return ParseError(std::string(file_name) + ": not valid JSON");
  if (!j.is_object()) return ParseError(std::string(file_name) + ": a calibration is a JSON object");
  nlohmann::json network = j;
  network.erase("compute");
  if (!network.empty()) {
    AZ_ASSIGN_OR_RETURN(c.network, net::CalibrationFromJson(network.dump(), file_name));
  }
  if (j.contains("compute")) {
    AZ_ASSIGN_OR_RETURN(c.compute, ComputeCalibrationFromJson(j["compute"].dump(), file_name, c.compute));
  }
  return c;
}

}  // namespace az::price
