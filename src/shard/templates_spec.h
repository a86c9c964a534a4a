// The spec half of the parallelism templates (templates.h): parse a template
// spec into strategies and bind each to mesh axes. Internal to shard/.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "shard/sharding.h"

namespace az::shard::templates {

enum class Kind { kDp, kCfg, kUlysses, kRing, kContext, kTp, kFsdp };
inline constexpr Kind kAllKinds[] = {Kind::kDp, Kind::kCfg, Kind::kUlysses, Kind::kRing, Kind::kContext, Kind::kTp, Kind::kFsdp};

inline std::string_view KindName(Kind kind) {
  switch (kind) {
    case Kind::kDp: return "dp";
    case Kind::kCfg: return "cfg";
    case Kind::kUlysses: return "ulysses";
    case Kind::kRing: return "ring";
    case Kind::kContext: return "context";
    case Kind::kTp: return "tp";
    case Kind::kFsdp: return "fsdp";
  }
  return "dp";
}

struct Strategy {
  Kind kind;
  std::string text;       // as written, for messages
  std::string axis_name;  // bound by name
  int64_t degree = 0;     // bound by size
  int axis = -1;          // the bound mesh axis
  // fsdp only: the axes the weights are stored over (it may name several,
  // "fsdp=x+y", and may share axes with the compute strategies).
  std::vector<std::string> axis_names;
  std::vector<int> axes;
  // A per-part strategy ("tp=x@cross_attn+ffn"): the block parts it applies
  // in, sorted and unique; empty: the whole model. Only tp takes a scope
  // (templates.h: per-part hybrids).
  std::vector<std::string> parts;
};

// The sequence strategies a per-part tp may share its axis with.
inline bool IsSequence(Kind kind) { return kind == Kind::kUlysses || kind == Kind::kRing || kind == Kind::kContext; }

std::string_view Trim(std::string_view s);
// "cfg=x,ulysses=y" -> strategies, each at most once ("usp:" pairs a Ulysses
// and a ring part).
StatusOr<std::vector<Strategy>> ParseSpec(std::string_view spec);
// Names first, then degrees (the first free axis of that size), then bare
// strategies (the one axis left free); then a per-part tp (by name, or by
// degree: the minor sequence axis of that size, else a free one); fsdp last
// (it may share axes).
Status BindAxes(std::vector<Strategy>& strategies, const Mesh& mesh);

}  // namespace az::shard::templates
