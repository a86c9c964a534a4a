// ApplyFailures: the user's "--fail-link A-B" and "--fail-chip C" applied to a
// topology. A and B name nodes: a chip id ("3") or any node's name ("(0,1)",
// "(0, 1)", "node0/gpu3", "nvswitch0"). Names win over ids, so a custom
// topology whose node is called "3" means that node.
#include <string>

#include "hw/topology.h"

namespace az::hw {
namespace {

constexpr const char* kSyntax =
    "give A-B for a link and C for a chip, where each is a chip id (0..N-1) or a node name such as (0,1), "
    "(0,1,2), gpu3, node0/gpu3 or nvswitch0";

std::string WithoutSpaces(std::string_view text) {
  std::string out;
  for (char ch : text) {
    if (ch != ' ' && ch != '\t') out += ch;
  }
  return out;
}

// The node named `text`, else the chip with that id, else -1.
int ResolveNode(const Topology& topology, std::string_view text) {
  int id = topology.FindNode(text);
  if (id >= 0) return id;
  std::string compact = WithoutSpaces(text);
  id = topology.FindNode(compact);
  if (id >= 0) return id;
  if (compact.empty() || compact.size() > 9 || compact.find_first_not_of("0123456789") != std::string::npos) return -1;
  int chip = std::stoi(compact);
  return chip < topology.num_chips() ? chip : -1;
}

}  // namespace

Status ApplyFailures(Topology& topology, const std::vector<std::string>& fail_links,
                     const std::vector<std::string>& fail_chips) {
  for (const std::string& spec : fail_links) {
    // Node names may contain '-' (custom topologies): take the first split whose both sides resolve.
    int a = -1, b = -1;
    for (size_t dash = spec.find('-'); dash != std::string::npos; dash = spec.find('-', dash + 1)) {
      a = ResolveNode(topology, std::string_view(spec).substr(0, dash));
      b = ResolveNode(topology, std::string_view(spec).substr(dash + 1));
      if (a >= 0 && b >= 0) break;
    }
    if (a < 0 || b < 0) {
      return InvalidArgument("link failure '" + spec + "': no such pair of nodes in " + topology.name + " (" + kSyntax +
                             ")");
    }
    Status s = topology.FailLink(a, b);
    if (!s.ok()) return Status(s.code(), "link failure '" + spec + "': " + s.message());
  }
  for (const std::string& spec : fail_chips) {
    int chip = ResolveNode(topology, spec);
    if (chip < 0) {
      return InvalidArgument("chip failure '" + spec + "': no such chip in " + topology.name + " (" + kSyntax + ")");
    }
    if (chip >= topology.num_chips()) {
      return InvalidArgument("chip failure '" + spec + "': " + topology.nodes[static_cast<size_t>(chip)].name +
                             " is a switch; only chips fail this way (fail its links instead)");
    }
    AZ_RETURN_IF_ERROR(topology.FailChip(chip));
  }
  return topology.Finalize();
}

}  // namespace az::hw
