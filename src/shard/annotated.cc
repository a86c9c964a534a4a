// Seeds from a program's own sharding annotations (templates.h: AnnotatedSeeds).
#include "shard/templates.h"

namespace az::shard {

StatusOr<Seeds> AnnotatedSeeds(const pir::Graph& graph, const Mesh& mesh) {
  Seeds seeds;
  for (pir::ValueId id = 0; id < graph.num_values(); ++id) {
    const pir::Value& v = graph.value(id);
    if (!v.sharding) continue;
    const pir::Mesh* own = graph.FindMesh(v.sharding->mesh);
    TensorSharding s = TensorSharding::Replicated(static_cast<int>(v.type.rank()));
    if (v.sharding->dim_axes.size() != s.dims.size()) {
      return InvalidArgument("the sharding of " + pir::ValueLabel(graph, id) + " has " +
                             std::to_string(v.sharding->dim_axes.size()) + " dimensions, the value " +
                             std::to_string(s.dims.size()));
    }
    for (size_t d = 0; d < s.dims.size(); ++d) {
      for (const std::string& name : v.sharding->dim_axes[d]) {
        int axis = mesh.AxisIndex(name);
        if (axis < 0) {
          return InvalidArgument("the sharding of " + pir::ValueLabel(graph, id) + " uses axis '" + name +
                                 "', which mesh " + mesh.ToString() + " lacks (the program's mesh is @" +
                                 v.sharding->mesh + ")");
        }
        auto size = own ? own->AxisSize(name) : std::nullopt;
        if (size && *size != mesh.axis_size(axis)) {
          return InvalidArgument("axis '" + name + "' has size " + std::to_string(*size) + " in the program's mesh @" +
                                 v.sharding->mesh + " but " + std::to_string(mesh.axis_size(axis)) + " in mesh " +
                                 mesh.ToString());
        }
        s.dims[d].push_back(axis);
      }
    }
    seeds.values[id] = std::move(s);
  }
  if (seeds.values.empty()) {
    return InvalidArgument("'annotated' takes the program's own shardings, and graph '" + graph.name() +
                           "' carries none");
  }
  return seeds;
}

}  // namespace az::shard
