// Custom topologies as JSON (schema: docs/topology-json.md): the loader, which
// validates everything and names the JSON path of each problem, and the writer.
//
// No nlohmann exception escapes: the loader checks every type before reading a
// value, and a catch-all turns anything missed into a Status.
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "hw/topology.h"
#include "support/diagnostic.h"

namespace az::hw {
namespace {

using nlohmann::json;

constexpr size_t kMaxChips = 65536;
constexpr size_t kMaxSwitches = 65536;
constexpr size_t kMaxLinks = 1'000'000;

class Loader {
 public:
  explicit Loader(std::string_view file_name) : file_(file_name) {}

  StatusOr<Topology> Load(const json& root) {
    if (!root.is_object()) return Error("(top level)", "expected an object, got " + Type(root));
    AZ_RETURN_IF_ERROR(CheckKeys(root, "", {"name", "chip", "chips", "switches", "links", "dims", "wrap", "gpu_nodes",
                                            "gpus_per_node", "fabric", "peer_to_peer", "slices"}));
    Topology t;
    t.name = file_;
    if (root.contains("name")) {
      if (!root["name"].is_string()) return Error("name", "expected a string, got " + Type(root["name"]));
      t.name = root["name"].get<std::string>();
    }
    if (!root.contains("chip")) return Error("chip", "missing (a catalog chip name such as \"h100\" or \"v5e\")");
    if (!root["chip"].is_string()) return Error("chip", "expected a string, got " + Type(root["chip"]));
    auto chip = FindChip(root["chip"].get<std::string>());
    if (!chip.ok()) return Error("chip", chip.status().message());
    t.chip = **chip;

    AZ_RETURN_IF_ERROR(LoadNodes(root, "chips", NodeKind::kChip, kMaxChips, t));
    if (t.num_chips() == 0) return Error("chips", "a topology needs at least one chip");
    AZ_RETURN_IF_ERROR(LoadNodes(root, "switches", NodeKind::kSwitch, kMaxSwitches, t));
    AZ_RETURN_IF_ERROR(LoadShape(root, t));
    AZ_RETURN_IF_ERROR(LoadLinks(root, t));
    AZ_RETURN_IF_ERROR(t.Finalize());
    return t;
  }

 private:
  Status Error(const std::string& path, const std::string& message) const {
    return ParseError(file_ + ": " + path + ": " + message);
  }
  static std::string Type(const json& value) { return value.type_name(); }
  static std::string Path(const std::string& parent, const std::string& key) {
    return parent.empty() ? key : parent + "." + key;
  }
  static std::string Index(const std::string& array, size_t i) { return array + "[" + std::to_string(i) + "]"; }

  // Unknown keys are errors: a misspelt "bandwith_GBps" must not pass silently.
  Status CheckKeys(const json& object, const std::string& path, std::initializer_list<const char*> allowed) const {
    for (auto it = object.begin(); it != object.end(); ++it) {
      bool known = false;
      std::string list;
      for (const char* key : allowed) {
        known = known || it.key() == key;
        list += (list.empty() ? "" : ", ") + std::string(key);
      }
      if (!known) return Error(Path(path, it.key()), "unknown key (expected one of: " + list + ")");
    }
    return Status::Ok();
  }

  Status ReadBool(const json& object, const std::string& path, const char* key, bool& out) const {
    if (!object.contains(key)) return Status::Ok();
    if (!object[key].is_boolean()) return Error(Path(path, key), "expected true or false, got " + Type(object[key]));
    out = object[key].get<bool>();
    return Status::Ok();
  }

  // An integer in [lo, hi].
  Status ReadInt(const json& value, const std::string& path, int64_t lo, int64_t hi, int64_t& out) const {
    std::string range = "an integer in " + std::to_string(lo) + ".." + std::to_string(hi);
    if (value.is_number_unsigned()) {
      if (value.get<uint64_t>() > static_cast<uint64_t>(hi)) return Error(path, "expected " + range);
      out = static_cast<int64_t>(value.get<uint64_t>());
    } else if (value.is_number_integer()) {
      out = value.get<int64_t>();
    } else {
      return Error(path, "expected " + range + ", got " + Type(value));
    }
    if (out < lo || out > hi) return Error(path, "expected " + range + ", got " + std::to_string(out));
    return Status::Ok();
  }

