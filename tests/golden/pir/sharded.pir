graph "sharded-linear" {
  mesh @m = ["data"=2, "model"=4]
  mesh @pp = ["stage"=2]
  input %0 "x" : bf16[8,16] sharding<@m, [{"data"}, {}], replicated={"model"}>
  param %1 "w" : bf16[16,32] sharding<@m, [{}, {"model"}]>
  input %2 "scale" : f32[] sharding<@m, []>
  %3 = einsum "proj" (%0, %1) {eq = "bd,de->be"} : bf16[8,32] sharding<@m, [{"data"}, {"model"}]>
  %4 = mul "scaled" (%3, %2) : f32[8,32] sharding<@m, [{"data", "model"}, {}]>
  %5 = silu "act" (%4) : f32[8,32]
  return %5
}
