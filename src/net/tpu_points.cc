#include "net/tpu_points.h"

#include <charconv>
#include <cmath>

#include "hw/topology.h"
#include "net/model.h"

namespace az::net {

namespace {

Status LineError(std::string_view file, int line, const std::string& message) {
  return InvalidArgument(std::string(file) + ":" + std::to_string(line) + ": error: " + message);
}

bool ParseDouble(const std::string& s, double* out) {
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return !s.empty() && ec == std::errc() && ptr == s.data() + s.size() && std::isfinite(*out) && *out > 0;
}

}  // namespace

StatusOr<std::vector<TpuPoint>> ReadTpuPoints(std::string_view text, std::string_view file_name) {
  std::vector<TpuPoint> out;
  bool header = true;
  int line_number = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    std::string line(text.substr(pos, end == std::string_view::npos ? std::string_view::npos : end - pos));
    pos = end == std::string_view::npos ? text.size() : end + 1;
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> cells;
    size_t start = 0;
    for (size_t comma; (comma = line.find(',', start)) != std::string::npos; start = comma + 1) {
      cells.push_back(line.substr(start, comma - start));
    }
    cells.push_back(line.substr(start));
    if (header) {
      if (line != "kind,topology,group,bytes,measured,unit,note") {
        return LineError(file_name, line_number, "expected the header kind,topology,group,bytes,measured,unit,note");
      }
      header = false;
      continue;
    }
    if (cells.size() != 7) {
      return LineError(file_name, line_number, "expected 7 columns, found " + std::to_string(cells.size()));
    }
    TpuPoint p{cells[0], cells[1], cells[2], 0, 0, cells[5], cells[6], line_number};
    if (!ParseDouble(cells[3], &p.bytes)) return LineError(file_name, line_number, "bytes '" + cells[3] + "' is not a positive number");
    if (!ParseDouble(cells[4], &p.measured)) {
      return LineError(file_name, line_number, "measured '" + cells[4] + "' is not a positive number");
    }
    out.push_back(std::move(p));
  }
  if (header) return InvalidArgument(std::string(file_name) + ": error: no header line");
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