  Status LoadNodes(const json& root, const char* key, NodeKind kind, size_t limit, Topology& t) {
    if (!root.contains(key)) {
      if (kind == NodeKind::kChip) return Error(key, "missing (an array of {\"name\": ..., \"coords\": [...]})");
      return Status::Ok();
    }
    const json& list = root[key];
    if (!list.is_array()) return Error(key, "expected an array, got " + Type(list));
    if (list.size() > limit) {
      return Status(StatusCode::kResourceExhausted, file_ + ": " + key + ": " + std::to_string(list.size()) +
                                                        " entries, over the limit of " + std::to_string(limit));
    }
    for (size_t i = 0; i < list.size(); ++i) {
      std::string path = Index(key, i);
      const json& entry = list[i];
      if (!entry.is_object()) return Error(path, "expected an object, got " + Type(entry));
      if (kind == NodeKind::kChip) {
        AZ_RETURN_IF_ERROR(CheckKeys(entry, path, {"name", "coords", "failed"}));
      } else {
        AZ_RETURN_IF_ERROR(CheckKeys(entry, path, {"name", "failed", "host"}));
      }
      Node node;
      node.kind = kind;
      if (!entry.contains("name")) return Error(Path(path, "name"), "missing");
      if (!entry["name"].is_string()) return Error(Path(path, "name"), "expected a string, got " + Type(entry["name"]));
      node.name = entry["name"].get<std::string>();
      if (node.name.empty()) return Error(Path(path, "name"), "empty name");
      auto [it, inserted] = ids_.emplace(node.name, std::make_pair(t.num_nodes(), path));
      if (!inserted) return Error(Path(path, "name"), "duplicate node name '" + node.name + "' (first at " + it->second.second + ")");
      if (entry.contains("coords")) {
        const json& coords = entry["coords"];
        std::string coords_path = Path(path, "coords");
        if (!coords.is_array()) return Error(coords_path, "expected an array of integers, got " + Type(coords));
        if (coords.size() > 8) return Error(coords_path, "at most 8 coordinates");
        for (size_t c = 0; c < coords.size(); ++c) {
          int64_t value = 0;
          AZ_RETURN_IF_ERROR(ReadInt(coords[c], Index(coords_path, c), 0, std::numeric_limits<int32_t>::max(), value));
          node.coords.push_back(static_cast<int>(value));
        }
      }
      AZ_RETURN_IF_ERROR(ReadBool(entry, path, "failed", node.failed));
      if (kind == NodeKind::kSwitch) AZ_RETURN_IF_ERROR(ReadBool(entry, path, "host", node.host));
      t.AddNode(std::move(node));
    }
    if (kind == NodeKind::kChip) t.set_num_chips(t.num_nodes());
    return Status::Ok();
  }

