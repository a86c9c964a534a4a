module @jit_tp attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<32x64xf32> {mhlo.sharding = "{devices=[1,8]<=[8]}"}, %arg1: tensor<64x16xf32> {mhlo.sharding = "{devices=[8,1]<=[8]}"}, %arg2: tensor<16x16xf32> {mhlo.sharding = "{devices=[2,1,4]<=[8] last_tile_dim_replicate}"}) -> (tensor<32x16xf32> {jax.result_info = ""}) {
    %0 = stablehlo.custom_call @Sharding(%arg0) {backend_config = "", mhlo.sharding = "{devices=[1,8]<=[8]}"} : (tensor<32x64xf32>) -> tensor<32x64xf32>
    %1 = stablehlo.custom_call @SPMDFullToShardShape(%0) {backend_config = "", mhlo.sharding = "{manual}"} : (tensor<32x64xf32>) -> tensor<32x8xf32>
    %2 = stablehlo.custom_call @Sharding(%arg1) {backend_config = "", mhlo.sharding = "{devices=[8,1]<=[8]}"} : (tensor<64x16xf32>) -> tensor<64x16xf32>
    %3 = stablehlo.custom_call @SPMDFullToShardShape(%2) {backend_config = "", mhlo.sharding = "{manual}"} : (tensor<64x16xf32>) -> tensor<8x16xf32>
    %4 = call @shmap_body(%1, %3) : (tensor<32x8xf32>, tensor<8x16xf32>) -> tensor<32x2xf32>
    %5 = stablehlo.custom_call @Sharding(%4) {backend_config = "", mhlo.sharding = "{manual}"} : (tensor<32x2xf32>) -> tensor<32x2xf32>
    %6 = stablehlo.custom_call @SPMDShardToFullShape(%5) {backend_config = "", mhlo.sharding = "{devices=[1,8]<=[8]}"} : (tensor<32x2xf32>) -> tensor<32x16xf32>
    %7 = stablehlo.dot_general %6, %arg2, contracting_dims = [1] x [0] : (tensor<32x16xf32>, tensor<16x16xf32>) -> tensor<32x16xf32>
    return %7 : tensor<32x16xf32>
  }
  func.func private @shmap_body(%arg0: tensor<32x8xf32>, %arg1: tensor<8x16xf32>) -> (tensor<32x2xf32> {jax.result_info = "[None, ('y',)]"}) {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] : (tensor<32x8xf32>, tensor<8x16xf32>) -> tensor<32x16xf32>
    %1 = "stablehlo.reduce_scatter"(%0) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, scatter_dimension = 1 : i64, use_global_device_ids}> ({
    ^bb0(%arg3: tensor<f32>, %arg4: tensor<f32>):
      %2 = stablehlo.add %arg3, %arg4 : tensor<f32>
      stablehlo.return %2 : tensor<f32>
    }) : (tensor<32x16xf32>) -> tensor<32x2xf32>
    return %1 : tensor<32x2xf32>
  }
}
