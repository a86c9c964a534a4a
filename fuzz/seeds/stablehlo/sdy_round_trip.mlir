// The Shardy round-trip form: Shardy attributes kept as strings.
module @jit_rt attributes {mhlo.frontend_attributes = {xla.sdy.meshes = "{mesh = #sdy.mesh<[\22x\22=2]>}"}, mhlo.num_partitions = 2 : i32} {
  func.func @main(%arg0: tensor<8x4xf32> {mhlo.frontend_attributes = {xla.sdy.sharding = "#sdy.sharding<@mesh, [{\22x\22}, {}]>"}, mhlo.sharding = "{devices=[2,1]<=[2]}"}) -> tensor<8x4xf32> {
    %0 = stablehlo.negate %arg0 : tensor<8x4xf32>
    return %0 : tensor<8x4xf32>
  }
}