  // dims/wrap (a torus: chips listed in id order) and gpu_nodes/gpus_per_node.
  Status LoadShape(const json& root, Topology& t) {
    if (root.contains("wrap") && !root.contains("dims")) return Error("wrap", "given without dims");
    if (root.contains("slices") && !root.contains("dims")) return Error("slices", "given without dims");
    if (root.contains("slices")) {
      int64_t slices = 1;
      AZ_RETURN_IF_ERROR(ReadInt(root["slices"], "slices", 1, 64, slices));
      t.slices = static_cast<int>(slices);
    }
    if (root.contains("dims")) {
      const json& dims = root["dims"];
      if (!dims.is_array() || dims.empty() || dims.size() > 3) {
        return Error("dims", "expected an array of 1 to 3 positive integers");
      }
      int64_t product = 1;
      for (size_t i = 0; i < dims.size(); ++i) {
        int64_t length = 0;
        AZ_RETURN_IF_ERROR(ReadInt(dims[i], Index("dims", i), 1, static_cast<int64_t>(kMaxChips), length));
        product *= length;
        if (product > static_cast<int64_t>(kMaxChips)) return Error("dims", "more than " + std::to_string(kMaxChips) + " chips");
        t.dims.push_back(static_cast<int>(length));
      }
      if (product * t.slices != t.num_chips()) {
        return Error("dims", "the shape holds " + std::to_string(product) + " chips" +
                                 (t.slices > 1 ? " x " + std::to_string(t.slices) + " slices" : std::string()) +
                                 " but chips lists " + std::to_string(t.num_chips()));
      }
      t.wrap.assign(t.dims.size(), false);
      if (root.contains("wrap")) {
        const json& wrap = root["wrap"];
        if (!wrap.is_array() || wrap.size() != t.dims.size()) {
          return Error("wrap", "expected an array of " + std::to_string(t.dims.size()) + " booleans, one per axis of dims");
        }
        for (size_t i = 0; i < wrap.size(); ++i) {
          if (!wrap[i].is_boolean()) return Error(Index("wrap", i), "expected true or false, got " + Type(wrap[i]));
          t.wrap[i] = wrap[i].get<bool>();
        }
      }
      // Torus routing finds chips by id = x + X*(y + Y*z), so coords must agree with the order.
      for (int id = 0; id < t.num_chips(); ++id) {
        std::vector<int> expected;
        for (int rest = id % static_cast<int>(product); int length : t.dims) {
          expected.push_back(rest % length);
          rest /= length;
        }
        if (t.slices > 1) expected.push_back(id / static_cast<int>(product));  // multi-slice: then the slice
        if (t.nodes[static_cast<size_t>(id)].coords != expected) {
          std::string want;
          for (int c : expected) want += (want.empty() ? "" : ",") + std::to_string(c);
          return Error(Index("chips", static_cast<size_t>(id)) + ".coords",
                       "with dims, chip " + std::to_string(id) + " must have coords [" + want +
                           "] (chips are listed in id order, x fastest" +
                           std::string(t.slices > 1 ? ", then the slice)" : ")"));
        }
      }
    }
    if (root.contains("gpu_nodes") != root.contains("gpus_per_node")) {
      return Error(root.contains("gpu_nodes") ? "gpus_per_node" : "gpu_nodes", "missing (give both or neither)");
    }
    if (root.contains("gpu_nodes")) {
      if (!t.dims.empty()) return Error("gpu_nodes", "a topology has dims or gpu_nodes, not both");
      int64_t nodes = 0, per_node = 0;
      AZ_RETURN_IF_ERROR(ReadInt(root["gpu_nodes"], "gpu_nodes", 1, static_cast<int64_t>(kMaxChips), nodes));
      AZ_RETURN_IF_ERROR(ReadInt(root["gpus_per_node"], "gpus_per_node", 1, static_cast<int64_t>(kMaxChips), per_node));
      if (nodes * per_node != t.num_chips()) {
        return Error("gpu_nodes", std::to_string(nodes) + " x " + std::to_string(per_node) + " GPUs but chips lists " +
                                      std::to_string(t.num_chips()));
      }
      t.gpu_nodes = static_cast<int>(nodes);
      t.gpus_per_node = static_cast<int>(per_node);
    }
    if (root.contains("fabric")) {
      // A record of the scale-out fabric; the network links' latency_us carries its cost.
      const json& fabric = root["fabric"];
      if (!fabric.is_string() || (fabric.get<std::string>() != "ib" && fabric.get<std::string>() != "efa")) {
        return Error("fabric", "expected \"ib\" or \"efa\", got " + (fabric.is_string() ? fabric.dump() : Type(fabric)));
      }
      if (!root.contains("gpu_nodes")) return Error("fabric", "needs gpu_nodes and gpus_per_node (a GPU cluster)");
      t.fabric = fabric.get<std::string>();
    }
    if (root.contains("peer_to_peer")) {
      if (!root["peer_to_peer"].is_boolean()) {
        return Error("peer_to_peer", "expected true or false, got " + Type(root["peer_to_peer"]));
      }
      t.peer_to_peer = root["peer_to_peer"].get<bool>();
    }
    return Status::Ok();
  }

  Status ReadEndpoint(const json& entry, const std::string& path, const char* key, int& out) const {
    std::string key_path = Path(path, key);
    if (!entry.contains(key)) return Error(key_path, "missing (a node name)");
    if (!entry[key].is_string()) return Error(key_path, "expected a node name, got " + Type(entry[key]));
    auto it = ids_.find(entry[key].get<std::string>());
    if (it == ids_.end()) return Error(key_path, "unknown node '" + entry[key].get<std::string>() + "'");
    out = it->second.first;
    return Status::Ok();
  }

