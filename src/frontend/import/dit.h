// The DiT facts of an imported program, as the parallelism templates read
// them (shard/templates.h reads the zoo's graph attributes; an imported graph
// gets the same ones here).
//
//   latent      the input carrying the video token stream: the one named by
//               ImportOptions::latent, else the floating input of rank 3
//               ([B, L, C]) or 5 (a latent video) from which the longest
//               self-attention's queries are computed (ties: the input with
//               more elements, then the first: a modulation table or the time
//               embedding reaches the queries too).
//               Recorded as the graph attribute `latent_input`.
//   joint       a self-attention whose queries are a concatenation along the
//               sequence of a latent-derived stream followed by streams that
//               are not (HunyuanVideo's img + txt) becomes mode "joint" with
//               `joint_tail` = the trailing length; `text_tokens` = that tail.
//   video_tokens  the video part of the longest latent-derived self/joint
//               attention's query length; 0 when the program has no attention
//               (then the sequence-parallel templates do not apply).
//   batch       dim 0 of the latent.
// Also `model` (the file's stem unless set), `graph` = "forward", `cfg` =
// "none". Returns a note per decision for `inspect`.
#pragma once

#include <string>
#include <vector>

#include "pir/ir/graph.h"
#include "support/status.h"

namespace az::frontend {

StatusOr<std::vector<std::string>> AnnotateDit(pir::Graph& graph, const std::string& latent);

}  // namespace az::frontend
