// Spatial splits: the halo exchange of a convolution or replicate pad whose
// windowed dim (a halo factor, pir/rules/rule.h kHalo) is split over mesh
// axes, as xDiT's DistVAE runs a VAE decoder patch-parallel and GSPMD
// partitions a windowed op.
//
// Blocks. A dim of n rows split over a group of G devices (the devices that
// differ only on the factor's axes, in block order: shard/sharding.h) gives
// device i rows [i B, (i + 1) B), B = ceil(n / G); past n a block is padding.
//
// A window reads, for output row y, input rows s y - low + [0, k) (kernel k,
// stride s, `low` rows of padding before and `high` after; a pad is the window
// k = s = 1 whose rows past the border are the edge row, not zeros). Three
// cases, PlanHalo's:
//   exchange  a convolution whose windows tile its input (n_in = s n_out:
//             every same-padded convolution of a VAE, s = 1), or a replicate
//             pad. Input and output blocks must align (B_in = s B_out, so
//             uneven blocks are fine for s = 1). Device i receives `before` =
//             low rows from its predecessor (their last rows) and `after` =
//             max(0, k - s - low) rows from its successor (their first rows):
//             two collective-permutes, one per direction, between neighbours
//             of the group, no wraparound; the first device's `before` rows
//             and the last's `after` rows are the border: zeros for a
//             convolution, the edge row for a pad. Sizes, per device:
//                 rows x (the operand's local elements / B_in) x dtype bytes,
//             so a 3x3 convolution of a [C, H/G, W] block sends 1 x W x C
//             elements each way ((k - 1) x dilation rows split by the padding;
//             PIR convolutions have no dilation). The local op then reads the
//             *extended shard*, B_in + before + after rows: a convolution with
//             no padding on the dim (a copy kernel first concatenates the
//             halos and the block, as DistVAE's torch.cat does); a pad whose
//             result keeps the extended rows (its padded dim is held extended,
//             B + low + high rows per device, not the plan's ceil((n + low +
//             high) / G)).
//   extended  a convolution that narrows the dim by k - 1 (no padding), reading
//             a pad's extended shard with low + high = k - 1 (HunyuanVideo's
//             CausalConv3d: F.pad(replicate) then an unpadded Conv3d): no
//             communication, B output rows from B + k - 1.
//   refused   (Unimplemented, a user error with the reason) a split
//             convolution dim whose windows do not tile it (a permutation
//             factor: pir/rules/contraction.cc), a window reaching
//             past the neighbours (before or after > B_in: a kernel wider than
//             a shard), unaligned blocks (a stride whose output blocks do not
//             tile the input's), a narrowing convolution without a matching
//             pad, a pad's extended shard read by anything but such a
//             convolution, two windowed dims of one op split at once (corners
//             would need a second exchange), and upsampling an unevenly split
//             dim whose result blocks are not scale x the operand's (90 rows
//             over 4 devices: blocks of 23, the 180 upsampled rows blocks of
//             45, not 46).
// Uneven blocks: the device holding the last row masks the rows past it (to
// zeros, or to the edge row for a pad) before the window reads them, as GSPMD
// masks padded shards; the mask is fused into the concat copy, not priced.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cir/program.h"
#include "shard/sharding.h"

namespace az::compile {

// One windowed dim of a conv3d or pad, in global extents.
struct Window {
  int dim = -1;             // the tensor dim
  int64_t in = 0, out = 0;  // operand 0's and the result's rows
  int64_t kernel = 1, stride = 1;
  int64_t low = 0, high = 0;
  bool replicate = false;  // a pad: past the border, the edge row
};

// A value held as extended shards on `dim` (a split pad's result): each device
// holds its block plus `low` rows before and `high` after.
struct Extension {
  int dim = -1;  // -1: plain blocks
  int64_t low = 0, high = 0;
  bool operator==(const Extension&) const = default;
};

struct HaloPlan {
  enum class Kind { kExchange, kExtended } kind = Kind::kExchange;
  Window window;
  std::vector<int> axes;  // the mesh axes splitting the dim
  int64_t devices = 1;    // G
  int64_t block_in = 0, block_out = 0;
  int64_t before = 0, after = 0;  // rows received from the predecessor / successor
  // The rows the local op reads on the dim: block_in + before + after, or the
  // extended operand's rows.
  int64_t extended_rows = 0;
  // (sender, receiver) in logical ids, sorted: `before` rows go down the
  // group (i -> i + 1), `after` rows up (i + 1 -> i).
  std::vector<std::pair<int, int>> before_pairs, after_pairs;
};

// The windowed dim of `op` (conv3d or pad) that `sharding` splits, with its
// axes, or nullopt when none is split. Unimplemented: two split at once.
StatusOr<std::optional<HaloPlan>> PlanHalo(const shard::Mesh& mesh, const pir::Op& op, const pir::FactorRule& rule,
                                           const shard::OpSharding& sharding,
                                           const std::vector<pir::TensorType>& operands,
                                           const std::vector<pir::TensorType>& results, const Extension& operand);

// Unimplemented when `op` (an upsample) splits a dim unevenly and its result
// blocks are not scale x the operand's (the header's last refusal).
Status CheckUpsampleBlocks(const shard::Mesh& mesh, const pir::Op& op, const pir::FactorRule& rule,
                           const shard::OpSharding& sharding, const pir::TensorType& operand);

// The attributes the local op runs with: a convolution's padding on the
// split dim, or a pad's low and high on it, set to 0 (the halo replaces them).
pir::Attributes LocalAttributes(const pir::Op& op, const HaloPlan& plan);

// The local type of operand 0 as the op reads it: `local` with the split dim
// set to plan.extended_rows.
pir::TensorType ExtendedType(const pir::TensorType& local, const HaloPlan& plan);

struct WindowedNames {
  std::string before, after, concat, kernel;  // unique in the program
};

// Appends a windowed op (conv3d or pad, operands in their local buffers and
// types, operand 0 as held: plain blocks, or a pad's extended shards) and
// returns its result buffer. An exchange: the two permutes (EmitHaloPermutes),
// then for a convolution a copy concatenating the halos and the block
// (DistVAE's torch.cat) and the convolution on the extended shard, unpadded
// on the dim; for a pad, the pad kernel writes the extended shard itself
// (its buffer has plan.block_out rows on the dim). A convolution over a pad's
// extended shard: one local kernel. Kernels priced on their local types
// (pir/rules/cost.h).
int EmitWindowed(const pir::Op& op, const HaloPlan& plan, const std::vector<int>& operands,
                 std::vector<pir::TensorType> local_operands, const pir::TensorType& local_result,
                 const WindowedNames& names, cir::Program& program);

// Appends the two permutes of an exchange (none for a direction with no
// rows) reading `buffer` (operand 0's local block, of type `local`);
// returns the received buffers, before then after (-1 for none). The
// permutes and their buffers are named `names` (before, after: unique in the
// program).
std::pair<int, int> EmitHaloPermutes(const HaloPlan& plan, const pir::TensorType& local, int buffer,
                                     const std::pair<std::string, std::string>& names, const std::string& origin,
                                     cir::Program& program);

}  // namespace az::compile
