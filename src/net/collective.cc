#include "net/collective.h"

#include <cctype>
#include <charconv>
#include <numeric>

namespace az::net {

namespace {
constexpr int kMaxDevices = 1 << 20;
}  // namespace

Status ValidatePlacement(const Placement& placement, int num_chips) {
  std::vector<char> used(static_cast<size_t>(num_chips), 0);
  for (size_t i = 0; i < placement.size(); ++i) {
    int chip = placement[i];
    if (chip < 0 || chip >= num_chips) {
      return InvalidArgument("placement maps logical " + std::to_string(i) + " to chip " + std::to_string(chip) +
                             ", which the topology lacks (" + std::to_string(num_chips) + " chips)");
    }
    if (used[chip]++) {
      return InvalidArgument("placement is not a permutation: chip " + std::to_string(chip) + " is used twice");
    }
  }
  return Status::Ok();
}

StatusOr<Placement> ParsePlacement(std::string_view text, int num_chips) {
  Placement p;
  auto bad = [&] { return InvalidArgument("placement '" + std::string(text) + "': expected chip ids separated by ','"); };
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t comma = text.find(',', pos);
    std::string_view cell = text.substr(pos, comma == std::string_view::npos ? std::string_view::npos : comma - pos);
    while (!cell.empty() && std::isspace(static_cast<unsigned char>(cell.front()))) cell.remove_prefix(1);
    while (!cell.empty() && std::isspace(static_cast<unsigned char>(cell.back()))) cell.remove_suffix(1);
    int chip = 0;
    auto [ptr, ec] = std::from_chars(cell.data(), cell.data() + cell.size(), chip);
    if (cell.empty() || ec != std::errc() || ptr != cell.data() + cell.size()) return bad();
    p.push_back(chip);
    if (p.size() > static_cast<size_t>(kMaxDevices)) return InvalidArgument("placement is too long");
    if (comma == std::string_view::npos) break;
    pos = comma + 1;
  }
  AZ_RETURN_IF_ERROR(ValidatePlacement(p, num_chips));
  return p;
}

Placement IdentityPlacement(int n) {
  Placement p(static_cast<size_t>(n));
  std::iota(p.begin(), p.end(), 0);
  return p;
}

}  // namespace az::net
