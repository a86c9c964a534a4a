#include "net/tpu_points.h"

#include <charconv>
#include <cmath>

#include "hw/topology.h"
#include "net/model.h"
#include "support/csv.h"

namespace az::net {

namespace {

bool ParseDouble(const std::string& s, double* out) {
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return !s.empty() && ec == std::errc() && ptr == s.data() + s.size() && std::isfinite(*out) && *out > 0;
}

}  // namespace

StatusOr<std::vector<TpuPoint>> ReadTpuPoints(std::string_view text, std::string_view file_name) {
  const std::vector<std::string> columns = {"kind", "topology", "group", "bytes", "measured", "unit", "note"};
  AZ_ASSIGN_OR_RETURN(support::CsvTable table, support::ReadCsv(text, file_name, columns));
  std::vector<TpuPoint> out;
  for (const support::CsvRow& row : table.rows) {
    auto cell = [&](const char* name) -> const std::string& { return row.cells[table.column.at(name)]; };
    TpuPoint p{cell("kind"), cell("topology"), cell("group"), 0, 0, cell("unit"), cell("note"), row.line};
    if (!ParseDouble(cell("bytes"), &p.bytes)) {
      return support::LineError(file_name, row.line, "bytes '" + cell("bytes") + "' is not a positive number");
    }
    if (!ParseDouble(cell("measured"), &p.measured)) {
      return support::LineError(file_name, row.line, "measured '" + cell("measured") + "' is not a positive number");
    }
    out.push_back(std::move(p));
  }
  return out;
}

StatusOr<Seconds> MeasuredTime(const TpuPoint& p) {
  if (p.unit == "us") return Seconds(p.measured * 1e-6);
  if (p.unit.rfind("fraction of 4.5e10", 0) == 0) return Seconds(p.bytes / (p.measured * 2 * 4.5e10));
  if (p.unit == "B/s algorithmic bandwidth") return Seconds(p.bytes / p.measured);
  return InvalidArgument("line " + std::to_string(p.line) + ": unknown unit '" + p.unit + "'");
}

StatusOr<std::string> GroupsOf(const TpuPoint& p) {
  if (p.topology == "v5e:4x8" && p.group == "Y=4 no-wrap") return std::string("[8,4]<=[4,8]T(1,0)");
  if (p.topology == "v5e:8x16" && p.group == "16 wrap") return std::string("[8,16]<=[128]");
  if (p.topology == "v5p:4x4x4" && p.group == "4 wrap") return std::string("[16,4]<=[64]");
  return InvalidArgument("line " + std::to_string(p.line) + ": no replica groups known for group '" + p.group +
                         "' on " + p.topology);
}

StatusOr<Seconds> PredictTpuPoint(const TpuPoint& p, const Calibration* calibration) {
  AZ_ASSIGN_OR_RETURN(hw::Topology t, hw::MakeTopology(p.topology));
  CollectiveModel model(t, calibration ? *calibration : DefaultCalibration(t));
  Collective c;
  AZ_ASSIGN_OR_RETURN(c.kind, ParseCollectiveKind(p.kind));
  c.bytes = Bytes(static_cast<int64_t>(p.bytes));
  AZ_ASSIGN_OR_RETURN(std::string groups, GroupsOf(p));
  AZ_ASSIGN_OR_RETURN(c.groups, ParseReplicaGroups(groups, t.num_chips()));
  AZ_ASSIGN_OR_RETURN(CollectiveResult r, model.Price(c, IdentityPlacement(t.num_chips())));
  return r.time;
}

}  // namespace az::net
