// Extended shards on data (windows.h).
#include "compile/interpret/windows.h"

#include <algorithm>

#include "compile/interpret/kernels.h"
#include "compile/spmd/reshard.h"

namespace az::compile::interpret {

StatusOr<std::vector<Tensor>> ExtendedBlocks(const shard::Mesh& mesh, const HaloPlan& plan,
                                             const shard::TensorSharding& sharding, const pir::Shape& global,
                                             const std::vector<Tensor>& blocks) {
  const size_t dim = static_cast<size_t>(plan.window.dim);
  const int64_t rows = global.at(dim);
  if (sharding.dims.at(dim) != plan.axes) {
    return InternalError("the operand's dim " + std::to_string(dim) + " is not split on the halo's axes");
  }
  const int64_t block = sharding.LocalShape(mesh, global).at(dim);
  AZ_CHECK(block == plan.block_in);
  // Each device's group (block order along the dim) and its place in it.
  std::vector<const std::vector<int>*> group_of(static_cast<size_t>(mesh.num_devices()));
  std::vector<int64_t> index_of(static_cast<size_t>(mesh.num_devices()));
  const cir::ReplicaGroups groups = GroupsOverAxes(mesh, plan.axes);
  for (const std::vector<int>& group : groups.groups) {
    for (size_t i = 0; i < group.size(); ++i) {
      group_of[static_cast<size_t>(group[i])] = &group;
      index_of[static_cast<size_t>(group[i])] = static_cast<int64_t>(i);
    }
  }
  std::vector<Tensor> out;
  for (int64_t device = 0; device < mesh.num_devices(); ++device) {
    const Tensor& own = blocks[static_cast<size_t>(device)];
    pir::Shape shape = own.shape;
    shape[dim] = plan.extended_rows;
    Tensor extended = Zeros(shape);
    const int64_t index = index_of[static_cast<size_t>(device)];
    const int64_t start = index * block;
    if (start >= rows) {  // all padding: nothing real reads it
      out.push_back(std::move(extended));
      continue;
    }
    const std::vector<int>& group = *group_of[static_cast<size_t>(device)];
    const std::vector<int64_t> from = Strides(own.shape);
    std::vector<int64_t> at(shape.size(), 0);
    for (int64_t flat = 0; flat < extended.NumElements(); ++flat, Next(at, shape)) {
      int64_t row = start - plan.before + at[dim];
      if (row < 0 || row >= rows) {
        if (!plan.window.replicate) continue;  // a convolution's zero padding
        row = std::clamp<int64_t>(row, 0, rows - 1);
      }
      const int64_t owner = row / block;
      if (owner < index - 1 || owner > index + 1) {
        return InternalError("device " + std::to_string(device) + " needs row " + std::to_string(row) +
                             " of dim " + std::to_string(dim) + " from block " + std::to_string(owner) +
                             ", not a neighbour of its block " + std::to_string(index));
      }
      const Tensor& source = blocks[static_cast<size_t>(group[static_cast<size_t>(owner)])];
      int64_t offset = 0;
      for (size_t d = 0; d < shape.size(); ++d) offset += (d == dim ? row - owner * block : at[d]) * from[d];
      extended.data[static_cast<size_t>(flat)] = source.data[static_cast<size_t>(offset)];
    }
    out.push_back(std::move(extended));
  }
  return out;
}

}  // namespace az::compile::interpret