  Status ReadNumber(const json& entry, const std::string& path, const char* key, bool positive, double& out) const {
    std::string key_path = Path(path, key);
    if (!entry.contains(key)) return Error(key_path, "missing");
    if (!entry[key].is_number()) return Error(key_path, "expected a number, got " + Type(entry[key]));
    out = entry[key].get<double>();
    if (!std::isfinite(out) || out < 0 || (positive && out == 0)) {
      return Error(key_path, std::string("must be a finite number ") + (positive ? "> 0" : ">= 0"));
    }
    return Status::Ok();
  }

  Status LoadLinks(const json& root, Topology& t) {
    if (!root.contains("links")) return Error("links", "missing (an array of {\"a\", \"b\", \"bandwidth_GBps\", ...})");
    const json& list = root["links"];
    if (!list.is_array()) return Error("links", "expected an array, got " + Type(list));
    if (list.size() > kMaxLinks) {
      return Status(StatusCode::kResourceExhausted, file_ + ": links: " + std::to_string(list.size()) +
                                                        " entries, over the limit of " + std::to_string(kMaxLinks));
    }
    for (size_t i = 0; i < list.size(); ++i) {
      std::string path = Index("links", i);
      const json& entry = list[i];
      if (!entry.is_object()) return Error(path, "expected an object, got " + Type(entry));
      AZ_RETURN_IF_ERROR(
          CheckKeys(entry, path, {"a", "b", "bandwidth_GBps", "latency_us", "class", "axis", "wraparound", "failed"}));
      Link link;
      AZ_RETURN_IF_ERROR(ReadEndpoint(entry, path, "a", link.a));
      AZ_RETURN_IF_ERROR(ReadEndpoint(entry, path, "b", link.b));
      if (link.a == link.b) return Error(Path(path, "b"), "a link joins '" + entry["a"].get<std::string>() + "' to itself");
      double gbps = 0, latency_us = 0;
      AZ_RETURN_IF_ERROR(ReadNumber(entry, path, "bandwidth_GBps", true, gbps));
      AZ_RETURN_IF_ERROR(ReadNumber(entry, path, "latency_us", false, latency_us));
      link.bw = Bandwidth(gbps * 1e9);
      link.latency = Seconds(latency_us / 1e6);
      std::string class_path = Path(path, "class");
      if (!entry.contains("class")) return Error(class_path, "missing (ici, nvlink, pcie, network, socket or dcn)");
      if (!entry["class"].is_string()) return Error(class_path, "expected a string, got " + Type(entry["class"]));
      std::string cls = entry["class"].get<std::string>();
      bool found = false;
      for (LinkClass c : {LinkClass::kIci, LinkClass::kNvlink, LinkClass::kPcie, LinkClass::kNetwork,
                          LinkClass::kSocket, LinkClass::kDcn}) {
        if (LinkClassName(c) == cls) {
          link.cls = c;
          found = true;
        }
      }
      if (!found) return Error(class_path, "unknown link class '" + cls + "' (ici, nvlink, pcie, network, socket or dcn)");
      if (entry.contains("axis")) {
        int64_t axis = 0;
        int64_t max_axis = t.dims.empty() ? -1 : static_cast<int64_t>(t.dims.size()) - 1;
        AZ_RETURN_IF_ERROR(ReadInt(entry["axis"], Path(path, "axis"), -1, max_axis, axis));
        link.axis = static_cast<int>(axis);
      }
      AZ_RETURN_IF_ERROR(ReadBool(entry, path, "wraparound", link.wraparound));
      AZ_RETURN_IF_ERROR(ReadBool(entry, path, "failed", link.failed));
      t.AddLink(link);
    }
    return Status::Ok();
  }

