module @jit_forward attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["cfg"=2, "ulysses"=4]> {stablehlo.mesh = {axes = [{name = "cfg", size = 2 : i64}, {name = "ulysses", size = 4 : i64}]}}
  func.func public @main(%arg0: tensor<1536xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg1: tensor<1536x1536xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg2: tensor<1536xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg3: tensor<1536xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg4: tensor<1536xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg5: tensor<1536xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg6: tensor<1536xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg7: tensor<1536x1536xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg8: tensor<1536xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg9: tensor<1536x1536xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg10: tensor<1536xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg11: tensor<1536x1536xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg12: tensor<8960xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg13: tensor<1536x8960xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg14: tensor<1536xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg15: tensor<8960x1536xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg16: tensor<1x6x1536xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {}]>}, %arg17: tensor<1536xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg18: tensor<1536x1536xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg19: tensor<1536xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg20: tensor<1536xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg21: tensor<1536xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg22: tensor<1536x1536xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg23: tensor<1536xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg24: tensor<1536x1536xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg25: tensor<1536xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg26: tensor<1536x1536xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg27: tensor<64xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg28: tensor<1536x64xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg29: tensor<1x2x1536xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {}]>}, %arg30: tensor<1536xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg31: tensor<1536x16x1x2x2xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {}, {}, {}]>}, %arg32: tensor<1536xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg33: tensor<4096x1536xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg34: tensor<1536xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg35: tensor<1536x1536xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg36: tensor<1536xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg37: tensor<256x1536xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg38: tensor<1536xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg39: tensor<1536x1536xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg40: tensor<9216xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg41: tensor<1536x9216xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg42: tensor<2x16x21x60x104xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"cfg"}, {}, {}, {}, {}]>}, %arg43: tensor<2xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg44: tensor<2x512x4096xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{"cfg"}, {}, {}]>}) -> (tensor<2x16x21x60x104xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.convert %arg42 : (tensor<2x16x21x60x104xf32>) -> tensor<2x16x21x60x104xbf16>
    %1 = stablehlo.convolution(%0, %arg31) dim_numbers = [b, f, 0, 1, 2]x[o, i, 0, 1, 2]->[b, f, 0, 1, 2], window = {stride = [1, 2, 2], pad = [[0, 0], [0, 0], [0, 0]], lhs_dilate = [1, 1, 1], rhs_dilate = [1, 1, 1], reverse = [false, false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x16x21x60x104xbf16>, tensor<1536x16x1x2x2xbf16>) -> tensor<2x1536x21x30x52xbf16>
    %2 = stablehlo.broadcast_in_dim %arg30, dims = [1] : (tensor<1536xbf16>) -> tensor<1x1536x1x1x1xbf16>
    %3 = stablehlo.broadcast_in_dim %2, dims = [0, 1, 2, 3, 4] : (tensor<1x1536x1x1x1xbf16>) -> tensor<2x1536x21x30x52xbf16>
    %4 = stablehlo.add %1, %3 : tensor<2x1536x21x30x52xbf16>
    %5 = stablehlo.reshape %4 : (tensor<2x1536x21x30x52xbf16>) -> tensor<2x1536x32760xbf16>
    %6 = stablehlo.transpose %5, dims = [0, 2, 1] : (tensor<2x1536x32760xbf16>) -> tensor<2x32760x1536xbf16>
    %7 = sdy.sharding_constraint %6 <@mesh, [{"cfg"}, {"ulysses"}, {}]> : tensor<2x32760x1536xbf16>
    %8 = stablehlo.convert %7 : (tensor<2x32760x1536xbf16>) -> tensor<2x32760x1536xf32>
    %9 = stablehlo.iota dim = 0 : tensor<128xf32>
    %10 = stablehlo.negate %9 : tensor<128xf32>
    %cst = stablehlo.constant dense<1.280000e+02> : tensor<f32>
    %11 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<128xf32>
    %12 = stablehlo.divide %10, %11 : tensor<128xf32>
    %cst_0 = stablehlo.constant dense<1.000000e+04> : tensor<f32>
    %13 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<128xf32>
    %14 = stablehlo.power %13, %12 : tensor<128xf32>
    %15 = stablehlo.broadcast_in_dim %arg43, dims = [0] : (tensor<2xf32>) -> tensor<2x1xf32>
    %16 = stablehlo.broadcast_in_dim %14, dims = [1] : (tensor<128xf32>) -> tensor<1x128xf32>
    %17 = stablehlo.broadcast_in_dim %15, dims = [0, 1] : (tensor<2x1xf32>) -> tensor<2x128xf32>
    %18 = stablehlo.broadcast_in_dim %16, dims = [0, 1] : (tensor<1x128xf32>) -> tensor<2x128xf32>
    %19 = stablehlo.multiply %17, %18 : tensor<2x128xf32>
    %20 = stablehlo.cosine %19 : tensor<2x128xf32>
    %21 = stablehlo.sine %19 : tensor<2x128xf32>
    %22 = stablehlo.concatenate %20, %21, dim = 1 : (tensor<2x128xf32>, tensor<2x128xf32>) -> tensor<2x256xf32>
    %23 = stablehlo.convert %arg37 : (tensor<256x1536xbf16>) -> tensor<256x1536xf32>
    %24 = stablehlo.dot_general %22, %23, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x256xf32>, tensor<256x1536xf32>) -> tensor<2x1536xf32>
    %25 = stablehlo.convert %arg36 : (tensor<1536xbf16>) -> tensor<1536xf32>
    %26 = stablehlo.broadcast_in_dim %25, dims = [1] : (tensor<1536xf32>) -> tensor<1x1536xf32>
    %27 = stablehlo.broadcast_in_dim %26, dims = [0, 1] : (tensor<1x1536xf32>) -> tensor<2x1536xf32>
    %28 = stablehlo.add %24, %27 : tensor<2x1536xf32>
    %29 = call @silu(%28) : (tensor<2x1536xf32>) -> tensor<2x1536xf32>
    %30 = stablehlo.convert %arg39 : (tensor<1536x1536xbf16>) -> tensor<1536x1536xf32>
    %31 = stablehlo.dot_general %29, %30, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x1536xf32>, tensor<1536x1536xf32>) -> tensor<2x1536xf32>
    %32 = stablehlo.convert %arg38 : (tensor<1536xbf16>) -> tensor<1536xf32>
    %33 = stablehlo.broadcast_in_dim %32, dims = [1] : (tensor<1536xf32>) -> tensor<1x1536xf32>
    %34 = stablehlo.broadcast_in_dim %33, dims = [0, 1] : (tensor<1x1536xf32>) -> tensor<2x1536xf32>
    %35 = stablehlo.add %31, %34 : tensor<2x1536xf32>
    %36 = call @silu(%35) : (tensor<2x1536xf32>) -> tensor<2x1536xf32>
    %37 = stablehlo.convert %arg41 : (tensor<1536x9216xbf16>) -> tensor<1536x9216xf32>
    %38 = stablehlo.dot_general %36, %37, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x1536xf32>, tensor<1536x9216xf32>) -> tensor<2x9216xf32>
    %39 = stablehlo.convert %arg40 : (tensor<9216xbf16>) -> tensor<9216xf32>
    %40 = stablehlo.broadcast_in_dim %39, dims = [1] : (tensor<9216xf32>) -> tensor<1x9216xf32>
    %41 = stablehlo.broadcast_in_dim %40, dims = [0, 1] : (tensor<1x9216xf32>) -> tensor<2x9216xf32>
    %42 = stablehlo.add %38, %41 : tensor<2x9216xf32>
    %43 = stablehlo.reshape %42 : (tensor<2x9216xf32>) -> tensor<2x6x1536xf32>
    %44 = stablehlo.dot_general %arg44, %arg33, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x512x4096xbf16>, tensor<4096x1536xbf16>) -> tensor<2x512x1536xbf16>
    %45 = stablehlo.broadcast_in_dim %arg32, dims = [2] : (tensor<1536xbf16>) -> tensor<1x1x1536xbf16>
    %46 = stablehlo.broadcast_in_dim %45, dims = [0, 1, 2] : (tensor<1x1x1536xbf16>) -> tensor<2x512x1536xbf16>
    %47 = stablehlo.add %44, %46 : tensor<2x512x1536xbf16>
    %48 = stablehlo.multiply %47, %47 : tensor<2x512x1536xbf16>
    %49 = stablehlo.multiply %48, %47 : tensor<2x512x1536xbf16>
    %cst_1 = stablehlo.constant dense<4.467770e-02> : tensor<bf16>
    %50 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<bf16>) -> tensor<2x512x1536xbf16>
    %51 = stablehlo.multiply %50, %49 : tensor<2x512x1536xbf16>
    %52 = stablehlo.add %47, %51 : tensor<2x512x1536xbf16>
    %cst_2 = stablehlo.constant dense<7.968750e-01> : tensor<bf16>
    %53 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<bf16>) -> tensor<2x512x1536xbf16>
    %54 = stablehlo.multiply %53, %52 : tensor<2x512x1536xbf16>
    %55 = stablehlo.tanh %54 : tensor<2x512x1536xbf16>
    %cst_3 = stablehlo.constant dense<1.000000e+00> : tensor<bf16>
    %56 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<bf16>) -> tensor<2x512x1536xbf16>
    %57 = stablehlo.add %56, %55 : tensor<2x512x1536xbf16>
    %cst_4 = stablehlo.constant dense<5.000000e-01> : tensor<bf16>
    %58 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<bf16>) -> tensor<2x512x1536xbf16>
    %59 = stablehlo.multiply %58, %57 : tensor<2x512x1536xbf16>
    %60 = stablehlo.multiply %47, %59 : tensor<2x512x1536xbf16>
    %61 = stablehlo.dot_general %60, %arg35, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x512x1536xbf16>, tensor<1536x1536xbf16>) -> tensor<2x512x1536xbf16>
    %62 = stablehlo.broadcast_in_dim %arg34, dims = [2] : (tensor<1536xbf16>) -> tensor<1x1x1536xbf16>
    %63 = stablehlo.broadcast_in_dim %62, dims = [0, 1, 2] : (tensor<1x1x1536xbf16>) -> tensor<2x512x1536xbf16>
    %64 = stablehlo.add %61, %63 : tensor<2x512x1536xbf16>
    %65 = sdy.sharding_constraint %64 <@mesh, [{"cfg"}, {}, {}]> : tensor<2x512x1536xbf16>
    %66 = stablehlo.iota dim = 0 : tensor<21xf32>
    %67 = stablehlo.iota dim = 0 : tensor<22xf32>
    %cst_5 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %68 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<22xf32>
    %69 = stablehlo.multiply %68, %67 : tensor<22xf32>
    %cst_6 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %70 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<f32>) -> tensor<22xf32>
    %71 = stablehlo.add %70, %69 : tensor<22xf32>
    %cst_7 = stablehlo.constant dense<4.400000e+01> : tensor<f32>
    %72 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<22xf32>
    %73 = stablehlo.divide %71, %72 : tensor<22xf32>
    %cst_8 = stablehlo.constant dense<1.000000e+04> : tensor<f32>
    %74 = stablehlo.broadcast_in_dim %cst_8, dims = [] : (tensor<f32>) -> tensor<22xf32>
    %75 = stablehlo.power %74, %73 : tensor<22xf32>
    %cst_9 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %76 = stablehlo.broadcast_in_dim %cst_9, dims = [] : (tensor<f32>) -> tensor<22xf32>
    %77 = stablehlo.divide %76, %75 : tensor<22xf32>
    %78 = stablehlo.broadcast_in_dim %66, dims = [0] : (tensor<21xf32>) -> tensor<21x1xf32>
    %79 = stablehlo.broadcast_in_dim %77, dims = [1] : (tensor<22xf32>) -> tensor<1x22xf32>
    %80 = stablehlo.broadcast_in_dim %78, dims = [0, 1] : (tensor<21x1xf32>) -> tensor<21x22xf32>
    %81 = stablehlo.broadcast_in_dim %79, dims = [0, 1] : (tensor<1x22xf32>) -> tensor<21x22xf32>
    %82 = stablehlo.multiply %80, %81 : tensor<21x22xf32>
    %83 = stablehlo.iota dim = 0 : tensor<30xf32>
    %84 = stablehlo.iota dim = 0 : tensor<21xf32>
    %cst_10 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %85 = stablehlo.broadcast_in_dim %cst_10, dims = [] : (tensor<f32>) -> tensor<21xf32>
    %86 = stablehlo.multiply %85, %84 : tensor<21xf32>
    %cst_11 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %87 = stablehlo.broadcast_in_dim %cst_11, dims = [] : (tensor<f32>) -> tensor<21xf32>
    %88 = stablehlo.add %87, %86 : tensor<21xf32>
    %cst_12 = stablehlo.constant dense<4.200000e+01> : tensor<f32>
    %89 = stablehlo.broadcast_in_dim %cst_12, dims = [] : (tensor<f32>) -> tensor<21xf32>
    %90 = stablehlo.divide %88, %89 : tensor<21xf32>
    %cst_13 = stablehlo.constant dense<1.000000e+04> : tensor<f32>
    %91 = stablehlo.broadcast_in_dim %cst_13, dims = [] : (tensor<f32>) -> tensor<21xf32>
    %92 = stablehlo.power %91, %90 : tensor<21xf32>
    %cst_14 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %93 = stablehlo.broadcast_in_dim %cst_14, dims = [] : (tensor<f32>) -> tensor<21xf32>
    %94 = stablehlo.divide %93, %92 : tensor<21xf32>
    %95 = stablehlo.broadcast_in_dim %83, dims = [0] : (tensor<30xf32>) -> tensor<30x1xf32>
    %96 = stablehlo.broadcast_in_dim %94, dims = [1] : (tensor<21xf32>) -> tensor<1x21xf32>
    %97 = stablehlo.broadcast_in_dim %95, dims = [0, 1] : (tensor<30x1xf32>) -> tensor<30x21xf32>
    %98 = stablehlo.broadcast_in_dim %96, dims = [0, 1] : (tensor<1x21xf32>) -> tensor<30x21xf32>
    %99 = stablehlo.multiply %97, %98 : tensor<30x21xf32>
    %100 = stablehlo.iota dim = 0 : tensor<52xf32>
    %101 = stablehlo.iota dim = 0 : tensor<21xf32>
    %cst_15 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %102 = stablehlo.broadcast_in_dim %cst_15, dims = [] : (tensor<f32>) -> tensor<21xf32>
    %103 = stablehlo.multiply %102, %101 : tensor<21xf32>
    %cst_16 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %104 = stablehlo.broadcast_in_dim %cst_16, dims = [] : (tensor<f32>) -> tensor<21xf32>
    %105 = stablehlo.add %104, %103 : tensor<21xf32>
    %cst_17 = stablehlo.constant dense<4.200000e+01> : tensor<f32>
    %106 = stablehlo.broadcast_in_dim %cst_17, dims = [] : (tensor<f32>) -> tensor<21xf32>
    %107 = stablehlo.divide %105, %106 : tensor<21xf32>
    %cst_18 = stablehlo.constant dense<1.000000e+04> : tensor<f32>
    %108 = stablehlo.broadcast_in_dim %cst_18, dims = [] : (tensor<f32>) -> tensor<21xf32>
    %109 = stablehlo.power %108, %107 : tensor<21xf32>
    %cst_19 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %110 = stablehlo.broadcast_in_dim %cst_19, dims = [] : (tensor<f32>) -> tensor<21xf32>
    %111 = stablehlo.divide %110, %109 : tensor<21xf32>
    %112 = stablehlo.broadcast_in_dim %100, dims = [0] : (tensor<52xf32>) -> tensor<52x1xf32>
    %113 = stablehlo.broadcast_in_dim %111, dims = [1] : (tensor<21xf32>) -> tensor<1x21xf32>
    %114 = stablehlo.broadcast_in_dim %112, dims = [0, 1] : (tensor<52x1xf32>) -> tensor<52x21xf32>
    %115 = stablehlo.broadcast_in_dim %113, dims = [0, 1] : (tensor<1x21xf32>) -> tensor<52x21xf32>
    %116 = stablehlo.multiply %114, %115 : tensor<52x21xf32>
    %117 = stablehlo.broadcast_in_dim %82, dims = [0, 3] : (tensor<21x22xf32>) -> tensor<21x1x1x22xf32>
    %118 = stablehlo.broadcast_in_dim %117, dims = [0, 1, 2, 3] : (tensor<21x1x1x22xf32>) -> tensor<21x30x52x22xf32>
    %119 = stablehlo.broadcast_in_dim %99, dims = [1, 3] : (tensor<30x21xf32>) -> tensor<1x30x1x21xf32>
    %120 = stablehlo.broadcast_in_dim %119, dims = [0, 1, 2, 3] : (tensor<1x30x1x21xf32>) -> tensor<21x30x52x21xf32>
    %121 = stablehlo.broadcast_in_dim %116, dims = [2, 3] : (tensor<52x21xf32>) -> tensor<1x1x52x21xf32>
    %122 = stablehlo.broadcast_in_dim %121, dims = [0, 1, 2, 3] : (tensor<1x1x52x21xf32>) -> tensor<21x30x52x21xf32>
    %123 = stablehlo.concatenate %118, %120, %122, dim = 3 : (tensor<21x30x52x22xf32>, tensor<21x30x52x21xf32>, tensor<21x30x52x21xf32>) -> tensor<21x30x52x64xf32>
    %124 = stablehlo.reshape %123 : (tensor<21x30x52x64xf32>) -> tensor<32760x64xf32>
    %125 = sdy.sharding_constraint %124 <@mesh, [{"ulysses"}, {}]> : tensor<32760x64xf32>
    %126 = stablehlo.convert %arg16 : (tensor<1x6x1536xbf16>) -> tensor<1x6x1536xf32>
    %127 = stablehlo.broadcast_in_dim %126, dims = [0, 1, 2] : (tensor<1x6x1536xf32>) -> tensor<2x6x1536xf32>
    %128 = stablehlo.add %127, %43 : tensor<2x6x1536xf32>
    %129 = stablehlo.slice %128 [0:2, 0:1, 0:1536] : (tensor<2x6x1536xf32>) -> tensor<2x1x1536xf32>
    %130 = stablehlo.slice %128 [0:2, 1:2, 0:1536] : (tensor<2x6x1536xf32>) -> tensor<2x1x1536xf32>
    %131 = stablehlo.slice %128 [0:2, 2:3, 0:1536] : (tensor<2x6x1536xf32>) -> tensor<2x1x1536xf32>
    %132 = stablehlo.slice %128 [0:2, 3:4, 0:1536] : (tensor<2x6x1536xf32>) -> tensor<2x1x1536xf32>
    %133 = stablehlo.slice %128 [0:2, 4:5, 0:1536] : (tensor<2x6x1536xf32>) -> tensor<2x1x1536xf32>
    %134 = stablehlo.slice %128 [0:2, 5:6, 0:1536] : (tensor<2x6x1536xf32>) -> tensor<2x1x1536xf32>
    %cst_20 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %135 = stablehlo.reduce(%8 init: %cst_20) applies stablehlo.add across dimensions = [2] : (tensor<2x32760x1536xf32>, tensor<f32>) -> tensor<2x32760xf32>
    %136 = stablehlo.broadcast_in_dim %135, dims = [0, 1] : (tensor<2x32760xf32>) -> tensor<2x32760x1xf32>
    %cst_21 = stablehlo.constant dense<1.536000e+03> : tensor<f32>
    %137 = stablehlo.broadcast_in_dim %cst_21, dims = [] : (tensor<f32>) -> tensor<2x32760x1xf32>
    %138 = stablehlo.divide %136, %137 : tensor<2x32760x1xf32>
    %139 = stablehlo.broadcast_in_dim %138, dims = [0, 1, 2] : (tensor<2x32760x1xf32>) -> tensor<2x32760x1536xf32>
    %140 = stablehlo.subtract %8, %139 : tensor<2x32760x1536xf32>
    %141 = chlo.square %140 : tensor<2x32760x1536xf32> -> tensor<2x32760x1536xf32>
    %cst_22 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %142 = stablehlo.reduce(%141 init: %cst_22) applies stablehlo.add across dimensions = [2] : (tensor<2x32760x1536xf32>, tensor<f32>) -> tensor<2x32760xf32>
    %143 = stablehlo.broadcast_in_dim %142, dims = [0, 1] : (tensor<2x32760xf32>) -> tensor<2x32760x1xf32>
    %cst_23 = stablehlo.constant dense<1.536000e+03> : tensor<f32>
    %144 = stablehlo.broadcast_in_dim %cst_23, dims = [] : (tensor<f32>) -> tensor<2x32760x1xf32>
    %145 = stablehlo.divide %143, %144 : tensor<2x32760x1xf32>
    %146 = stablehlo.broadcast_in_dim %138, dims = [0, 1, 2] : (tensor<2x32760x1xf32>) -> tensor<2x32760x1536xf32>
    %147 = stablehlo.subtract %8, %146 : tensor<2x32760x1536xf32>
    %cst_24 = stablehlo.constant dense<9.99999997E-7> : tensor<f32>
    %148 = stablehlo.broadcast_in_dim %cst_24, dims = [] : (tensor<f32>) -> tensor<2x32760x1xf32>
    %149 = stablehlo.add %145, %148 : tensor<2x32760x1xf32>
    %150 = stablehlo.rsqrt %149 : tensor<2x32760x1xf32>
    %151 = stablehlo.broadcast_in_dim %150, dims = [0, 1, 2] : (tensor<2x32760x1xf32>) -> tensor<2x32760x1536xf32>
    %152 = stablehlo.multiply %147, %151 : tensor<2x32760x1536xf32>
    %153 = stablehlo.broadcast_in_dim %130, dims = [0, 1, 2] : (tensor<2x1x1536xf32>) -> tensor<2x32760x1536xf32>
    %154 = stablehlo.multiply %152, %153 : tensor<2x32760x1536xf32>
    %155 = stablehlo.add %152, %154 : tensor<2x32760x1536xf32>
    %156 = stablehlo.broadcast_in_dim %129, dims = [0, 1, 2] : (tensor<2x1x1536xf32>) -> tensor<2x32760x1536xf32>
    %157 = stablehlo.add %155, %156 : tensor<2x32760x1536xf32>
    %158 = stablehlo.convert %157 : (tensor<2x32760x1536xf32>) -> tensor<2x32760x1536xbf16>
    %159 = stablehlo.dot_general %158, %arg24, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x32760x1536xbf16>, tensor<1536x1536xbf16>) -> tensor<2x32760x1536xbf16>
    %160 = stablehlo.broadcast_in_dim %arg23, dims = [2] : (tensor<1536xbf16>) -> tensor<1x1x1536xbf16>
    %161 = stablehlo.broadcast_in_dim %160, dims = [0, 1, 2] : (tensor<1x1x1536xbf16>) -> tensor<2x32760x1536xbf16>
    %162 = stablehlo.add %159, %161 : tensor<2x32760x1536xbf16>
    %163 = sdy.sharding_constraint %162 <@mesh, [{"cfg"}, {"ulysses"}, {}]> : tensor<2x32760x1536xbf16>
    %164 = stablehlo.convert %163 : (tensor<2x32760x1536xbf16>) -> tensor<2x32760x1536xf32>
    %165 = chlo.square %164 : tensor<2x32760x1536xf32> -> tensor<2x32760x1536xf32>
    %cst_25 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %166 = stablehlo.reduce(%165 init: %cst_25) applies stablehlo.add across dimensions = [2] : (tensor<2x32760x1536xf32>, tensor<f32>) -> tensor<2x32760xf32>
    %167 = stablehlo.broadcast_in_dim %166, dims = [0, 1] : (tensor<2x32760xf32>) -> tensor<2x32760x1xf32>
    %cst_26 = stablehlo.constant dense<1.536000e+03> : tensor<f32>
    %168 = stablehlo.broadcast_in_dim %cst_26, dims = [] : (tensor<f32>) -> tensor<2x32760x1xf32>
    %169 = stablehlo.divide %167, %168 : tensor<2x32760x1xf32>
    %cst_27 = stablehlo.constant dense<9.99999997E-7> : tensor<f32>
    %170 = stablehlo.broadcast_in_dim %cst_27, dims = [] : (tensor<f32>) -> tensor<2x32760x1xf32>
    %171 = stablehlo.add %169, %170 : tensor<2x32760x1xf32>
    %172 = stablehlo.rsqrt %171 : tensor<2x32760x1xf32>
    %173 = stablehlo.broadcast_in_dim %172, dims = [0, 1, 2] : (tensor<2x32760x1xf32>) -> tensor<2x32760x1536xf32>
    %174 = stablehlo.multiply %164, %173 : tensor<2x32760x1536xf32>
    %175 = stablehlo.convert %174 : (tensor<2x32760x1536xf32>) -> tensor<2x32760x1536xbf16>
    %176 = stablehlo.broadcast_in_dim %arg20, dims = [2] : (tensor<1536xbf16>) -> tensor<1x1x1536xbf16>
    %177 = stablehlo.broadcast_in_dim %176, dims = [0, 1, 2] : (tensor<1x1x1536xbf16>) -> tensor<2x32760x1536xbf16>
    %178 = stablehlo.multiply %175, %177 : tensor<2x32760x1536xbf16>
    %179 = stablehlo.dot_general %158, %arg18, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x32760x1536xbf16>, tensor<1536x1536xbf16>) -> tensor<2x32760x1536xbf16>
    %180 = stablehlo.broadcast_in_dim %arg17, dims = [2] : (tensor<1536xbf16>) -> tensor<1x1x1536xbf16>
    %181 = stablehlo.broadcast_in_dim %180, dims = [0, 1, 2] : (tensor<1x1x1536xbf16>) -> tensor<2x32760x1536xbf16>
    %182 = stablehlo.add %179, %181 : tensor<2x32760x1536xbf16>
    %183 = sdy.sharding_constraint %182 <@mesh, [{"cfg"}, {"ulysses"}, {}]> : tensor<2x32760x1536xbf16>
    %184 = stablehlo.convert %183 : (tensor<2x32760x1536xbf16>) -> tensor<2x32760x1536xf32>
    %185 = chlo.square %184 : tensor<2x32760x1536xf32> -> tensor<2x32760x1536xf32>
    %cst_28 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %186 = stablehlo.reduce(%185 init: %cst_28) applies stablehlo.add across dimensions = [2] : (tensor<2x32760x1536xf32>, tensor<f32>) -> tensor<2x32760xf32>
    %187 = stablehlo.broadcast_in_dim %186, dims = [0, 1] : (tensor<2x32760xf32>) -> tensor<2x32760x1xf32>
    %cst_29 = stablehlo.constant dense<1.536000e+03> : tensor<f32>
    %188 = stablehlo.broadcast_in_dim %cst_29, dims = [] : (tensor<f32>) -> tensor<2x32760x1xf32>
    %189 = stablehlo.divide %187, %188 : tensor<2x32760x1xf32>
    %cst_30 = stablehlo.constant dense<9.99999997E-7> : tensor<f32>
    %190 = stablehlo.broadcast_in_dim %cst_30, dims = [] : (tensor<f32>) -> tensor<2x32760x1xf32>
    %191 = stablehlo.add %189, %190 : tensor<2x32760x1xf32>
    %192 = stablehlo.rsqrt %191 : tensor<2x32760x1xf32>
    %193 = stablehlo.broadcast_in_dim %192, dims = [0, 1, 2] : (tensor<2x32760x1xf32>) -> tensor<2x32760x1536xf32>
    %194 = stablehlo.multiply %184, %193 : tensor<2x32760x1536xf32>
    %195 = stablehlo.convert %194 : (tensor<2x32760x1536xf32>) -> tensor<2x32760x1536xbf16>
    %196 = stablehlo.broadcast_in_dim %arg19, dims = [2] : (tensor<1536xbf16>) -> tensor<1x1x1536xbf16>
    %197 = stablehlo.broadcast_in_dim %196, dims = [0, 1, 2] : (tensor<1x1x1536xbf16>) -> tensor<2x32760x1536xbf16>
    %198 = stablehlo.multiply %195, %197 : tensor<2x32760x1536xbf16>
    %199 = stablehlo.dot_general %158, %arg26, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x32760x1536xbf16>, tensor<1536x1536xbf16>) -> tensor<2x32760x1536xbf16>
    %200 = stablehlo.broadcast_in_dim %arg25, dims = [2] : (tensor<1536xbf16>) -> tensor<1x1x1536xbf16>
    %201 = stablehlo.broadcast_in_dim %200, dims = [0, 1, 2] : (tensor<1x1x1536xbf16>) -> tensor<2x32760x1536xbf16>
    %202 = stablehlo.add %199, %201 : tensor<2x32760x1536xbf16>
    %203 = sdy.sharding_constraint %202 <@mesh, [{"cfg"}, {"ulysses"}, {}]> : tensor<2x32760x1536xbf16>
    %204 = stablehlo.reshape %178 : (tensor<2x32760x1536xbf16>) -> tensor<2x32760x12x128xbf16>
    %205 = sdy.sharding_constraint %204 <@mesh, [{"cfg"}, {"ulysses"}, {}, {}]> : tensor<2x32760x12x128xbf16>
    %206 = stablehlo.convert %205 : (tensor<2x32760x12x128xbf16>) -> tensor<2x32760x12x128xf32>
    %207 = stablehlo.reshape %206 : (tensor<2x32760x12x128xf32>) -> tensor<2x32760x12x64x2xf32>
    %208 = stablehlo.cosine %125 : tensor<32760x64xf32>
    %209 = stablehlo.broadcast_in_dim %208, dims = [1, 3] : (tensor<32760x64xf32>) -> tensor<1x32760x1x64xf32>
    %210 = stablehlo.sine %125 : tensor<32760x64xf32>
    %211 = stablehlo.broadcast_in_dim %210, dims = [1, 3] : (tensor<32760x64xf32>) -> tensor<1x32760x1x64xf32>
    %212 = stablehlo.slice %207 [0:2, 0:32760, 0:12, 0:64, 0:1] : (tensor<2x32760x12x64x2xf32>) -> tensor<2x32760x12x64x1xf32>
    %213 = stablehlo.reshape %212 : (tensor<2x32760x12x64x1xf32>) -> tensor<2x32760x12x64xf32>
    %214 = stablehlo.slice %207 [0:2, 0:32760, 0:12, 0:64, 1:2] : (tensor<2x32760x12x64x2xf32>) -> tensor<2x32760x12x64x1xf32>
    %215 = stablehlo.reshape %214 : (tensor<2x32760x12x64x1xf32>) -> tensor<2x32760x12x64xf32>
    %216 = stablehlo.broadcast_in_dim %209, dims = [0, 1, 2, 3] : (tensor<1x32760x1x64xf32>) -> tensor<2x32760x12x64xf32>
    %217 = stablehlo.multiply %213, %216 : tensor<2x32760x12x64xf32>
    %218 = stablehlo.broadcast_in_dim %211, dims = [0, 1, 2, 3] : (tensor<1x32760x1x64xf32>) -> tensor<2x32760x12x64xf32>
    %219 = stablehlo.multiply %215, %218 : tensor<2x32760x12x64xf32>
    %220 = stablehlo.subtract %217, %219 : tensor<2x32760x12x64xf32>
    %221 = stablehlo.broadcast_in_dim %211, dims = [0, 1, 2, 3] : (tensor<1x32760x1x64xf32>) -> tensor<2x32760x12x64xf32>
    %222 = stablehlo.multiply %213, %221 : tensor<2x32760x12x64xf32>
    %223 = stablehlo.broadcast_in_dim %209, dims = [0, 1, 2, 3] : (tensor<1x32760x1x64xf32>) -> tensor<2x32760x12x64xf32>
    %224 = stablehlo.multiply %215, %223 : tensor<2x32760x12x64xf32>
    %225 = stablehlo.add %222, %224 : tensor<2x32760x12x64xf32>
    %226 = stablehlo.broadcast_in_dim %220, dims = [0, 1, 2, 3] : (tensor<2x32760x12x64xf32>) -> tensor<2x32760x12x64x1xf32>
    %227 = stablehlo.broadcast_in_dim %225, dims = [0, 1, 2, 3] : (tensor<2x32760x12x64xf32>) -> tensor<2x32760x12x64x1xf32>
    %228 = stablehlo.concatenate %226, %227, dim = 4 : (tensor<2x32760x12x64x1xf32>, tensor<2x32760x12x64x1xf32>) -> tensor<2x32760x12x64x2xf32>
    %229 = stablehlo.reshape %228 : (tensor<2x32760x12x64x2xf32>) -> tensor<2x32760x12x128xf32>
    %230 = stablehlo.convert %229 : (tensor<2x32760x12x128xf32>) -> tensor<2x32760x12x128xbf16>
    %231 = stablehlo.reshape %198 : (tensor<2x32760x1536xbf16>) -> tensor<2x32760x12x128xbf16>
    %232 = sdy.sharding_constraint %231 <@mesh, [{"cfg"}, {"ulysses"}, {}, {}]> : tensor<2x32760x12x128xbf16>
    %233 = stablehlo.convert %232 : (tensor<2x32760x12x128xbf16>) -> tensor<2x32760x12x128xf32>
    %234 = stablehlo.reshape %233 : (tensor<2x32760x12x128xf32>) -> tensor<2x32760x12x64x2xf32>
    %235 = stablehlo.cosine %125 : tensor<32760x64xf32>
    %236 = stablehlo.broadcast_in_dim %235, dims = [1, 3] : (tensor<32760x64xf32>) -> tensor<1x32760x1x64xf32>
    %237 = stablehlo.sine %125 : tensor<32760x64xf32>
    %238 = stablehlo.broadcast_in_dim %237, dims = [1, 3] : (tensor<32760x64xf32>) -> tensor<1x32760x1x64xf32>
    %239 = stablehlo.slice %234 [0:2, 0:32760, 0:12, 0:64, 0:1] : (tensor<2x32760x12x64x2xf32>) -> tensor<2x32760x12x64x1xf32>
    %240 = stablehlo.reshape %239 : (tensor<2x32760x12x64x1xf32>) -> tensor<2x32760x12x64xf32>
    %241 = stablehlo.slice %234 [0:2, 0:32760, 0:12, 0:64, 1:2] : (tensor<2x32760x12x64x2xf32>) -> tensor<2x32760x12x64x1xf32>
    %242 = stablehlo.reshape %241 : (tensor<2x32760x12x64x1xf32>) -> tensor<2x32760x12x64xf32>
    %243 = stablehlo.broadcast_in_dim %236, dims = [0, 1, 2, 3] : (tensor<1x32760x1x64xf32>) -> tensor<2x32760x12x64xf32>
    %244 = stablehlo.multiply %240, %243 : tensor<2x32760x12x64xf32>
    %245 = stablehlo.broadcast_in_dim %238, dims = [0, 1, 2, 3] : (tensor<1x32760x1x64xf32>) -> tensor<2x32760x12x64xf32>
    %246 = stablehlo.multiply %242, %245 : tensor<2x32760x12x64xf32>
    %247 = stablehlo.subtract %244, %246 : tensor<2x32760x12x64xf32>
    %248 = stablehlo.broadcast_in_dim %238, dims = [0, 1, 2, 3] : (tensor<1x32760x1x64xf32>) -> tensor<2x32760x12x64xf32>
    %249 = stablehlo.multiply %240, %248 : tensor<2x32760x12x64xf32>
    %250 = stablehlo.broadcast_in_dim %236, dims = [0, 1, 2, 3] : (tensor<1x32760x1x64xf32>) -> tensor<2x32760x12x64xf32>
    %251 = stablehlo.multiply %242, %250 : tensor<2x32760x12x64xf32>
    %252 = stablehlo.add %249, %251 : tensor<2x32760x12x64xf32>
    %253 = stablehlo.broadcast_in_dim %247, dims = [0, 1, 2, 3] : (tensor<2x32760x12x64xf32>) -> tensor<2x32760x12x64x1xf32>
    %254 = stablehlo.broadcast_in_dim %252, dims = [0, 1, 2, 3] : (tensor<2x32760x12x64xf32>) -> tensor<2x32760x12x64x1xf32>
    %255 = stablehlo.concatenate %253, %254, dim = 4 : (tensor<2x32760x12x64x1xf32>, tensor<2x32760x12x64x1xf32>) -> tensor<2x32760x12x64x2xf32>
    %256 = stablehlo.reshape %255 : (tensor<2x32760x12x64x2xf32>) -> tensor<2x32760x12x128xf32>
    %257 = stablehlo.convert %256 : (tensor<2x32760x12x128xf32>) -> tensor<2x32760x12x128xbf16>
    %258 = stablehlo.reshape %203 : (tensor<2x32760x1536xbf16>) -> tensor<2x32760x12x128xbf16>
    %259 = sdy.sharding_constraint %258 <@mesh, [{"cfg"}, {"ulysses"}, {}, {}]> : tensor<2x32760x12x128xbf16>
    %260 = sdy.sharding_constraint %230 <@mesh, [{"cfg"}, {}, {"ulysses"}, {}]> : tensor<2x32760x12x128xbf16>
    %261 = sdy.sharding_constraint %257 <@mesh, [{"cfg"}, {}, {"ulysses"}, {}]> : tensor<2x32760x12x128xbf16>
    %262 = sdy.sharding_constraint %259 <@mesh, [{"cfg"}, {}, {"ulysses"}, {}]> : tensor<2x32760x12x128xbf16>
    %263 = stablehlo.dot_general %260, %261, batching_dims = [0, 2] x [0, 2], contracting_dims = [3] x [3], precision = [DEFAULT, DEFAULT] : (tensor<2x32760x12x128xbf16>, tensor<2x32760x12x128xbf16>) -> tensor<2x12x32760x32760xf32>
    %cst_31 = stablehlo.constant dense<0.0883883461> : tensor<f32>
    %264 = stablehlo.broadcast_in_dim %cst_31, dims = [] : (tensor<f32>) -> tensor<2x12x32760x32760xf32>
    %265 = stablehlo.multiply %263, %264 : tensor<2x12x32760x32760xf32>
    %cst_32 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %266 = stablehlo.reduce(%265 init: %cst_32) applies stablehlo.maximum across dimensions = [3] : (tensor<2x12x32760x32760xf32>, tensor<f32>) -> tensor<2x12x32760xf32>
    %cst_33 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %267 = stablehlo.broadcast_in_dim %cst_33, dims = [] : (tensor<f32>) -> tensor<2x12x32760xf32>
    %268 = stablehlo.maximum %267, %266 : tensor<2x12x32760xf32>
    %269 = stablehlo.broadcast_in_dim %268, dims = [0, 1, 2] : (tensor<2x12x32760xf32>) -> tensor<2x12x32760x1xf32>
    %270 = stablehlo.broadcast_in_dim %269, dims = [0, 1, 2, 3] : (tensor<2x12x32760x1xf32>) -> tensor<2x12x32760x32760xf32>
    %271 = stablehlo.subtract %265, %270 : tensor<2x12x32760x32760xf32>
    %272 = stablehlo.exponential %271 : tensor<2x12x32760x32760xf32>
    %cst_34 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %273 = stablehlo.reduce(%272 init: %cst_34) applies stablehlo.add across dimensions = [3] : (tensor<2x12x32760x32760xf32>, tensor<f32>) -> tensor<2x12x32760xf32>
    %274 = stablehlo.broadcast_in_dim %273, dims = [0, 1, 2] : (tensor<2x12x32760xf32>) -> tensor<2x12x32760x1xf32>
    %275 = stablehlo.broadcast_in_dim %274, dims = [0, 1, 2, 3] : (tensor<2x12x32760x1xf32>) -> tensor<2x12x32760x32760xf32>
    %276 = stablehlo.divide %272, %275 : tensor<2x12x32760x32760xf32>
    %277 = stablehlo.convert %276 : (tensor<2x12x32760x32760xf32>) -> tensor<2x12x32760x32760xbf16>
    %278 = stablehlo.dot_general %262, %277, batching_dims = [0, 2] x [0, 1], contracting_dims = [1] x [3], precision = [DEFAULT, DEFAULT] : (tensor<2x32760x12x128xbf16>, tensor<2x12x32760x32760xbf16>) -> tensor<2x12x128x32760xbf16>
    %279 = stablehlo.transpose %278, dims = [0, 3, 1, 2] : (tensor<2x12x128x32760xbf16>) -> tensor<2x32760x12x128xbf16>
    %280 = sdy.sharding_constraint %279 <@mesh, [{"cfg"}, {}, {"ulysses"}, {}]> : tensor<2x32760x12x128xbf16>
    %281 = sdy.sharding_constraint %280 <@mesh, [{"cfg"}, {"ulysses"}, {}, {}]> : tensor<2x32760x12x128xbf16>
    %282 = stablehlo.reshape %281 : (tensor<2x32760x12x128xbf16>) -> tensor<2x32760x1536xbf16>
    %283 = stablehlo.dot_general %282, %arg22, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x32760x1536xbf16>, tensor<1536x1536xbf16>) -> tensor<2x32760x1536xbf16>
    %284 = stablehlo.broadcast_in_dim %arg21, dims = [2] : (tensor<1536xbf16>) -> tensor<1x1x1536xbf16>
    %285 = stablehlo.broadcast_in_dim %284, dims = [0, 1, 2] : (tensor<1x1x1536xbf16>) -> tensor<2x32760x1536xbf16>
    %286 = stablehlo.add %283, %285 : tensor<2x32760x1536xbf16>
    %287 = sdy.sharding_constraint %286 <@mesh, [{"cfg"}, {"ulysses"}, {}]> : tensor<2x32760x1536xbf16>
    %288 = stablehlo.convert %287 : (tensor<2x32760x1536xbf16>) -> tensor<2x32760x1536xf32>
    %289 = stablehlo.broadcast_in_dim %131, dims = [0, 1, 2] : (tensor<2x1x1536xf32>) -> tensor<2x32760x1536xf32>
    %290 = stablehlo.multiply %288, %289 : tensor<2x32760x1536xf32>
    %291 = stablehlo.add %8, %290 : tensor<2x32760x1536xf32>
    %292 = sdy.sharding_constraint %291 <@mesh, [{"cfg"}, {"ulysses"}, {}]> : tensor<2x32760x1536xf32>
    %cst_35 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %293 = stablehlo.reduce(%292 init: %cst_35) applies stablehlo.add across dimensions = [2] : (tensor<2x32760x1536xf32>, tensor<f32>) -> tensor<2x32760xf32>
    %294 = stablehlo.broadcast_in_dim %293, dims = [0, 1] : (tensor<2x32760xf32>) -> tensor<2x32760x1xf32>
    %cst_36 = stablehlo.constant dense<1.536000e+03> : tensor<f32>
    %295 = stablehlo.broadcast_in_dim %cst_36, dims = [] : (tensor<f32>) -> tensor<2x32760x1xf32>
    %296 = stablehlo.divide %294, %295 : tensor<2x32760x1xf32>
    %297 = stablehlo.broadcast_in_dim %296, dims = [0, 1, 2] : (tensor<2x32760x1xf32>) -> tensor<2x32760x1536xf32>
    %298 = stablehlo.subtract %292, %297 : tensor<2x32760x1536xf32>
    %299 = chlo.square %298 : tensor<2x32760x1536xf32> -> tensor<2x32760x1536xf32>
    %cst_37 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %300 = stablehlo.reduce(%299 init: %cst_37) applies stablehlo.add across dimensions = [2] : (tensor<2x32760x1536xf32>, tensor<f32>) -> tensor<2x32760xf32>
    %301 = stablehlo.broadcast_in_dim %300, dims = [0, 1] : (tensor<2x32760xf32>) -> tensor<2x32760x1xf32>
    %cst_38 = stablehlo.constant dense<1.536000e+03> : tensor<f32>
    %302 = stablehlo.broadcast_in_dim %cst_38, dims = [] : (tensor<f32>) -> tensor<2x32760x1xf32>
    %303 = stablehlo.divide %301, %302 : tensor<2x32760x1xf32>
    %304 = stablehlo.broadcast_in_dim %296, dims = [0, 1, 2] : (tensor<2x32760x1xf32>) -> tensor<2x32760x1536xf32>
    %305 = stablehlo.subtract %292, %304 : tensor<2x32760x1536xf32>
    %cst_39 = stablehlo.constant dense<9.99999997E-7> : tensor<f32>
    %306 = stablehlo.broadcast_in_dim %cst_39, dims = [] : (tensor<f32>) -> tensor<2x32760x1xf32>
    %307 = stablehlo.add %303, %306 : tensor<2x32760x1xf32>
    %308 = stablehlo.rsqrt %307 : tensor<2x32760x1xf32>
    %309 = stablehlo.broadcast_in_dim %308, dims = [0, 1, 2] : (tensor<2x32760x1xf32>) -> tensor<2x32760x1536xf32>
    %310 = stablehlo.multiply %305, %309 : tensor<2x32760x1536xf32>
    %311 = stablehlo.convert %arg3 : (tensor<1536xbf16>) -> tensor<1536xf32>
    %312 = stablehlo.broadcast_in_dim %311, dims = [2] : (tensor<1536xf32>) -> tensor<1x1x1536xf32>
    %313 = stablehlo.broadcast_in_dim %312, dims = [0, 1, 2] : (tensor<1x1x1536xf32>) -> tensor<2x32760x1536xf32>
    %314 = stablehlo.multiply %310, %313 : tensor<2x32760x1536xf32>
    %315 = stablehlo.convert %arg2 : (tensor<1536xbf16>) -> tensor<1536xf32>
    %316 = stablehlo.broadcast_in_dim %315, dims = [2] : (tensor<1536xf32>) -> tensor<1x1x1536xf32>
    %317 = stablehlo.broadcast_in_dim %316, dims = [0, 1, 2] : (tensor<1x1x1536xf32>) -> tensor<2x32760x1536xf32>
    %318 = stablehlo.add %314, %317 : tensor<2x32760x1536xf32>
    %319 = stablehlo.convert %318 : (tensor<2x32760x1536xf32>) -> tensor<2x32760x1536xbf16>
    %320 = stablehlo.dot_general %319, %arg9, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x32760x1536xbf16>, tensor<1536x1536xbf16>) -> tensor<2x32760x1536xbf16>
    %321 = stablehlo.broadcast_in_dim %arg8, dims = [2] : (tensor<1536xbf16>) -> tensor<1x1x1536xbf16>
    %322 = stablehlo.broadcast_in_dim %321, dims = [0, 1, 2] : (tensor<1x1x1536xbf16>) -> tensor<2x32760x1536xbf16>
    %323 = stablehlo.add %320, %322 : tensor<2x32760x1536xbf16>
    %324 = sdy.sharding_constraint %323 <@mesh, [{"cfg"}, {"ulysses"}, {}]> : tensor<2x32760x1536xbf16>
    %325 = stablehlo.convert %324 : (tensor<2x32760x1536xbf16>) -> tensor<2x32760x1536xf32>
    %326 = chlo.square %325 : tensor<2x32760x1536xf32> -> tensor<2x32760x1536xf32>
    %cst_40 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %327 = stablehlo.reduce(%326 init: %cst_40) applies stablehlo.add across dimensions = [2] : (tensor<2x32760x1536xf32>, tensor<f32>) -> tensor<2x32760xf32>
    %328 = stablehlo.broadcast_in_dim %327, dims = [0, 1] : (tensor<2x32760xf32>) -> tensor<2x32760x1xf32>
    %cst_41 = stablehlo.constant dense<1.536000e+03> : tensor<f32>
    %329 = stablehlo.broadcast_in_dim %cst_41, dims = [] : (tensor<f32>) -> tensor<2x32760x1xf32>
    %330 = stablehlo.divide %328, %329 : tensor<2x32760x1xf32>
    %cst_42 = stablehlo.constant dense<9.99999997E-7> : tensor<f32>
    %331 = stablehlo.broadcast_in_dim %cst_42, dims = [] : (tensor<f32>) -> tensor<2x32760x1xf32>
    %332 = stablehlo.add %330, %331 : tensor<2x32760x1xf32>
    %333 = stablehlo.rsqrt %332 : tensor<2x32760x1xf32>
    %334 = stablehlo.broadcast_in_dim %333, dims = [0, 1, 2] : (tensor<2x32760x1xf32>) -> tensor<2x32760x1536xf32>
    %335 = stablehlo.multiply %325, %334 : tensor<2x32760x1536xf32>
    %336 = stablehlo.convert %335 : (tensor<2x32760x1536xf32>) -> tensor<2x32760x1536xbf16>
    %337 = stablehlo.broadcast_in_dim %arg5, dims = [2] : (tensor<1536xbf16>) -> tensor<1x1x1536xbf16>
    %338 = stablehlo.broadcast_in_dim %337, dims = [0, 1, 2] : (tensor<1x1x1536xbf16>) -> tensor<2x32760x1536xbf16>
    %339 = stablehlo.multiply %336, %338 : tensor<2x32760x1536xbf16>
    %340 = stablehlo.dot_general %65, %arg1, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x512x1536xbf16>, tensor<1536x1536xbf16>) -> tensor<2x512x1536xbf16>
    %341 = stablehlo.broadcast_in_dim %arg0, dims = [2] : (tensor<1536xbf16>) -> tensor<1x1x1536xbf16>
    %342 = stablehlo.broadcast_in_dim %341, dims = [0, 1, 2] : (tensor<1x1x1536xbf16>) -> tensor<2x512x1536xbf16>
    %343 = stablehlo.add %340, %342 : tensor<2x512x1536xbf16>
    %344 = stablehlo.convert %343 : (tensor<2x512x1536xbf16>) -> tensor<2x512x1536xf32>
    %345 = chlo.square %344 : tensor<2x512x1536xf32> -> tensor<2x512x1536xf32>
    %cst_43 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %346 = stablehlo.reduce(%345 init: %cst_43) applies stablehlo.add across dimensions = [2] : (tensor<2x512x1536xf32>, tensor<f32>) -> tensor<2x512xf32>
    %347 = stablehlo.broadcast_in_dim %346, dims = [0, 1] : (tensor<2x512xf32>) -> tensor<2x512x1xf32>
    %cst_44 = stablehlo.constant dense<1.536000e+03> : tensor<f32>
    %348 = stablehlo.broadcast_in_dim %cst_44, dims = [] : (tensor<f32>) -> tensor<2x512x1xf32>
    %349 = stablehlo.divide %347, %348 : tensor<2x512x1xf32>
    %cst_45 = stablehlo.constant dense<9.99999997E-7> : tensor<f32>
    %350 = stablehlo.broadcast_in_dim %cst_45, dims = [] : (tensor<f32>) -> tensor<2x512x1xf32>
    %351 = stablehlo.add %349, %350 : tensor<2x512x1xf32>
    %352 = stablehlo.rsqrt %351 : tensor<2x512x1xf32>
    %353 = stablehlo.broadcast_in_dim %352, dims = [0, 1, 2] : (tensor<2x512x1xf32>) -> tensor<2x512x1536xf32>
    %354 = stablehlo.multiply %344, %353 : tensor<2x512x1536xf32>
    %355 = stablehlo.convert %354 : (tensor<2x512x1536xf32>) -> tensor<2x512x1536xbf16>
    %356 = stablehlo.broadcast_in_dim %arg4, dims = [2] : (tensor<1536xbf16>) -> tensor<1x1x1536xbf16>
    %357 = stablehlo.broadcast_in_dim %356, dims = [0, 1, 2] : (tensor<1x1x1536xbf16>) -> tensor<2x512x1536xbf16>
    %358 = stablehlo.multiply %355, %357 : tensor<2x512x1536xbf16>
    %359 = stablehlo.dot_general %65, %arg11, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x512x1536xbf16>, tensor<1536x1536xbf16>) -> tensor<2x512x1536xbf16>
    %360 = stablehlo.broadcast_in_dim %arg10, dims = [2] : (tensor<1536xbf16>) -> tensor<1x1x1536xbf16>
    %361 = stablehlo.broadcast_in_dim %360, dims = [0, 1, 2] : (tensor<1x1x1536xbf16>) -> tensor<2x512x1536xbf16>
    %362 = stablehlo.add %359, %361 : tensor<2x512x1536xbf16>
    %363 = stablehlo.reshape %339 : (tensor<2x32760x1536xbf16>) -> tensor<2x32760x12x128xbf16>
    %364 = sdy.sharding_constraint %363 <@mesh, [{"cfg"}, {"ulysses"}, {}, {}]> : tensor<2x32760x12x128xbf16>
    %365 = stablehlo.reshape %358 : (tensor<2x512x1536xbf16>) -> tensor<2x512x12x128xbf16>
    %366 = sdy.sharding_constraint %365 <@mesh, [{"cfg"}, {}, {}, {}]> : tensor<2x512x12x128xbf16>
    %367 = stablehlo.reshape %362 : (tensor<2x512x1536xbf16>) -> tensor<2x512x12x128xbf16>
    %368 = sdy.sharding_constraint %367 <@mesh, [{"cfg"}, {}, {}, {}]> : tensor<2x512x12x128xbf16>
    %369 = stablehlo.dot_general %364, %366, batching_dims = [0, 2] x [0, 2], contracting_dims = [3] x [3], precision = [DEFAULT, DEFAULT] : (tensor<2x32760x12x128xbf16>, tensor<2x512x12x128xbf16>) -> tensor<2x12x32760x512xf32>
    %cst_46 = stablehlo.constant dense<0.0883883461> : tensor<f32>
    %370 = stablehlo.broadcast_in_dim %cst_46, dims = [] : (tensor<f32>) -> tensor<2x12x32760x512xf32>
    %371 = stablehlo.multiply %369, %370 : tensor<2x12x32760x512xf32>
    %cst_47 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %372 = stablehlo.reduce(%371 init: %cst_47) applies stablehlo.maximum across dimensions = [3] : (tensor<2x12x32760x512xf32>, tensor<f32>) -> tensor<2x12x32760xf32>
    %cst_48 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %373 = stablehlo.broadcast_in_dim %cst_48, dims = [] : (tensor<f32>) -> tensor<2x12x32760xf32>
    %374 = stablehlo.maximum %373, %372 : tensor<2x12x32760xf32>
    %375 = stablehlo.broadcast_in_dim %374, dims = [0, 1, 2] : (tensor<2x12x32760xf32>) -> tensor<2x12x32760x1xf32>
    %376 = stablehlo.broadcast_in_dim %375, dims = [0, 1, 2, 3] : (tensor<2x12x32760x1xf32>) -> tensor<2x12x32760x512xf32>
    %377 = stablehlo.subtract %371, %376 : tensor<2x12x32760x512xf32>
    %378 = stablehlo.exponential %377 : tensor<2x12x32760x512xf32>
    %cst_49 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %379 = stablehlo.reduce(%378 init: %cst_49) applies stablehlo.add across dimensions = [3] : (tensor<2x12x32760x512xf32>, tensor<f32>) -> tensor<2x12x32760xf32>
    %380 = stablehlo.broadcast_in_dim %379, dims = [0, 1, 2] : (tensor<2x12x32760xf32>) -> tensor<2x12x32760x1xf32>
    %381 = stablehlo.broadcast_in_dim %380, dims = [0, 1, 2, 3] : (tensor<2x12x32760x1xf32>) -> tensor<2x12x32760x512xf32>
    %382 = stablehlo.divide %378, %381 : tensor<2x12x32760x512xf32>
    %383 = stablehlo.convert %382 : (tensor<2x12x32760x512xf32>) -> tensor<2x12x32760x512xbf16>
    %384 = stablehlo.dot_general %368, %383, batching_dims = [0, 2] x [0, 1], contracting_dims = [1] x [3], precision = [DEFAULT, DEFAULT] : (tensor<2x512x12x128xbf16>, tensor<2x12x32760x512xbf16>) -> tensor<2x12x128x32760xbf16>
    %385 = stablehlo.transpose %384, dims = [0, 3, 1, 2] : (tensor<2x12x128x32760xbf16>) -> tensor<2x32760x12x128xbf16>
    %386 = sdy.sharding_constraint %385 <@mesh, [{"cfg"}, {"ulysses"}, {}, {}]> : tensor<2x32760x12x128xbf16>
    %387 = stablehlo.reshape %386 : (tensor<2x32760x12x128xbf16>) -> tensor<2x32760x1536xbf16>
    %388 = stablehlo.dot_general %387, %arg7, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x32760x1536xbf16>, tensor<1536x1536xbf16>) -> tensor<2x32760x1536xbf16>
    %389 = stablehlo.broadcast_in_dim %arg6, dims = [2] : (tensor<1536xbf16>) -> tensor<1x1x1536xbf16>
    %390 = stablehlo.broadcast_in_dim %389, dims = [0, 1, 2] : (tensor<1x1x1536xbf16>) -> tensor<2x32760x1536xbf16>
    %391 = stablehlo.add %388, %390 : tensor<2x32760x1536xbf16>
    %392 = sdy.sharding_constraint %391 <@mesh, [{"cfg"}, {"ulysses"}, {}]> : tensor<2x32760x1536xbf16>
    %393 = stablehlo.convert %392 : (tensor<2x32760x1536xbf16>) -> tensor<2x32760x1536xf32>
    %394 = stablehlo.add %292, %393 : tensor<2x32760x1536xf32>
    %395 = sdy.sharding_constraint %394 <@mesh, [{"cfg"}, {"ulysses"}, {}]> : tensor<2x32760x1536xf32>
    %cst_50 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %396 = stablehlo.reduce(%395 init: %cst_50) applies stablehlo.add across dimensions = [2] : (tensor<2x32760x1536xf32>, tensor<f32>) -> tensor<2x32760xf32>
    %397 = stablehlo.broadcast_in_dim %396, dims = [0, 1] : (tensor<2x32760xf32>) -> tensor<2x32760x1xf32>
    %cst_51 = stablehlo.constant dense<1.536000e+03> : tensor<f32>
    %398 = stablehlo.broadcast_in_dim %cst_51, dims = [] : (tensor<f32>) -> tensor<2x32760x1xf32>
    %399 = stablehlo.divide %397, %398 : tensor<2x32760x1xf32>
    %400 = stablehlo.broadcast_in_dim %399, dims = [0, 1, 2] : (tensor<2x32760x1xf32>) -> tensor<2x32760x1536xf32>
    %401 = stablehlo.subtract %395, %400 : tensor<2x32760x1536xf32>
    %402 = chlo.square %401 : tensor<2x32760x1536xf32> -> tensor<2x32760x1536xf32>
    %cst_52 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %403 = stablehlo.reduce(%402 init: %cst_52) applies stablehlo.add across dimensions = [2] : (tensor<2x32760x1536xf32>, tensor<f32>) -> tensor<2x32760xf32>
    %404 = stablehlo.broadcast_in_dim %403, dims = [0, 1] : (tensor<2x32760xf32>) -> tensor<2x32760x1xf32>
    %cst_53 = stablehlo.constant dense<1.536000e+03> : tensor<f32>
    %405 = stablehlo.broadcast_in_dim %cst_53, dims = [] : (tensor<f32>) -> tensor<2x32760x1xf32>
    %406 = stablehlo.divide %404, %405 : tensor<2x32760x1xf32>
    %407 = stablehlo.broadcast_in_dim %399, dims = [0, 1, 2] : (tensor<2x32760x1xf32>) -> tensor<2x32760x1536xf32>
    %408 = stablehlo.subtract %395, %407 : tensor<2x32760x1536xf32>
    %cst_54 = stablehlo.constant dense<9.99999997E-7> : tensor<f32>
    %409 = stablehlo.broadcast_in_dim %cst_54, dims = [] : (tensor<f32>) -> tensor<2x32760x1xf32>
    %410 = stablehlo.add %406, %409 : tensor<2x32760x1xf32>
    %411 = stablehlo.rsqrt %410 : tensor<2x32760x1xf32>
    %412 = stablehlo.broadcast_in_dim %411, dims = [0, 1, 2] : (tensor<2x32760x1xf32>) -> tensor<2x32760x1536xf32>
    %413 = stablehlo.multiply %408, %412 : tensor<2x32760x1536xf32>
    %414 = stablehlo.broadcast_in_dim %133, dims = [0, 1, 2] : (tensor<2x1x1536xf32>) -> tensor<2x32760x1536xf32>
    %415 = stablehlo.multiply %413, %414 : tensor<2x32760x1536xf32>
    %416 = stablehlo.add %413, %415 : tensor<2x32760x1536xf32>
    %417 = stablehlo.broadcast_in_dim %132, dims = [0, 1, 2] : (tensor<2x1x1536xf32>) -> tensor<2x32760x1536xf32>
    %418 = stablehlo.add %416, %417 : tensor<2x32760x1536xf32>
    %419 = stablehlo.convert %418 : (tensor<2x32760x1536xf32>) -> tensor<2x32760x1536xbf16>
    %420 = stablehlo.dot_general %419, %arg13, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x32760x1536xbf16>, tensor<1536x8960xbf16>) -> tensor<2x32760x8960xbf16>
    %421 = stablehlo.broadcast_in_dim %arg12, dims = [2] : (tensor<8960xbf16>) -> tensor<1x1x8960xbf16>
    %422 = stablehlo.broadcast_in_dim %421, dims = [0, 1, 2] : (tensor<1x1x8960xbf16>) -> tensor<2x32760x8960xbf16>
    %423 = stablehlo.add %420, %422 : tensor<2x32760x8960xbf16>
    %424 = sdy.sharding_constraint %423 <@mesh, [{"cfg"}, {"ulysses"}, {}]> : tensor<2x32760x8960xbf16>
    %425 = stablehlo.multiply %424, %424 : tensor<2x32760x8960xbf16>
    %426 = stablehlo.multiply %425, %424 : tensor<2x32760x8960xbf16>
    %cst_55 = stablehlo.constant dense<4.467770e-02> : tensor<bf16>
    %427 = stablehlo.broadcast_in_dim %cst_55, dims = [] : (tensor<bf16>) -> tensor<2x32760x8960xbf16>
    %428 = stablehlo.multiply %427, %426 : tensor<2x32760x8960xbf16>
    %429 = stablehlo.add %424, %428 : tensor<2x32760x8960xbf16>
    %cst_56 = stablehlo.constant dense<7.968750e-01> : tensor<bf16>
    %430 = stablehlo.broadcast_in_dim %cst_56, dims = [] : (tensor<bf16>) -> tensor<2x32760x8960xbf16>
    %431 = stablehlo.multiply %430, %429 : tensor<2x32760x8960xbf16>
    %432 = stablehlo.tanh %431 : tensor<2x32760x8960xbf16>
    %cst_57 = stablehlo.constant dense<1.000000e+00> : tensor<bf16>
    %433 = stablehlo.broadcast_in_dim %cst_57, dims = [] : (tensor<bf16>) -> tensor<2x32760x8960xbf16>
    %434 = stablehlo.add %433, %432 : tensor<2x32760x8960xbf16>
    %cst_58 = stablehlo.constant dense<5.000000e-01> : tensor<bf16>
    %435 = stablehlo.broadcast_in_dim %cst_58, dims = [] : (tensor<bf16>) -> tensor<2x32760x8960xbf16>
    %436 = stablehlo.multiply %435, %434 : tensor<2x32760x8960xbf16>
    %437 = stablehlo.multiply %424, %436 : tensor<2x32760x8960xbf16>
    %438 = stablehlo.dot_general %437, %arg15, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x32760x8960xbf16>, tensor<8960x1536xbf16>) -> tensor<2x32760x1536xbf16>
    %439 = stablehlo.broadcast_in_dim %arg14, dims = [2] : (tensor<1536xbf16>) -> tensor<1x1x1536xbf16>
    %440 = stablehlo.broadcast_in_dim %439, dims = [0, 1, 2] : (tensor<1x1x1536xbf16>) -> tensor<2x32760x1536xbf16>
    %441 = stablehlo.add %438, %440 : tensor<2x32760x1536xbf16>
    %442 = sdy.sharding_constraint %441 <@mesh, [{"cfg"}, {"ulysses"}, {}]> : tensor<2x32760x1536xbf16>
    %443 = stablehlo.convert %442 : (tensor<2x32760x1536xbf16>) -> tensor<2x32760x1536xf32>
    %444 = stablehlo.broadcast_in_dim %134, dims = [0, 1, 2] : (tensor<2x1x1536xf32>) -> tensor<2x32760x1536xf32>
    %445 = stablehlo.multiply %443, %444 : tensor<2x32760x1536xf32>
    %446 = stablehlo.add %395, %445 : tensor<2x32760x1536xf32>
    %447 = sdy.sharding_constraint %446 <@mesh, [{"cfg"}, {"ulysses"}, {}]> : tensor<2x32760x1536xf32>
    %448 = stablehlo.broadcast_in_dim %35, dims = [0, 2] : (tensor<2x1536xf32>) -> tensor<2x1x1536xf32>
    %449 = stablehlo.convert %arg29 : (tensor<1x2x1536xbf16>) -> tensor<1x2x1536xf32>
    %450 = stablehlo.broadcast_in_dim %449, dims = [0, 1, 2] : (tensor<1x2x1536xf32>) -> tensor<2x2x1536xf32>
    %451 = stablehlo.broadcast_in_dim %448, dims = [0, 1, 2] : (tensor<2x1x1536xf32>) -> tensor<2x2x1536xf32>
    %452 = stablehlo.add %450, %451 : tensor<2x2x1536xf32>
    %453 = stablehlo.slice %452 [0:2, 0:1, 0:1536] : (tensor<2x2x1536xf32>) -> tensor<2x1x1536xf32>
    %454 = stablehlo.slice %452 [0:2, 1:2, 0:1536] : (tensor<2x2x1536xf32>) -> tensor<2x1x1536xf32>
    %cst_59 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %455 = stablehlo.reduce(%447 init: %cst_59) applies stablehlo.add across dimensions = [2] : (tensor<2x32760x1536xf32>, tensor<f32>) -> tensor<2x32760xf32>
    %456 = stablehlo.broadcast_in_dim %455, dims = [0, 1] : (tensor<2x32760xf32>) -> tensor<2x32760x1xf32>
    %cst_60 = stablehlo.constant dense<1.536000e+03> : tensor<f32>
    %457 = stablehlo.broadcast_in_dim %cst_60, dims = [] : (tensor<f32>) -> tensor<2x32760x1xf32>
    %458 = stablehlo.divide %456, %457 : tensor<2x32760x1xf32>
    %459 = stablehlo.broadcast_in_dim %458, dims = [0, 1, 2] : (tensor<2x32760x1xf32>) -> tensor<2x32760x1536xf32>
    %460 = stablehlo.subtract %447, %459 : tensor<2x32760x1536xf32>
    %461 = chlo.square %460 : tensor<2x32760x1536xf32> -> tensor<2x32760x1536xf32>
    %cst_61 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %462 = stablehlo.reduce(%461 init: %cst_61) applies stablehlo.add across dimensions = [2] : (tensor<2x32760x1536xf32>, tensor<f32>) -> tensor<2x32760xf32>
    %463 = stablehlo.broadcast_in_dim %462, dims = [0, 1] : (tensor<2x32760xf32>) -> tensor<2x32760x1xf32>
    %cst_62 = stablehlo.constant dense<1.536000e+03> : tensor<f32>
    %464 = stablehlo.broadcast_in_dim %cst_62, dims = [] : (tensor<f32>) -> tensor<2x32760x1xf32>
    %465 = stablehlo.divide %463, %464 : tensor<2x32760x1xf32>
    %466 = stablehlo.broadcast_in_dim %458, dims = [0, 1, 2] : (tensor<2x32760x1xf32>) -> tensor<2x32760x1536xf32>
    %467 = stablehlo.subtract %447, %466 : tensor<2x32760x1536xf32>
    %cst_63 = stablehlo.constant dense<9.99999997E-7> : tensor<f32>
    %468 = stablehlo.broadcast_in_dim %cst_63, dims = [] : (tensor<f32>) -> tensor<2x32760x1xf32>
    %469 = stablehlo.add %465, %468 : tensor<2x32760x1xf32>
    %470 = stablehlo.rsqrt %469 : tensor<2x32760x1xf32>
    %471 = stablehlo.broadcast_in_dim %470, dims = [0, 1, 2] : (tensor<2x32760x1xf32>) -> tensor<2x32760x1536xf32>
    %472 = stablehlo.multiply %467, %471 : tensor<2x32760x1536xf32>
    %473 = stablehlo.broadcast_in_dim %454, dims = [0, 1, 2] : (tensor<2x1x1536xf32>) -> tensor<2x32760x1536xf32>
    %474 = stablehlo.multiply %472, %473 : tensor<2x32760x1536xf32>
    %475 = stablehlo.add %472, %474 : tensor<2x32760x1536xf32>
    %476 = stablehlo.broadcast_in_dim %453, dims = [0, 1, 2] : (tensor<2x1x1536xf32>) -> tensor<2x32760x1536xf32>
    %477 = stablehlo.add %475, %476 : tensor<2x32760x1536xf32>
    %478 = stablehlo.convert %477 : (tensor<2x32760x1536xf32>) -> tensor<2x32760x1536xbf16>
    %479 = stablehlo.dot_general %478, %arg28, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x32760x1536xbf16>, tensor<1536x64xbf16>) -> tensor<2x32760x64xbf16>
    %480 = stablehlo.broadcast_in_dim %arg27, dims = [2] : (tensor<64xbf16>) -> tensor<1x1x64xbf16>
    %481 = stablehlo.broadcast_in_dim %480, dims = [0, 1, 2] : (tensor<1x1x64xbf16>) -> tensor<2x32760x64xbf16>
    %482 = stablehlo.add %479, %481 : tensor<2x32760x64xbf16>
    %483 = sdy.sharding_constraint %482 <@mesh, [{"cfg"}, {"ulysses"}, {}]> : tensor<2x32760x64xbf16>
    %484 = stablehlo.reshape %483 : (tensor<2x32760x64xbf16>) -> tensor<2x21x30x52x1x2x2x16xbf16>
    %485 = stablehlo.transpose %484, dims = [0, 7, 1, 4, 2, 5, 3, 6] : (tensor<2x21x30x52x1x2x2x16xbf16>) -> tensor<2x16x21x1x30x2x52x2xbf16>
    %486 = stablehlo.reshape %485 : (tensor<2x16x21x1x30x2x52x2xbf16>) -> tensor<2x16x21x60x104xbf16>
    %487 = stablehlo.convert %486 : (tensor<2x16x21x60x104xbf16>) -> tensor<2x16x21x60x104xf32>
    return %487 : tensor<2x16x21x60x104xf32>
  }
  func.func private @silu(%arg0: tensor<2x1536xf32>) -> tensor<2x1536xf32> {
    %0 = stablehlo.negate %arg0 : tensor<2x1536xf32>
    %1 = stablehlo.exponential %0 : tensor<2x1536xf32>
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2x1536xf32>
    %3 = stablehlo.add %2, %1 : tensor<2x1536xf32>
    %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %4 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<2x1536xf32>
    %5 = stablehlo.divide %4, %3 : tensor<2x1536xf32>
    %6 = stablehlo.multiply %arg0, %5 : tensor<2x1536xf32>
    return %6 : tensor<2x1536xf32>
  }
}
