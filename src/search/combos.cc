#include "search/combos.h"

#include <algorithm>
#include <numeric>

#include "compile/compiler.h"
#include "pir/ir/op_kind.h"
#include "search/pipefusion.h"

namespace az::search {

namespace {

struct Axis {
  const char* name;
  int64_t Combo::*degree;
};
// xDiT's rank order, slowest first ("tp-sp-pp-cfg-dp" read backwards: the
// pipeline's stages between cfg and sp). context takes ring's place (it never
// sits beside ring or ulysses).
constexpr Axis kAxes[] = {{"dp", &Combo::dp},           {"cfg", &Combo::cfg},
                          {"pipefusion", &Combo::pipefusion}, {"ring", &Combo::ring},
                          {"context", &Combo::context}, {"ulysses", &Combo::ulysses},
                          {"tp", &Combo::tp}};

// "tp=ring@cross_attn+ffn" of a per-part hybrid (`axis`: what names the axis).
std::string ScopedTp(const std::string& axis, const std::vector<std::string>& parts) {
  std::string out = "tp=" + axis + "@";
  for (size_t i = 0; i < parts.size(); ++i) out += (i ? "+" : "") + parts[i];
  return out;
}

}  // namespace

std::vector<int64_t> Divisors(int64_t n) {
  std::vector<int64_t> out;
  for (int64_t d = 1; d <= n; ++d) {
    if (n % d == 0) out.push_back(d);
  }
  return out;
}

std::string Combo::ToString() const {
  std::string out;
  auto add = [&](const char* name, int64_t degree) {
    if (degree > 1) out += (out.empty() ? "" : ",") + std::string(name) + "=" + std::to_string(degree);
  };
  add("pipefusion", pipefusion);
  add("ulysses", ulysses);
  add("ring", ring);
  add("context", context);
  add("cfg", cfg);
  add("tp", tp);
  if (IsHybrid()) out += (out.empty() ? "" : ",") + ScopedTp(tp_on, tp_parts);
  add("dp", dp);
  add("fsdp", fsdp);
  add("ulysses_chunks", ulysses_chunks);
  add("prefetch", prefetch);
  if (out.empty()) out = "replicated";
  if (accumulate > 1) out += ",accumulate=" + std::to_string(accumulate);
  if (remat) out += ",remat=" + std::string(pir::RematPolicyName(*remat));
  return out;
}

std::string Combo::Id() const {
  std::string out;
  for (char c : ToString()) {
    if (c == '=') continue;
    out += c == ',' ? '-' : c;
  }
  return out;
}

std::string Combo::MeshText() const {
  std::string out;
  for (const Axis& a : kAxes) {
    if (this->*a.degree > 1) out += (out.empty() ? "" : ",") + std::string(a.name) + "=" + std::to_string(this->*a.degree);
  }
  return out.empty() ? "d=1" : out;
}

std::vector<std::string> Combo::AxisRoles() const {
  std::vector<std::string> roles;
  for (const Axis& a : kAxes) {
    if (this->*a.degree > 1) roles.push_back(a.name);
  }
  if (roles.empty()) roles.push_back("");
  return roles;
}

std::string Combo::Template() const {
  std::string out;
  std::vector<std::string> axes;
  for (const Axis& a : kAxes) {
    // The stages' axis binds no strategy: each position runs its own blocks.
    if (this->*a.degree <= 1 || a.degree == &Combo::pipefusion) continue;
    out += (out.empty() ? "" : ",") + std::string(a.name) + "=" + a.name;
    axes.push_back(a.name);
  }
  // The mesh names each axis after its strategy, so tp_on names the axis.
  if (IsHybrid()) out += (out.empty() ? "" : ",") + ScopedTp(tp_on, tp_parts);
  if (fsdp > 1) {
    // Weights over the axes whose sizes multiply to fsdp: all of them; every
    // axis but dp's (HSDP: sharded inside each data-parallel replica,
    // replicated across them), named, since a degree could bind dp's axis;
    // else the degree, bound by size (templates.h).
    const bool hsdp = dp > 1 && fsdp * dp == devices() && fsdp != dp;
    auto joined = [&](bool skip_dp) {
      std::string text;
      for (const auto& a : axes) {
        if (skip_dp && a == "dp") continue;
        text += (text.empty() ? "" : "+") + a;
      }
      return text;
    };
    out += (out.empty() ? "" : ",") + std::string("fsdp=") +
           (fsdp == devices() && !axes.empty() ? joined(false) : hsdp ? joined(true) : std::to_string(fsdp));
  }
  return out.empty() ? "replicated" : out;
}

namespace {

// "tp=ring@cross_attn+ffn": the strategy whose axis the tp takes, and the parts.
Status ParseScopedTp(const std::string& token, const std::string& value, Combo& c) {
  const size_t at = value.find('@');
  c.tp_on = value.substr(0, at);
  if (c.tp_on != "ulysses" && c.tp_on != "ring" && c.tp_on != "context") {
    return InvalidArgument("'" + token +
                           "': a per-part tp takes the axis of ulysses, ring or context (e.g. tp=ring@ffn)");
  }
  std::string parts = value.substr(at + 1);
  size_t begin = 0;
  while (true) {
    size_t plus = parts.find('+', begin);
    std::string part = parts.substr(begin, plus == std::string::npos ? std::string::npos : plus - begin);
    bool name = !part.empty() && std::all_of(part.begin(), part.end(), [](char ch) {
      return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_';
    });
    if (!name) {
      return InvalidArgument("'" + token +
                             "': expected block parts joined by '+' after '@' (e.g. tp=ring@cross_attn+ffn)");
    }
    if (std::find(c.tp_parts.begin(), c.tp_parts.end(), part) != c.tp_parts.end()) {
      return InvalidArgument("'" + token + "' names part '" + part + "' twice");
    }
    c.tp_parts.push_back(part);
    if (plus == std::string::npos) break;
    begin = plus + 1;
  }
  std::sort(c.tp_parts.begin(), c.tp_parts.end());
  return Status::Ok();
}

}  // namespace

StatusOr<Combo> ParseCombo(std::string_view text, int64_t chips) {
  Combo c;
  std::vector<std::string> seen;
  size_t start = 0;
  std::string spec(text);
  if (spec.empty()) return InvalidArgument("empty --template (expected e.g. ulysses=4,ring=2)");
  while (start <= spec.size()) {
    size_t comma = spec.find(',', start);
    std::string token = spec.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    start = comma == std::string::npos ? spec.size() + 1 : comma + 1;
    size_t eq = token.find('=');
    std::string name = token.substr(0, eq);
    // ToString's name for no parallelism ("replicated", "replicated,remat=full").
    if (token == "replicated") {
      if (std::find(seen.begin(), seen.end(), token) != seen.end()) {
        return InvalidArgument("'replicated' appears twice in --template '" + spec + "'");
      }
      seen.push_back(token);
      continue;
    }
    if (eq == std::string::npos || eq + 1 >= token.size()) {
      return InvalidArgument("'" + token + "' in --template '" + spec + "': write strategy=degree (e.g. ulysses=4)");
    }
    std::string value = token.substr(eq + 1);
    if (name == "remat") {
      if (c.remat) return InvalidArgument("'remat' appears twice in --template '" + spec + "'");
      auto policy = pir::ParseRematPolicy(value);
      if (!policy.ok()) return InvalidArgument("'" + token + "' in --template '" + spec + "': " + policy.status().message());
      c.remat = *policy;
      continue;
    }
    if (name == "prefetch") {
      if (std::find(seen.begin(), seen.end(), name) != seen.end()) {
        return InvalidArgument("'prefetch' appears twice in --template '" + spec + "'");
      }
      seen.push_back(name);
      const bool digits =
          value.size() <= 2 && std::all_of(value.begin(), value.end(), [](char ch) { return ch >= '0' && ch <= '9'; });
      if (!digits || std::stoi(value) < 1 || std::stoi(value) > compile::kMaxPrefetchDepth) {
        return InvalidArgument("'" + token + "': the FSDP prefetch depth is a layer count from 1 to " +
                               std::to_string(compile::kMaxPrefetchDepth));
      }
      c.prefetch = std::stoi(value);
      continue;
    }
    if (name == "tp" && value.find('@') != std::string::npos) {
      if (std::find(seen.begin(), seen.end(), name) != seen.end()) {
        return InvalidArgument("'tp' appears twice in --template '" + spec + "'");
      }
      seen.push_back(name);
      AZ_RETURN_IF_ERROR(ParseScopedTp(token, value, c));
      continue;
    }
    if (value.size() > 6 || !std::all_of(value.begin(), value.end(), [](char ch) { return ch >= '0' && ch <= '9'; })) {
      return InvalidArgument("'" + token + "': the degree must be a positive integer");
    }
    int64_t degree = std::stoll(value);
    if (degree < 1) return InvalidArgument("'" + token + "': the degree must be at least 1");
    if (std::find(seen.begin(), seen.end(), name) != seen.end()) {
      return InvalidArgument("'" + name + "' appears twice in --template '" + spec + "'");
    }
    seen.push_back(name);
    if (name == "fsdp") {
      c.fsdp = degree == 1 ? 0 : degree;
      continue;
    }
    if (name == "accumulate") {
      c.accumulate = degree;
      continue;
    }
    if (name == "ulysses_chunks") {
      c.ulysses_chunks = degree;
      continue;
    }
    bool known = false;
    for (const Axis& a : kAxes) {
      if (name == a.name) {
        c.*a.degree = degree;
        known = true;
      }
    }
    if (!known) {
      return InvalidArgument("unknown strategy '" + name + "' in --template '" + spec +
                             "' (known: pipefusion, ulysses, ring, context, cfg, tp, dp, fsdp, ulysses_chunks, "
                             "prefetch; remat and accumulate for training)");
    }
  }
  if (c.prefetch > 1 && c.fsdp == 0) {
    return InvalidArgument("--template '" + spec +
                           "': prefetch sets how far FSDP's weight gathers run ahead; the combination has no fsdp");
  }
  if (c.pipefusion > 1 && (c.tp > 1 || c.dp > 1 || c.context > 1 || c.fsdp > 0 || c.IsHybrid())) {
    return InvalidArgument("--template '" + spec +
                           "': pipefusion combines with ulysses, ring and cfg only (xDiT's hybrid parallelism; "
                           "each stage holds its own blocks, no tp (per-part or not), dp, context or fsdp)");
  }
  if (c.ulysses_chunks > 1) {
    if (c.ulysses <= 1) {
      return InvalidArgument("--template '" + spec +
                             "': ulysses_chunks splits Ulysses attention's all-to-alls into head chunks; the "
                             "combination has no ulysses degree");
    }
    if (c.pipefusion > 1) {
      return InvalidArgument("--template '" + spec + "': ulysses_chunks does not combine with pipefusion");
    }
    if (c.remat) {
      return InvalidArgument("--template '" + spec +
                             "': ulysses_chunks is for inference; a training step's attention backward is not "
                             "chunked");
    }
  }
  if (c.accumulate > 1) {
    if (c.pipefusion > 1 || c.ulysses_chunks > 1) {
      return InvalidArgument("--template '" + spec +
                             "': accumulate sums a training step's gradients over micro-steps; pipefusion and "
                             "ulysses_chunks are for inference");
    }
    if (c.remat == pir::RematPolicy::kOffload) {
      return InvalidArgument("--template '" + spec +
                             "': accumulate does not combine with remat offload (its host transfers are priced "
                             "for one forward and one backward per step); use remat none, selected or full");
    }
  }
  if (c.context > 1 && (c.ring > 1 || c.ulysses > 1)) {
    return InvalidArgument("--template '" + spec +
                           "': context combines with neither ring nor ulysses (it gathers K and V over its own axis)");
  }
  if (c.IsHybrid()) {
    int64_t on = c.tp_on == "ulysses" ? c.ulysses : c.tp_on == "ring" ? c.ring : c.context;
    if (on <= 1) {
      return InvalidArgument("--template '" + spec + "': the per-part tp takes " + c.tp_on +
                             "'s axis, and the combination has no " + c.tp_on + " degree");
    }
    if (c.tp > 1) {
      return InvalidArgument("--template '" + spec + "': a per-part tp shares a sequence axis; it does not combine " +
                             "with a tp degree of its own");
    }
    if (c.tp_on == "ring" && c.ulysses > 1) {
      return InvalidArgument("--template '" + spec +
                             "': under ulysses x ring a per-part tp takes the minor sequence axis: tp=ulysses@...");
    }
  }
  if (c.devices() != chips) {
    return InvalidArgument("--template '" + spec +
                           "': the degrees of pipefusion, ulysses, ring, context, cfg, tp and dp multiply to " +
                           std::to_string(c.devices()) + ", but the topology has " + std::to_string(chips) +
                           " chips");
  }
  if (c.fsdp > chips) {
    return InvalidArgument("--template '" + spec + "': fsdp=" + std::to_string(c.fsdp) + " exceeds the " +
                           std::to_string(chips) + " chips");
  }
  return c;
}

Status CheckUlyssesChunks(const Combo& combo, int64_t heads) {
  if (combo.ulysses_chunks <= 1) return Status::Ok();
  const int64_t groups = heads / (combo.ulysses * combo.tp);
  if (combo.ulysses_chunks > groups) {
    return InvalidArgument("ulysses_chunks=" + std::to_string(combo.ulysses_chunks) + " exceeds the " +
                           std::to_string(groups) + " head groups (" + std::to_string(heads) + " heads / ulysses " +
                           std::to_string(combo.ulysses) +
                           (combo.tp > 1 ? " x tp " + std::to_string(combo.tp) : std::string()) +
                           "); each chunk holds whole groups");
  }
  return Status::Ok();
}

std::vector<Combo> UlyssesChunkVariants(const Combo& combo, int64_t heads) {
  std::vector<Combo> out;
  if (combo.ulysses <= 1 || combo.pipefusion > 1 || combo.remat || combo.ulysses_chunks > 1 || heads <= 0) {
    return out;
  }
  for (int64_t chunks : {int64_t{2}, int64_t{4}}) {
    Combo c = combo;
    c.ulysses_chunks = chunks;
    if (CheckUlyssesChunks(c, heads).ok()) out.push_back(c);
  }
  return out;
}

bool PinsPrefetch(std::string_view text) {
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = text.find(',', start);
    const size_t length = comma == std::string_view::npos ? std::string_view::npos : comma - start;
    const std::string_view token = text.substr(start, length);
    if (token.starts_with("prefetch=")) return true;
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return false;
}

StatusOr<int64_t> AttentionHeads(const workload::Workload& config) {
  workload::Workload one = config;
  one.depth_units = 1;
  AZ_ASSIGN_OR_RETURN(pir::Graph graph, one.Forward());
  int64_t heads = 0;
  for (const pir::Op& op : graph.ops()) {
    if (op.kind != pir::OpKind::kAttention) continue;
    // The K/V heads: a grouped-query attention shards its heads factor (the
    // K/V heads, pir/rules: RuleAttention) no finer than them.
    int64_t h = graph.type(op.operands[1]).shape[2];
    heads = heads == 0 ? h : std::gcd(heads, h);
  }
  // An imported program without attention: 0, which EnumerateCombos reads as
  // "no sequence or head parallelism" (only data parallelism and FSDP).
  if (heads == 0 && config.imported()) return int64_t{0};
  if (heads == 0) return InvalidArgument("model '" + config.model + "' has no attention");
  return heads;
}

workload::Workload ConfigFor(const workload::Workload& config, const Combo& combo) {
  workload::Workload c = config;
  if (combo.cfg > 1) c.cfg = workload::CfgMode::kBatch2;
  return c;
}

std::vector<Combo> EnumerateCombos(const workload::Workload& config, int64_t chips, int64_t heads) {
  std::vector<Combo> out;
  const bool has_cfg = config.cfg != workload::CfgMode::kNone;
  for (int64_t cfg : {int64_t{1}, int64_t{2}}) {
    if (cfg == 2 && (!has_cfg || chips % 2 != 0)) continue;
    // dp splits the per-CFG-half batch.
    for (int64_t dp : Divisors(chips / cfg)) {
      if (config.batch % dp != 0) continue;
      int64_t rest = chips / cfg / dp;
      for (int64_t ulysses : Divisors(rest)) {
        if (heads == 0 && rest != 1) break;  // no attention: nothing to split but the batch
        if (heads % ulysses != 0) continue;
        for (int64_t tp : Divisors(rest / ulysses)) {
          if (heads % (ulysses * tp) != 0) continue;
          Combo c;
          c.cfg = cfg;
          c.dp = dp;
          c.ulysses = ulysses;
          c.tp = tp;
          c.ring = rest / ulysses / tp;
          // A mesh holds at most 4 axes.
          int axes = 0;
          for (const Axis& a : kAxes) axes += c.*a.degree > 1;
          if (axes > 4) continue;
          out.push_back(c);
          if (chips > 1) {
            c.fsdp = chips;
            out.push_back(c);
          }
          if (c.ring > 1 && c.ulysses == 1) {
            c.context = c.ring;
            c.ring = 1;
            c.fsdp = 0;
            out.push_back(c);
            c.fsdp = chips;
            out.push_back(c);
          }
        }
      }
    }
  }
  AppendPipeFusionCombos(config, chips, heads, out);
  return out;
}

std::vector<Combo> EnumerateTrainCombos(int64_t chips, int64_t heads, int64_t micro_batch) {
  std::vector<Combo> out;
  if (heads == 0) return out;  // a training step is built for zoo models, which all attend
  for (int64_t dp : Divisors(chips)) {
    if (micro_batch % dp != 0) continue;
    int64_t rest = chips / dp;
    for (int64_t ulysses : Divisors(rest)) {
      if (heads % ulysses != 0) continue;
      for (int64_t tp : Divisors(rest / ulysses)) {
        if (heads % (ulysses * tp) != 0) continue;
        Combo c;
        c.dp = dp;
        c.ulysses = ulysses;
        c.tp = tp;
        c.ring = rest / ulysses / tp;
        out.push_back(c);
        if (chips == 1) continue;
        // ZeRO-3 over the data-parallel ranks (each holds whole samples), and
        // over every device (MaxDiffusion's embed -> context x fsdp).
        if (dp > 1 && dp < chips) {
          c.fsdp = dp;
          out.push_back(c);
          // HSDP: over the other axes, inside each data-parallel replica
          // (MaxDiffusion's training README: data x fsdp, the fsdp axis
          // carrying the sequence and the weights). Not where its degree
          // equals dp's: "fsdp=2" beside "dp=2" names the data axis.
          if (rest > 1 && rest != dp) {
            c.fsdp = rest;
            out.push_back(c);
          }
        }
        c.fsdp = chips;
        out.push_back(c);
      }
    }
  }
  // The context twin of every ring-only combination, with the same FSDP.
  const size_t ring_combos = out.size();
  for (size_t i = 0; i < ring_combos; ++i) {
    if (out[i].ring <= 1 || out[i].ulysses > 1) continue;
    Combo c = out[i];
    c.context = c.ring;
    c.ring = 1;
    out.push_back(c);
  }
  return out;
}

bool TrainExpert(const Combo& combo, int64_t chips) {
  if (combo.tp != 1 || combo.cfg != 1 || combo.ring != 1 || combo.ulysses != 1 || combo.IsHybrid()) return false;
  // MaxDiffusion's Wan trainer updates once per batch: no accumulation.
  if (combo.accumulate != 1) return false;
  // MaxDiffusion's README recipe (data x fsdp, the fsdp axis carrying the
  // sequence and the weights): context parallel with the weights over the
  // context axis alone, the batch over the data axis.
  const bool data_by_context =
      combo.dp > 1 && combo.context > 1 && combo.fsdp == combo.context && combo.fsdp != combo.dp;
  return chips == 1 || combo.fsdp == chips || data_by_context;
}

bool ExpertDegrees(const workload::Workload& config, const Combo& combo) {
  const workload::DeployedDegrees offered = config.DeployedParallelism();
  // xDiT and the Wan repo have no context attention (MaxDiffusion's, training's expert).
  // Nor per-part strategies: their code runs one strategy over the whole block.
  // Nor head-chunked Ulysses (MaxDiffusion's ulysses_attention_chunks): xDiT's
  // Ulysses runs one all-to-all per tensor.
  return combo.dp == 1 && combo.context == 1 && !combo.IsHybrid() && combo.ulysses_chunks == 1 &&
         (combo.tp == 1 || offered.tp) &&
         (combo.cfg == 1 || offered.cfg) && (combo.pipefusion == 1 || offered.pipefusion);
}

bool RunsAsExpert(const workload::Workload& config, const Combo& combo) {
  return ExpertDegrees(config, combo) && config.DeployedSequenceSplit(combo.ulysses * combo.ring).ok();
}

}  // namespace az::search