  std::string file_;
  // node name -> (node id, JSON path of its entry)
  std::map<std::string, std::pair<int, std::string>> ids_;
};

// "[json.exception.parse_error.101] parse error at line 2, column 5: syntax
// error ..." -> a located diagnostic with the source line and a caret.
Status JsonSyntaxError(const json::parse_error& error, std::string_view text, std::string_view file_name) {
  std::string what = error.what();
  size_t colon = what.find(": ", what.find("column"));
  std::string message = colon == std::string::npos ? what : what.substr(colon + 2);
  size_t offset = error.byte == 0 ? 0 : std::min<size_t>(error.byte - 1, text.size());
  int line = 1, col = 1;
  for (size_t i = 0; i < offset; ++i) {
    if (text[i] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  SourceBuffer source{std::string(file_name), std::string(text)};
  return LocatedError(StatusCode::kParseError, SourceLocation::Text(std::string(file_name), line, col), message,
                      &source);
}

}  // namespace

StatusOr<Topology> LoadTopologyJson(std::string_view text, std::string_view file_name) {
  if (text.find_first_not_of(" \t\r\n") == std::string_view::npos) {
    return ParseError(std::string(file_name) + ": empty input (expected a JSON object; see docs/topology-json.md)");
  }
  try {
    json root;
    try {
      root = json::parse(text.begin(), text.end());
    } catch (const json::parse_error& error) {
      return JsonSyntaxError(error, text, file_name);
    }
    return Loader(file_name).Load(root);
  } catch (const std::exception& error) {
    // A type check the loader missed: still the user's input, still an error value.
    return ParseError(std::string(file_name) + ": " + error.what());
  }
}

std::string TopologyToJson(const Topology& topology) {
  using nlohmann::ordered_json;
  // One node or link per line: diff-friendly and still plain JSON.
  std::string out = "{\n";
  out += "  \"name\": " + ordered_json(topology.name).dump() + ",\n";
  out += "  \"chip\": " + ordered_json(topology.chip.name).dump() + ",\n";
  if (!topology.dims.empty()) {
    out += "  \"dims\": " + ordered_json(topology.dims).dump() + ",\n";
    out += "  \"wrap\": " + ordered_json(topology.wrap).dump() + ",\n";
    if (topology.slices > 1) out += "  \"slices\": " + std::to_string(topology.slices) + ",\n";
  }
  if (topology.gpu_nodes > 0) {
    out += "  \"gpu_nodes\": " + std::to_string(topology.gpu_nodes) + ",\n";
    out += "  \"gpus_per_node\": " + std::to_string(topology.gpus_per_node) + ",\n";
    if (!topology.fabric.empty()) out += "  \"fabric\": " + ordered_json(topology.fabric).dump() + ",\n";
  }
  if (!topology.peer_to_peer) out += "  \"peer_to_peer\": false,\n";
  auto node_list = [&](const char* key, bool chips) {
    out += std::string("  \"") + key + "\": [";
    bool first = true;
    for (int id = chips ? 0 : topology.num_chips(); id < (chips ? topology.num_chips() : topology.num_nodes()); ++id) {
      const Node& node = topology.nodes[static_cast<size_t>(id)];
      ordered_json entry = {{"name", node.name}};
      if (chips) entry["coords"] = node.coords;
      if (node.failed) entry["failed"] = true;
      if (node.host) entry["host"] = true;
      out += (first ? "\n    " : ",\n    ") + entry.dump();
      first = false;
    }
    out += first ? "],\n" : "\n  ],\n";
  };
  node_list("chips", true);
  node_list("switches", false);
  out += "  \"links\": [";
  for (size_t l = 0; l < topology.links.size(); ++l) {
    const Link& link = topology.links[l];
    ordered_json entry = {{"a", topology.nodes[static_cast<size_t>(link.a)].name},
                          {"b", topology.nodes[static_cast<size_t>(link.b)].name},
                          {"bandwidth_GBps", link.bw.value() / 1e9},
                          {"latency_us", link.latency.value() * 1e6},
                          {"class", std::string(LinkClassName(link.cls))}};
    if (link.axis >= 0) entry["axis"] = link.axis;
    if (link.wraparound) entry["wraparound"] = true;
    if (link.failed) entry["failed"] = true;
    out += (l ? ",\n    " : "\n    ") + entry.dump();
  }
  out += topology.links.empty() ? "]\n}\n" : "\n  ]\n}\n";
  return out;
}

}  // namespace az::hw
