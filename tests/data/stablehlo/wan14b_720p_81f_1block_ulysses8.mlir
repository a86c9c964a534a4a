module @jit_forward attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["ulysses"=8]> {stablehlo.mesh = {axes = [{name = "ulysses", size = 8 : i64}]}}
  func.func public @main(%arg0: tensor<5120xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg1: tensor<5120x5120xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg2: tensor<5120xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg3: tensor<5120xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg4: tensor<5120xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg5: tensor<5120xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg6: tensor<5120xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg7: tensor<5120x5120xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg8: tensor<5120xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg9: tensor<5120x5120xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg10: tensor<5120xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg11: tensor<5120x5120xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg12: tensor<13824xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg13: tensor<5120x13824xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg14: tensor<5120xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg15: tensor<13824x5120xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg16: tensor<1x6x5120xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {}]>}, %arg17: tensor<5120xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg18: tensor<5120x5120xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg19: tensor<5120xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg20: tensor<5120xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg21: tensor<5120xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg22: tensor<5120x5120xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg23: tensor<5120xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg24: tensor<5120x5120xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg25: tensor<5120xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg26: tensor<5120x5120xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg27: tensor<64xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg28: tensor<5120x64xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg29: tensor<1x2x5120xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {}]>}, %arg30: tensor<5120xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg31: tensor<5120x16x1x2x2xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {}, {}, {}]>}, %arg32: tensor<5120xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg33: tensor<4096x5120xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg34: tensor<5120xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg35: tensor<5120x5120xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg36: tensor<5120xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg37: tensor<256x5120xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg38: tensor<5120xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg39: tensor<5120x5120xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg40: tensor<30720xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg41: tensor<5120x30720xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg42: tensor<1x16x21x90x160xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {}, {}, {}]>}, %arg43: tensor<1xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg44: tensor<1x512x4096xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {}]>}) -> (tensor<1x16x21x90x160xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.convert %arg42 : (tensor<1x16x21x90x160xf32>) -> tensor<1x16x21x90x160xbf16>
    %1 = stablehlo.convolution(%0, %arg31) dim_numbers = [b, f, 0, 1, 2]x[o, i, 0, 1, 2]->[b, f, 0, 1, 2], window = {stride = [1, 2, 2], pad = [[0, 0], [0, 0], [0, 0]], lhs_dilate = [1, 1, 1], rhs_dilate = [1, 1, 1], reverse = [false, false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<1x16x21x90x160xbf16>, tensor<5120x16x1x2x2xbf16>) -> tensor<1x5120x21x45x80xbf16>
    %2 = stablehlo.broadcast_in_dim %arg30, dims = [1] : (tensor<5120xbf16>) -> tensor<1x5120x1x1x1xbf16>
    %3 = stablehlo.broadcast_in_dim %2, dims = [0, 1, 2, 3, 4] : (tensor<1x5120x1x1x1xbf16>) -> tensor<1x5120x21x45x80xbf16>
    %4 = stablehlo.add %1, %3 : tensor<1x5120x21x45x80xbf16>
    %5 = stablehlo.reshape %4 : (tensor<1x5120x21x45x80xbf16>) -> tensor<1x5120x75600xbf16>
    %6 = stablehlo.transpose %5, dims = [0, 2, 1] : (tensor<1x5120x75600xbf16>) -> tensor<1x75600x5120xbf16>
    %7 = sdy.sharding_constraint %6 <@mesh, [{}, {"ulysses"}, {}]> : tensor<1x75600x5120xbf16>
    %8 = stablehlo.convert %7 : (tensor<1x75600x5120xbf16>) -> tensor<1x75600x5120xf32>
    %9 = stablehlo.iota dim = 0 : tensor<128xf32>
    %10 = stablehlo.negate %9 : tensor<128xf32>
    %cst = stablehlo.constant dense<1.280000e+02> : tensor<f32>
    %11 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<128xf32>
    %12 = stablehlo.divide %10, %11 : tensor<128xf32>
    %cst_0 = stablehlo.constant dense<1.000000e+04> : tensor<f32>
    %13 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<128xf32>
    %14 = stablehlo.power %13, %12 : tensor<128xf32>
    %15 = stablehlo.broadcast_in_dim %arg43, dims = [0] : (tensor<1xf32>) -> tensor<1x1xf32>
    %16 = stablehlo.broadcast_in_dim %14, dims = [1] : (tensor<128xf32>) -> tensor<1x128xf32>
    %17 = stablehlo.broadcast_in_dim %15, dims = [0, 1] : (tensor<1x1xf32>) -> tensor<1x128xf32>
    %18 = stablehlo.multiply %17, %16 : tensor<1x128xf32>
    %19 = stablehlo.cosine %18 : tensor<1x128xf32>
    %20 = stablehlo.sine %18 : tensor<1x128xf32>
    %21 = stablehlo.concatenate %19, %20, dim = 1 : (tensor<1x128xf32>, tensor<1x128xf32>) -> tensor<1x256xf32>
    %22 = stablehlo.convert %arg37 : (tensor<256x5120xbf16>) -> tensor<256x5120xf32>
    %23 = stablehlo.dot_general %21, %22, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<1x256xf32>, tensor<256x5120xf32>) -> tensor<1x5120xf32>
    %24 = stablehlo.convert %arg36 : (tensor<5120xbf16>) -> tensor<5120xf32>
    %25 = stablehlo.broadcast_in_dim %24, dims = [1] : (tensor<5120xf32>) -> tensor<1x5120xf32>
    %26 = stablehlo.add %23, %25 : tensor<1x5120xf32>
    %27 = call @silu(%26) : (tensor<1x5120xf32>) -> tensor<1x5120xf32>
    %28 = stablehlo.convert %arg39 : (tensor<5120x5120xbf16>) -> tensor<5120x5120xf32>
    %29 = stablehlo.dot_general %27, %28, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<1x5120xf32>, tensor<5120x5120xf32>) -> tensor<1x5120xf32>
    %30 = stablehlo.convert %arg38 : (tensor<5120xbf16>) -> tensor<5120xf32>
    %31 = stablehlo.broadcast_in_dim %30, dims = [1] : (tensor<5120xf32>) -> tensor<1x5120xf32>
    %32 = stablehlo.add %29, %31 : tensor<1x5120xf32>
    %33 = call @silu(%32) : (tensor<1x5120xf32>) -> tensor<1x5120xf32>
    %34 = stablehlo.convert %arg41 : (tensor<5120x30720xbf16>) -> tensor<5120x30720xf32>
    %35 = stablehlo.dot_general %33, %34, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<1x5120xf32>, tensor<5120x30720xf32>) -> tensor<1x30720xf32>
    %36 = stablehlo.convert %arg40 : (tensor<30720xbf16>) -> tensor<30720xf32>
    %37 = stablehlo.broadcast_in_dim %36, dims = [1] : (tensor<30720xf32>) -> tensor<1x30720xf32>
    %38 = stablehlo.add %35, %37 : tensor<1x30720xf32>
    %39 = stablehlo.reshape %38 : (tensor<1x30720xf32>) -> tensor<1x6x5120xf32>
    %40 = stablehlo.dot_general %arg44, %arg33, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<1x512x4096xbf16>, tensor<4096x5120xbf16>) -> tensor<1x512x5120xbf16>
    %41 = stablehlo.broadcast_in_dim %arg32, dims = [2] : (tensor<5120xbf16>) -> tensor<1x1x5120xbf16>
    %42 = stablehlo.broadcast_in_dim %41, dims = [0, 1, 2] : (tensor<1x1x5120xbf16>) -> tensor<1x512x5120xbf16>
    %43 = stablehlo.add %40, %42 : tensor<1x512x5120xbf16>
    %44 = stablehlo.multiply %43, %43 : tensor<1x512x5120xbf16>
    %45 = stablehlo.multiply %44, %43 : tensor<1x512x5120xbf16>
    %cst_1 = stablehlo.constant dense<4.467770e-02> : tensor<bf16>
    %46 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<bf16>) -> tensor<1x512x5120xbf16>
    %47 = stablehlo.multiply %46, %45 : tensor<1x512x5120xbf16>
    %48 = stablehlo.add %43, %47 : tensor<1x512x5120xbf16>
    %cst_2 = stablehlo.constant dense<7.968750e-01> : tensor<bf16>
    %49 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<bf16>) -> tensor<1x512x5120xbf16>
    %50 = stablehlo.multiply %49, %48 : tensor<1x512x5120xbf16>
    %51 = stablehlo.tanh %50 : tensor<1x512x5120xbf16>
    %cst_3 = stablehlo.constant dense<1.000000e+00> : tensor<bf16>
    %52 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<bf16>) -> tensor<1x512x5120xbf16>
    %53 = stablehlo.add %52, %51 : tensor<1x512x5120xbf16>
    %cst_4 = stablehlo.constant dense<5.000000e-01> : tensor<bf16>
    %54 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<bf16>) -> tensor<1x512x5120xbf16>
    %55 = stablehlo.multiply %54, %53 : tensor<1x512x5120xbf16>
    %56 = stablehlo.multiply %43, %55 : tensor<1x512x5120xbf16>
    %57 = stablehlo.dot_general %56, %arg35, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<1x512x5120xbf16>, tensor<5120x5120xbf16>) -> tensor<1x512x5120xbf16>
    %58 = stablehlo.broadcast_in_dim %arg34, dims = [2] : (tensor<5120xbf16>) -> tensor<1x1x5120xbf16>
    %59 = stablehlo.broadcast_in_dim %58, dims = [0, 1, 2] : (tensor<1x1x5120xbf16>) -> tensor<1x512x5120xbf16>
    %60 = stablehlo.add %57, %59 : tensor<1x512x5120xbf16>
    %61 = sdy.sharding_constraint %60 <@mesh, [{}, {}, {}]> : tensor<1x512x5120xbf16>
    %62 = stablehlo.iota dim = 0 : tensor<21xf32>
    %63 = stablehlo.iota dim = 0 : tensor<22xf32>
    %cst_5 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %64 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<22xf32>
    %65 = stablehlo.multiply %64, %63 : tensor<22xf32>
    %cst_6 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %66 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<f32>) -> tensor<22xf32>
    %67 = stablehlo.add %66, %65 : tensor<22xf32>
    %cst_7 = stablehlo.constant dense<4.400000e+01> : tensor<f32>
    %68 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<22xf32>
    %69 = stablehlo.divide %67, %68 : tensor<22xf32>
    %cst_8 = stablehlo.constant dense<1.000000e+04> : tensor<f32>
    %70 = stablehlo.broadcast_in_dim %cst_8, dims = [] : (tensor<f32>) -> tensor<22xf32>
    %71 = stablehlo.power %70, %69 : tensor<22xf32>
    %cst_9 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %72 = stablehlo.broadcast_in_dim %cst_9, dims = [] : (tensor<f32>) -> tensor<22xf32>
    %73 = stablehlo.divide %72, %71 : tensor<22xf32>
    %74 = stablehlo.broadcast_in_dim %62, dims = [0] : (tensor<21xf32>) -> tensor<21x1xf32>
    %75 = stablehlo.broadcast_in_dim %73, dims = [1] : (tensor<22xf32>) -> tensor<1x22xf32>
    %76 = stablehlo.broadcast_in_dim %74, dims = [0, 1] : (tensor<21x1xf32>) -> tensor<21x22xf32>
    %77 = stablehlo.broadcast_in_dim %75, dims = [0, 1] : (tensor<1x22xf32>) -> tensor<21x22xf32>
    %78 = stablehlo.multiply %76, %77 : tensor<21x22xf32>
    %79 = stablehlo.iota dim = 0 : tensor<45xf32>
    %80 = stablehlo.iota dim = 0 : tensor<21xf32>
    %cst_10 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %81 = stablehlo.broadcast_in_dim %cst_10, dims = [] : (tensor<f32>) -> tensor<21xf32>
    %82 = stablehlo.multiply %81, %80 : tensor<21xf32>
    %cst_11 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %83 = stablehlo.broadcast_in_dim %cst_11, dims = [] : (tensor<f32>) -> tensor<21xf32>
    %84 = stablehlo.add %83, %82 : tensor<21xf32>
    %cst_12 = stablehlo.constant dense<4.200000e+01> : tensor<f32>
    %85 = stablehlo.broadcast_in_dim %cst_12, dims = [] : (tensor<f32>) -> tensor<21xf32>
    %86 = stablehlo.divide %84, %85 : tensor<21xf32>
    %cst_13 = stablehlo.constant dense<1.000000e+04> : tensor<f32>
    %87 = stablehlo.broadcast_in_dim %cst_13, dims = [] : (tensor<f32>) -> tensor<21xf32>
    %88 = stablehlo.power %87, %86 : tensor<21xf32>
    %cst_14 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %89 = stablehlo.broadcast_in_dim %cst_14, dims = [] : (tensor<f32>) -> tensor<21xf32>
    %90 = stablehlo.divide %89, %88 : tensor<21xf32>
    %91 = stablehlo.broadcast_in_dim %79, dims = [0] : (tensor<45xf32>) -> tensor<45x1xf32>
    %92 = stablehlo.broadcast_in_dim %90, dims = [1] : (tensor<21xf32>) -> tensor<1x21xf32>
    %93 = stablehlo.broadcast_in_dim %91, dims = [0, 1] : (tensor<45x1xf32>) -> tensor<45x21xf32>
    %94 = stablehlo.broadcast_in_dim %92, dims = [0, 1] : (tensor<1x21xf32>) -> tensor<45x21xf32>
    %95 = stablehlo.multiply %93, %94 : tensor<45x21xf32>
    %96 = stablehlo.iota dim = 0 : tensor<80xf32>
    %97 = stablehlo.iota dim = 0 : tensor<21xf32>
    %cst_15 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %98 = stablehlo.broadcast_in_dim %cst_15, dims = [] : (tensor<f32>) -> tensor<21xf32>
    %99 = stablehlo.multiply %98, %97 : tensor<21xf32>
    %cst_16 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %100 = stablehlo.broadcast_in_dim %cst_16, dims = [] : (tensor<f32>) -> tensor<21xf32>
    %101 = stablehlo.add %100, %99 : tensor<21xf32>
    %cst_17 = stablehlo.constant dense<4.200000e+01> : tensor<f32>
    %102 = stablehlo.broadcast_in_dim %cst_17, dims = [] : (tensor<f32>) -> tensor<21xf32>
    %103 = stablehlo.divide %101, %102 : tensor<21xf32>
    %cst_18 = stablehlo.constant dense<1.000000e+04> : tensor<f32>
    %104 = stablehlo.broadcast_in_dim %cst_18, dims = [] : (tensor<f32>) -> tensor<21xf32>
    %105 = stablehlo.power %104, %103 : tensor<21xf32>
    %cst_19 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %106 = stablehlo.broadcast_in_dim %cst_19, dims = [] : (tensor<f32>) -> tensor<21xf32>
    %107 = stablehlo.divide %106, %105 : tensor<21xf32>
    %108 = stablehlo.broadcast_in_dim %96, dims = [0] : (tensor<80xf32>) -> tensor<80x1xf32>
    %109 = stablehlo.broadcast_in_dim %107, dims = [1] : (tensor<21xf32>) -> tensor<1x21xf32>
    %110 = stablehlo.broadcast_in_dim %108, dims = [0, 1] : (tensor<80x1xf32>) -> tensor<80x21xf32>
    %111 = stablehlo.broadcast_in_dim %109, dims = [0, 1] : (tensor<1x21xf32>) -> tensor<80x21xf32>
    %112 = stablehlo.multiply %110, %111 : tensor<80x21xf32>
    %113 = stablehlo.broadcast_in_dim %78, dims = [0, 3] : (tensor<21x22xf32>) -> tensor<21x1x1x22xf32>
    %114 = stablehlo.broadcast_in_dim %113, dims = [0, 1, 2, 3] : (tensor<21x1x1x22xf32>) -> tensor<21x45x80x22xf32>
    %115 = stablehlo.broadcast_in_dim %95, dims = [1, 3] : (tensor<45x21xf32>) -> tensor<1x45x1x21xf32>
    %116 = stablehlo.broadcast_in_dim %115, dims = [0, 1, 2, 3] : (tensor<1x45x1x21xf32>) -> tensor<21x45x80x21xf32>
    %117 = stablehlo.broadcast_in_dim %112, dims = [2, 3] : (tensor<80x21xf32>) -> tensor<1x1x80x21xf32>
    %118 = stablehlo.broadcast_in_dim %117, dims = [0, 1, 2, 3] : (tensor<1x1x80x21xf32>) -> tensor<21x45x80x21xf32>
    %119 = stablehlo.concatenate %114, %116, %118, dim = 3 : (tensor<21x45x80x22xf32>, tensor<21x45x80x21xf32>, tensor<21x45x80x21xf32>) -> tensor<21x45x80x64xf32>
    %120 = stablehlo.reshape %119 : (tensor<21x45x80x64xf32>) -> tensor<75600x64xf32>
    %121 = sdy.sharding_constraint %120 <@mesh, [{"ulysses"}, {}]> : tensor<75600x64xf32>
    %122 = stablehlo.convert %arg16 : (tensor<1x6x5120xbf16>) -> tensor<1x6x5120xf32>
    %123 = stablehlo.add %122, %39 : tensor<1x6x5120xf32>
    %124 = stablehlo.slice %123 [0:1, 0:1, 0:5120] : (tensor<1x6x5120xf32>) -> tensor<1x1x5120xf32>
    %125 = stablehlo.slice %123 [0:1, 1:2, 0:5120] : (tensor<1x6x5120xf32>) -> tensor<1x1x5120xf32>
    %126 = stablehlo.slice %123 [0:1, 2:3, 0:5120] : (tensor<1x6x5120xf32>) -> tensor<1x1x5120xf32>
    %127 = stablehlo.slice %123 [0:1, 3:4, 0:5120] : (tensor<1x6x5120xf32>) -> tensor<1x1x5120xf32>
    %128 = stablehlo.slice %123 [0:1, 4:5, 0:5120] : (tensor<1x6x5120xf32>) -> tensor<1x1x5120xf32>
    %129 = stablehlo.slice %123 [0:1, 5:6, 0:5120] : (tensor<1x6x5120xf32>) -> tensor<1x1x5120xf32>
    %cst_20 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %130 = stablehlo.reduce(%8 init: %cst_20) applies stablehlo.add across dimensions = [2] : (tensor<1x75600x5120xf32>, tensor<f32>) -> tensor<1x75600xf32>
    %131 = stablehlo.broadcast_in_dim %130, dims = [0, 1] : (tensor<1x75600xf32>) -> tensor<1x75600x1xf32>
    %cst_21 = stablehlo.constant dense<5.120000e+03> : tensor<f32>
    %132 = stablehlo.broadcast_in_dim %cst_21, dims = [] : (tensor<f32>) -> tensor<1x75600x1xf32>
    %133 = stablehlo.divide %131, %132 : tensor<1x75600x1xf32>
    %134 = stablehlo.broadcast_in_dim %133, dims = [0, 1, 2] : (tensor<1x75600x1xf32>) -> tensor<1x75600x5120xf32>
    %135 = stablehlo.subtract %8, %134 : tensor<1x75600x5120xf32>
    %136 = chlo.square %135 : tensor<1x75600x5120xf32> -> tensor<1x75600x5120xf32>
    %cst_22 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %137 = stablehlo.reduce(%136 init: %cst_22) applies stablehlo.add across dimensions = [2] : (tensor<1x75600x5120xf32>, tensor<f32>) -> tensor<1x75600xf32>
    %138 = stablehlo.broadcast_in_dim %137, dims = [0, 1] : (tensor<1x75600xf32>) -> tensor<1x75600x1xf32>
    %cst_23 = stablehlo.constant dense<5.120000e+03> : tensor<f32>
    %139 = stablehlo.broadcast_in_dim %cst_23, dims = [] : (tensor<f32>) -> tensor<1x75600x1xf32>
    %140 = stablehlo.divide %138, %139 : tensor<1x75600x1xf32>
    %141 = stablehlo.broadcast_in_dim %133, dims = [0, 1, 2] : (tensor<1x75600x1xf32>) -> tensor<1x75600x5120xf32>
    %142 = stablehlo.subtract %8, %141 : tensor<1x75600x5120xf32>
    %cst_24 = stablehlo.constant dense<9.99999997E-7> : tensor<f32>
    %143 = stablehlo.broadcast_in_dim %cst_24, dims = [] : (tensor<f32>) -> tensor<1x75600x1xf32>
    %144 = stablehlo.add %140, %143 : tensor<1x75600x1xf32>
    %145 = stablehlo.rsqrt %144 : tensor<1x75600x1xf32>
    %146 = stablehlo.broadcast_in_dim %145, dims = [0, 1, 2] : (tensor<1x75600x1xf32>) -> tensor<1x75600x5120xf32>
    %147 = stablehlo.multiply %142, %146 : tensor<1x75600x5120xf32>
    %148 = stablehlo.broadcast_in_dim %125, dims = [0, 1, 2] : (tensor<1x1x5120xf32>) -> tensor<1x75600x5120xf32>
    %149 = stablehlo.multiply %147, %148 : tensor<1x75600x5120xf32>
    %150 = stablehlo.add %147, %149 : tensor<1x75600x5120xf32>
    %151 = stablehlo.broadcast_in_dim %124, dims = [0, 1, 2] : (tensor<1x1x5120xf32>) -> tensor<1x75600x5120xf32>
    %152 = stablehlo.add %150, %151 : tensor<1x75600x5120xf32>
    %153 = stablehlo.convert %152 : (tensor<1x75600x5120xf32>) -> tensor<1x75600x5120xbf16>
    %154 = stablehlo.dot_general %153, %arg24, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<1x75600x5120xbf16>, tensor<5120x5120xbf16>) -> tensor<1x75600x5120xbf16>
    %155 = stablehlo.broadcast_in_dim %arg23, dims = [2] : (tensor<5120xbf16>) -> tensor<1x1x5120xbf16>
    %156 = stablehlo.broadcast_in_dim %155, dims = [0, 1, 2] : (tensor<1x1x5120xbf16>) -> tensor<1x75600x5120xbf16>
    %157 = stablehlo.add %154, %156 : tensor<1x75600x5120xbf16>
    %158 = sdy.sharding_constraint %157 <@mesh, [{}, {"ulysses"}, {}]> : tensor<1x75600x5120xbf16>
    %159 = stablehlo.convert %158 : (tensor<1x75600x5120xbf16>) -> tensor<1x75600x5120xf32>
    %160 = chlo.square %159 : tensor<1x75600x5120xf32> -> tensor<1x75600x5120xf32>
    %cst_25 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %161 = stablehlo.reduce(%160 init: %cst_25) applies stablehlo.add across dimensions = [2] : (tensor<1x75600x5120xf32>, tensor<f32>) -> tensor<1x75600xf32>
    %162 = stablehlo.broadcast_in_dim %161, dims = [0, 1] : (tensor<1x75600xf32>) -> tensor<1x75600x1xf32>
    %cst_26 = stablehlo.constant dense<5.120000e+03> : tensor<f32>
    %163 = stablehlo.broadcast_in_dim %cst_26, dims = [] : (tensor<f32>) -> tensor<1x75600x1xf32>
    %164 = stablehlo.divide %162, %163 : tensor<1x75600x1xf32>
    %cst_27 = stablehlo.constant dense<9.99999997E-7> : tensor<f32>
    %165 = stablehlo.broadcast_in_dim %cst_27, dims = [] : (tensor<f32>) -> tensor<1x75600x1xf32>
    %166 = stablehlo.add %164, %165 : tensor<1x75600x1xf32>
    %167 = stablehlo.rsqrt %166 : tensor<1x75600x1xf32>
    %168 = stablehlo.broadcast_in_dim %167, dims = [0, 1, 2] : (tensor<1x75600x1xf32>) -> tensor<1x75600x5120xf32>
    %169 = stablehlo.multiply %159, %168 : tensor<1x75600x5120xf32>
    %170 = stablehlo.convert %169 : (tensor<1x75600x5120xf32>) -> tensor<1x75600x5120xbf16>
    %171 = stablehlo.broadcast_in_dim %arg20, dims = [2] : (tensor<5120xbf16>) -> tensor<1x1x5120xbf16>
    %172 = stablehlo.broadcast_in_dim %171, dims = [0, 1, 2] : (tensor<1x1x5120xbf16>) -> tensor<1x75600x5120xbf16>
    %173 = stablehlo.multiply %170, %172 : tensor<1x75600x5120xbf16>
    %174 = stablehlo.dot_general %153, %arg18, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<1x75600x5120xbf16>, tensor<5120x5120xbf16>) -> tensor<1x75600x5120xbf16>
    %175 = stablehlo.broadcast_in_dim %arg17, dims = [2] : (tensor<5120xbf16>) -> tensor<1x1x5120xbf16>
    %176 = stablehlo.broadcast_in_dim %175, dims = [0, 1, 2] : (tensor<1x1x5120xbf16>) -> tensor<1x75600x5120xbf16>
    %177 = stablehlo.add %174, %176 : tensor<1x75600x5120xbf16>
    %178 = sdy.sharding_constraint %177 <@mesh, [{}, {"ulysses"}, {}]> : tensor<1x75600x5120xbf16>
    %179 = stablehlo.convert %178 : (tensor<1x75600x5120xbf16>) -> tensor<1x75600x5120xf32>
    %180 = chlo.square %179 : tensor<1x75600x5120xf32> -> tensor<1x75600x5120xf32>
    %cst_28 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %181 = stablehlo.reduce(%180 init: %cst_28) applies stablehlo.add across dimensions = [2] : (tensor<1x75600x5120xf32>, tensor<f32>) -> tensor<1x75600xf32>
    %182 = stablehlo.broadcast_in_dim %181, dims = [0, 1] : (tensor<1x75600xf32>) -> tensor<1x75600x1xf32>
    %cst_29 = stablehlo.constant dense<5.120000e+03> : tensor<f32>
    %183 = stablehlo.broadcast_in_dim %cst_29, dims = [] : (tensor<f32>) -> tensor<1x75600x1xf32>
    %184 = stablehlo.divide %182, %183 : tensor<1x75600x1xf32>
    %cst_30 = stablehlo.constant dense<9.99999997E-7> : tensor<f32>
    %185 = stablehlo.broadcast_in_dim %cst_30, dims = [] : (tensor<f32>) -> tensor<1x75600x1xf32>
    %186 = stablehlo.add %184, %185 : tensor<1x75600x1xf32>
    %187 = stablehlo.rsqrt %186 : tensor<1x75600x1xf32>
    %188 = stablehlo.broadcast_in_dim %187, dims = [0, 1, 2] : (tensor<1x75600x1xf32>) -> tensor<1x75600x5120xf32>
    %189 = stablehlo.multiply %179, %188 : tensor<1x75600x5120xf32>
    %190 = stablehlo.convert %189 : (tensor<1x75600x5120xf32>) -> tensor<1x75600x5120xbf16>
    %191 = stablehlo.broadcast_in_dim %arg19, dims = [2] : (tensor<5120xbf16>) -> tensor<1x1x5120xbf16>
    %192 = stablehlo.broadcast_in_dim %191, dims = [0, 1, 2] : (tensor<1x1x5120xbf16>) -> tensor<1x75600x5120xbf16>
    %193 = stablehlo.multiply %190, %192 : tensor<1x75600x5120xbf16>
    %194 = stablehlo.dot_general %153, %arg26, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<1x75600x5120xbf16>, tensor<5120x5120xbf16>) -> tensor<1x75600x5120xbf16>
    %195 = stablehlo.broadcast_in_dim %arg25, dims = [2] : (tensor<5120xbf16>) -> tensor<1x1x5120xbf16>
    %196 = stablehlo.broadcast_in_dim %195, dims = [0, 1, 2] : (tensor<1x1x5120xbf16>) -> tensor<1x75600x5120xbf16>
    %197 = stablehlo.add %194, %196 : tensor<1x75600x5120xbf16>
    %198 = sdy.sharding_constraint %197 <@mesh, [{}, {"ulysses"}, {}]> : tensor<1x75600x5120xbf16>
    %199 = stablehlo.reshape %173 : (tensor<1x75600x5120xbf16>) -> tensor<1x75600x40x128xbf16>
    %200 = sdy.sharding_constraint %199 <@mesh, [{}, {"ulysses"}, {}, {}]> : tensor<1x75600x40x128xbf16>
    %201 = stablehlo.convert %200 : (tensor<1x75600x40x128xbf16>) -> tensor<1x75600x40x128xf32>
    %202 = stablehlo.reshape %201 : (tensor<1x75600x40x128xf32>) -> tensor<1x75600x40x64x2xf32>
    %203 = stablehlo.cosine %121 : tensor<75600x64xf32>
    %204 = stablehlo.broadcast_in_dim %203, dims = [1, 3] : (tensor<75600x64xf32>) -> tensor<1x75600x1x64xf32>
    %205 = stablehlo.sine %121 : tensor<75600x64xf32>
    %206 = stablehlo.broadcast_in_dim %205, dims = [1, 3] : (tensor<75600x64xf32>) -> tensor<1x75600x1x64xf32>
    %207 = stablehlo.slice %202 [0:1, 0:75600, 0:40, 0:64, 0:1] : (tensor<1x75600x40x64x2xf32>) -> tensor<1x75600x40x64x1xf32>
    %208 = stablehlo.reshape %207 : (tensor<1x75600x40x64x1xf32>) -> tensor<1x75600x40x64xf32>
    %209 = stablehlo.slice %202 [0:1, 0:75600, 0:40, 0:64, 1:2] : (tensor<1x75600x40x64x2xf32>) -> tensor<1x75600x40x64x1xf32>
    %210 = stablehlo.reshape %209 : (tensor<1x75600x40x64x1xf32>) -> tensor<1x75600x40x64xf32>
    %211 = stablehlo.broadcast_in_dim %204, dims = [0, 1, 2, 3] : (tensor<1x75600x1x64xf32>) -> tensor<1x75600x40x64xf32>
    %212 = stablehlo.multiply %208, %211 : tensor<1x75600x40x64xf32>
    %213 = stablehlo.broadcast_in_dim %206, dims = [0, 1, 2, 3] : (tensor<1x75600x1x64xf32>) -> tensor<1x75600x40x64xf32>
    %214 = stablehlo.multiply %210, %213 : tensor<1x75600x40x64xf32>
    %215 = stablehlo.subtract %212, %214 : tensor<1x75600x40x64xf32>
    %216 = stablehlo.broadcast_in_dim %206, dims = [0, 1, 2, 3] : (tensor<1x75600x1x64xf32>) -> tensor<1x75600x40x64xf32>
    %217 = stablehlo.multiply %208, %216 : tensor<1x75600x40x64xf32>
    %218 = stablehlo.broadcast_in_dim %204, dims = [0, 1, 2, 3] : (tensor<1x75600x1x64xf32>) -> tensor<1x75600x40x64xf32>
    %219 = stablehlo.multiply %210, %218 : tensor<1x75600x40x64xf32>
    %220 = stablehlo.add %217, %219 : tensor<1x75600x40x64xf32>
    %221 = stablehlo.broadcast_in_dim %215, dims = [0, 1, 2, 3] : (tensor<1x75600x40x64xf32>) -> tensor<1x75600x40x64x1xf32>
    %222 = stablehlo.broadcast_in_dim %220, dims = [0, 1, 2, 3] : (tensor<1x75600x40x64xf32>) -> tensor<1x75600x40x64x1xf32>
    %223 = stablehlo.concatenate %221, %222, dim = 4 : (tensor<1x75600x40x64x1xf32>, tensor<1x75600x40x64x1xf32>) -> tensor<1x75600x40x64x2xf32>
    %224 = stablehlo.reshape %223 : (tensor<1x75600x40x64x2xf32>) -> tensor<1x75600x40x128xf32>
    %225 = stablehlo.convert %224 : (tensor<1x75600x40x128xf32>) -> tensor<1x75600x40x128xbf16>
    %226 = stablehlo.reshape %193 : (tensor<1x75600x5120xbf16>) -> tensor<1x75600x40x128xbf16>
    %227 = sdy.sharding_constraint %226 <@mesh, [{}, {"ulysses"}, {}, {}]> : tensor<1x75600x40x128xbf16>
    %228 = stablehlo.convert %227 : (tensor<1x75600x40x128xbf16>) -> tensor<1x75600x40x128xf32>
    %229 = stablehlo.reshape %228 : (tensor<1x75600x40x128xf32>) -> tensor<1x75600x40x64x2xf32>
    %230 = stablehlo.cosine %121 : tensor<75600x64xf32>
    %231 = stablehlo.broadcast_in_dim %230, dims = [1, 3] : (tensor<75600x64xf32>) -> tensor<1x75600x1x64xf32>
    %232 = stablehlo.sine %121 : tensor<75600x64xf32>
    %233 = stablehlo.broadcast_in_dim %232, dims = [1, 3] : (tensor<75600x64xf32>) -> tensor<1x75600x1x64xf32>
    %234 = stablehlo.slice %229 [0:1, 0:75600, 0:40, 0:64, 0:1] : (tensor<1x75600x40x64x2xf32>) -> tensor<1x75600x40x64x1xf32>
    %235 = stablehlo.reshape %234 : (tensor<1x75600x40x64x1xf32>) -> tensor<1x75600x40x64xf32>
    %236 = stablehlo.slice %229 [0:1, 0:75600, 0:40, 0:64, 1:2] : (tensor<1x75600x40x64x2xf32>) -> tensor<1x75600x40x64x1xf32>
    %237 = stablehlo.reshape %236 : (tensor<1x75600x40x64x1xf32>) -> tensor<1x75600x40x64xf32>
    %238 = stablehlo.broadcast_in_dim %231, dims = [0, 1, 2, 3] : (tensor<1x75600x1x64xf32>) -> tensor<1x75600x40x64xf32>
    %239 = stablehlo.multiply %235, %238 : tensor<1x75600x40x64xf32>
    %240 = stablehlo.broadcast_in_dim %233, dims = [0, 1, 2, 3] : (tensor<1x75600x1x64xf32>) -> tensor<1x75600x40x64xf32>
    %241 = stablehlo.multiply %237, %240 : tensor<1x75600x40x64xf32>
    %242 = stablehlo.subtract %239, %241 : tensor<1x75600x40x64xf32>
    %243 = stablehlo.broadcast_in_dim %233, dims = [0, 1, 2, 3] : (tensor<1x75600x1x64xf32>) -> tensor<1x75600x40x64xf32>
    %244 = stablehlo.multiply %235, %243 : tensor<1x75600x40x64xf32>
    %245 = stablehlo.broadcast_in_dim %231, dims = [0, 1, 2, 3] : (tensor<1x75600x1x64xf32>) -> tensor<1x75600x40x64xf32>
    %246 = stablehlo.multiply %237, %245 : tensor<1x75600x40x64xf32>
    %247 = stablehlo.add %244, %246 : tensor<1x75600x40x64xf32>
    %248 = stablehlo.broadcast_in_dim %242, dims = [0, 1, 2, 3] : (tensor<1x75600x40x64xf32>) -> tensor<1x75600x40x64x1xf32>
    %249 = stablehlo.broadcast_in_dim %247, dims = [0, 1, 2, 3] : (tensor<1x75600x40x64xf32>) -> tensor<1x75600x40x64x1xf32>
    %250 = stablehlo.concatenate %248, %249, dim = 4 : (tensor<1x75600x40x64x1xf32>, tensor<1x75600x40x64x1xf32>) -> tensor<1x75600x40x64x2xf32>
    %251 = stablehlo.reshape %250 : (tensor<1x75600x40x64x2xf32>) -> tensor<1x75600x40x128xf32>
    %252 = stablehlo.convert %251 : (tensor<1x75600x40x128xf32>) -> tensor<1x75600x40x128xbf16>
    %253 = stablehlo.reshape %198 : (tensor<1x75600x5120xbf16>) -> tensor<1x75600x40x128xbf16>
    %254 = sdy.sharding_constraint %253 <@mesh, [{}, {"ulysses"}, {}, {}]> : tensor<1x75600x40x128xbf16>
    %255 = sdy.sharding_constraint %225 <@mesh, [{}, {}, {"ulysses"}, {}]> : tensor<1x75600x40x128xbf16>
    %256 = sdy.sharding_constraint %252 <@mesh, [{}, {}, {"ulysses"}, {}]> : tensor<1x75600x40x128xbf16>
    %257 = sdy.sharding_constraint %254 <@mesh, [{}, {}, {"ulysses"}, {}]> : tensor<1x75600x40x128xbf16>
    %258 = stablehlo.dot_general %255, %256, batching_dims = [0, 2] x [0, 2], contracting_dims = [3] x [3], precision = [DEFAULT, DEFAULT] : (tensor<1x75600x40x128xbf16>, tensor<1x75600x40x128xbf16>) -> tensor<1x40x75600x75600xf32>
    %cst_31 = stablehlo.constant dense<0.0883883461> : tensor<f32>
    %259 = stablehlo.broadcast_in_dim %cst_31, dims = [] : (tensor<f32>) -> tensor<1x40x75600x75600xf32>
    %260 = stablehlo.multiply %258, %259 : tensor<1x40x75600x75600xf32>
    %cst_32 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %261 = stablehlo.reduce(%260 init: %cst_32) applies stablehlo.maximum across dimensions = [3] : (tensor<1x40x75600x75600xf32>, tensor<f32>) -> tensor<1x40x75600xf32>
    %cst_33 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %262 = stablehlo.broadcast_in_dim %cst_33, dims = [] : (tensor<f32>) -> tensor<1x40x75600xf32>
    %263 = stablehlo.maximum %262, %261 : tensor<1x40x75600xf32>
    %264 = stablehlo.broadcast_in_dim %263, dims = [0, 1, 2] : (tensor<1x40x75600xf32>) -> tensor<1x40x75600x1xf32>
    %265 = stablehlo.broadcast_in_dim %264, dims = [0, 1, 2, 3] : (tensor<1x40x75600x1xf32>) -> tensor<1x40x75600x75600xf32>
    %266 = stablehlo.subtract %260, %265 : tensor<1x40x75600x75600xf32>
    %267 = stablehlo.exponential %266 : tensor<1x40x75600x75600xf32>
    %cst_34 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %268 = stablehlo.reduce(%267 init: %cst_34) applies stablehlo.add across dimensions = [3] : (tensor<1x40x75600x75600xf32>, tensor<f32>) -> tensor<1x40x75600xf32>
    %269 = stablehlo.broadcast_in_dim %268, dims = [0, 1, 2] : (tensor<1x40x75600xf32>) -> tensor<1x40x75600x1xf32>
    %270 = stablehlo.broadcast_in_dim %269, dims = [0, 1, 2, 3] : (tensor<1x40x75600x1xf32>) -> tensor<1x40x75600x75600xf32>
    %271 = stablehlo.divide %267, %270 : tensor<1x40x75600x75600xf32>
    %272 = stablehlo.convert %271 : (tensor<1x40x75600x75600xf32>) -> tensor<1x40x75600x75600xbf16>
    %273 = stablehlo.dot_general %257, %272, batching_dims = [0, 2] x [0, 1], contracting_dims = [1] x [3], precision = [DEFAULT, DEFAULT] : (tensor<1x75600x40x128xbf16>, tensor<1x40x75600x75600xbf16>) -> tensor<1x40x128x75600xbf16>
    %274 = stablehlo.transpose %273, dims = [0, 3, 1, 2] : (tensor<1x40x128x75600xbf16>) -> tensor<1x75600x40x128xbf16>
    %275 = sdy.sharding_constraint %274 <@mesh, [{}, {}, {"ulysses"}, {}]> : tensor<1x75600x40x128xbf16>
    %276 = sdy.sharding_constraint %275 <@mesh, [{}, {"ulysses"}, {}, {}]> : tensor<1x75600x40x128xbf16>
    %277 = stablehlo.reshape %276 : (tensor<1x75600x40x128xbf16>) -> tensor<1x75600x5120xbf16>
    %278 = stablehlo.dot_general %277, %arg22, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<1x75600x5120xbf16>, tensor<5120x5120xbf16>) -> tensor<1x75600x5120xbf16>
    %279 = stablehlo.broadcast_in_dim %arg21, dims = [2] : (tensor<5120xbf16>) -> tensor<1x1x5120xbf16>
    %280 = stablehlo.broadcast_in_dim %279, dims = [0, 1, 2] : (tensor<1x1x5120xbf16>) -> tensor<1x75600x5120xbf16>
    %281 = stablehlo.add %278, %280 : tensor<1x75600x5120xbf16>
    %282 = sdy.sharding_constraint %281 <@mesh, [{}, {"ulysses"}, {}]> : tensor<1x75600x5120xbf16>
    %283 = stablehlo.convert %282 : (tensor<1x75600x5120xbf16>) -> tensor<1x75600x5120xf32>
    %284 = stablehlo.broadcast_in_dim %126, dims = [0, 1, 2] : (tensor<1x1x5120xf32>) -> tensor<1x75600x5120xf32>
    %285 = stablehlo.multiply %283, %284 : tensor<1x75600x5120xf32>
    %286 = stablehlo.add %8, %285 : tensor<1x75600x5120xf32>
    %287 = sdy.sharding_constraint %286 <@mesh, [{}, {"ulysses"}, {}]> : tensor<1x75600x5120xf32>
    %cst_35 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %288 = stablehlo.reduce(%287 init: %cst_35) applies stablehlo.add across dimensions = [2] : (tensor<1x75600x5120xf32>, tensor<f32>) -> tensor<1x75600xf32>
    %289 = stablehlo.broadcast_in_dim %288, dims = [0, 1] : (tensor<1x75600xf32>) -> tensor<1x75600x1xf32>
    %cst_36 = stablehlo.constant dense<5.120000e+03> : tensor<f32>
    %290 = stablehlo.broadcast_in_dim %cst_36, dims = [] : (tensor<f32>) -> tensor<1x75600x1xf32>
    %291 = stablehlo.divide %289, %290 : tensor<1x75600x1xf32>
    %292 = stablehlo.broadcast_in_dim %291, dims = [0, 1, 2] : (tensor<1x75600x1xf32>) -> tensor<1x75600x5120xf32>
    %293 = stablehlo.subtract %287, %292 : tensor<1x75600x5120xf32>
    %294 = chlo.square %293 : tensor<1x75600x5120xf32> -> tensor<1x75600x5120xf32>
    %cst_37 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %295 = stablehlo.reduce(%294 init: %cst_37) applies stablehlo.add across dimensions = [2] : (tensor<1x75600x5120xf32>, tensor<f32>) -> tensor<1x75600xf32>
    %296 = stablehlo.broadcast_in_dim %295, dims = [0, 1] : (tensor<1x75600xf32>) -> tensor<1x75600x1xf32>
    %cst_38 = stablehlo.constant dense<5.120000e+03> : tensor<f32>
    %297 = stablehlo.broadcast_in_dim %cst_38, dims = [] : (tensor<f32>) -> tensor<1x75600x1xf32>
    %298 = stablehlo.divide %296, %297 : tensor<1x75600x1xf32>
    %299 = stablehlo.broadcast_in_dim %291, dims = [0, 1, 2] : (tensor<1x75600x1xf32>) -> tensor<1x75600x5120xf32>
    %300 = stablehlo.subtract %287, %299 : tensor<1x75600x5120xf32>
    %cst_39 = stablehlo.constant dense<9.99999997E-7> : tensor<f32>
    %301 = stablehlo.broadcast_in_dim %cst_39, dims = [] : (tensor<f32>) -> tensor<1x75600x1xf32>
    %302 = stablehlo.add %298, %301 : tensor<1x75600x1xf32>
    %303 = stablehlo.rsqrt %302 : tensor<1x75600x1xf32>
    %304 = stablehlo.broadcast_in_dim %303, dims = [0, 1, 2] : (tensor<1x75600x1xf32>) -> tensor<1x75600x5120xf32>
    %305 = stablehlo.multiply %300, %304 : tensor<1x75600x5120xf32>
    %306 = stablehlo.convert %arg3 : (tensor<5120xbf16>) -> tensor<5120xf32>
    %307 = stablehlo.broadcast_in_dim %306, dims = [2] : (tensor<5120xf32>) -> tensor<1x1x5120xf32>
    %308 = stablehlo.broadcast_in_dim %307, dims = [0, 1, 2] : (tensor<1x1x5120xf32>) -> tensor<1x75600x5120xf32>
    %309 = stablehlo.multiply %305, %308 : tensor<1x75600x5120xf32>
    %310 = stablehlo.convert %arg2 : (tensor<5120xbf16>) -> tensor<5120xf32>
    %311 = stablehlo.broadcast_in_dim %310, dims = [2] : (tensor<5120xf32>) -> tensor<1x1x5120xf32>
    %312 = stablehlo.broadcast_in_dim %311, dims = [0, 1, 2] : (tensor<1x1x5120xf32>) -> tensor<1x75600x5120xf32>
    %313 = stablehlo.add %309, %312 : tensor<1x75600x5120xf32>
    %314 = stablehlo.convert %313 : (tensor<1x75600x5120xf32>) -> tensor<1x75600x5120xbf16>
    %315 = stablehlo.dot_general %314, %arg9, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<1x75600x5120xbf16>, tensor<5120x5120xbf16>) -> tensor<1x75600x5120xbf16>
    %316 = stablehlo.broadcast_in_dim %arg8, dims = [2] : (tensor<5120xbf16>) -> tensor<1x1x5120xbf16>
    %317 = stablehlo.broadcast_in_dim %316, dims = [0, 1, 2] : (tensor<1x1x5120xbf16>) -> tensor<1x75600x5120xbf16>
    %318 = stablehlo.add %315, %317 : tensor<1x75600x5120xbf16>
    %319 = sdy.sharding_constraint %318 <@mesh, [{}, {"ulysses"}, {}]> : tensor<1x75600x5120xbf16>
    %320 = stablehlo.convert %319 : (tensor<1x75600x5120xbf16>) -> tensor<1x75600x5120xf32>
    %321 = chlo.square %320 : tensor<1x75600x5120xf32> -> tensor<1x75600x5120xf32>
    %cst_40 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %322 = stablehlo.reduce(%321 init: %cst_40) applies stablehlo.add across dimensions = [2] : (tensor<1x75600x5120xf32>, tensor<f32>) -> tensor<1x75600xf32>
    %323 = stablehlo.broadcast_in_dim %322, dims = [0, 1] : (tensor<1x75600xf32>) -> tensor<1x75600x1xf32>
    %cst_41 = stablehlo.constant dense<5.120000e+03> : tensor<f32>
    %324 = stablehlo.broadcast_in_dim %cst_41, dims = [] : (tensor<f32>) -> tensor<1x75600x1xf32>
    %325 = stablehlo.divide %323, %324 : tensor<1x75600x1xf32>
    %cst_42 = stablehlo.constant dense<9.99999997E-7> : tensor<f32>
    %326 = stablehlo.broadcast_in_dim %cst_42, dims = [] : (tensor<f32>) -> tensor<1x75600x1xf32>
    %327 = stablehlo.add %325, %326 : tensor<1x75600x1xf32>
    %328 = stablehlo.rsqrt %327 : tensor<1x75600x1xf32>
    %329 = stablehlo.broadcast_in_dim %328, dims = [0, 1, 2] : (tensor<1x75600x1xf32>) -> tensor<1x75600x5120xf32>
    %330 = stablehlo.multiply %320, %329 : tensor<1x75600x5120xf32>
    %331 = stablehlo.convert %330 : (tensor<1x75600x5120xf32>) -> tensor<1x75600x5120xbf16>
    %332 = stablehlo.broadcast_in_dim %arg5, dims = [2] : (tensor<5120xbf16>) -> tensor<1x1x5120xbf16>
    %333 = stablehlo.broadcast_in_dim %332, dims = [0, 1, 2] : (tensor<1x1x5120xbf16>) -> tensor<1x75600x5120xbf16>
    %334 = stablehlo.multiply %331, %333 : tensor<1x75600x5120xbf16>
    %335 = stablehlo.dot_general %61, %arg1, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<1x512x5120xbf16>, tensor<5120x5120xbf16>) -> tensor<1x512x5120xbf16>
    %336 = stablehlo.broadcast_in_dim %arg0, dims = [2] : (tensor<5120xbf16>) -> tensor<1x1x5120xbf16>
    %337 = stablehlo.broadcast_in_dim %336, dims = [0, 1, 2] : (tensor<1x1x5120xbf16>) -> tensor<1x512x5120xbf16>
    %338 = stablehlo.add %335, %337 : tensor<1x512x5120xbf16>
    %339 = stablehlo.convert %338 : (tensor<1x512x5120xbf16>) -> tensor<1x512x5120xf32>
    %340 = chlo.square %339 : tensor<1x512x5120xf32> -> tensor<1x512x5120xf32>
    %cst_43 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %341 = stablehlo.reduce(%340 init: %cst_43) applies stablehlo.add across dimensions = [2] : (tensor<1x512x5120xf32>, tensor<f32>) -> tensor<1x512xf32>
    %342 = stablehlo.broadcast_in_dim %341, dims = [0, 1] : (tensor<1x512xf32>) -> tensor<1x512x1xf32>
    %cst_44 = stablehlo.constant dense<5.120000e+03> : tensor<f32>
    %343 = stablehlo.broadcast_in_dim %cst_44, dims = [] : (tensor<f32>) -> tensor<1x512x1xf32>
    %344 = stablehlo.divide %342, %343 : tensor<1x512x1xf32>
    %cst_45 = stablehlo.constant dense<9.99999997E-7> : tensor<f32>
    %345 = stablehlo.broadcast_in_dim %cst_45, dims = [] : (tensor<f32>) -> tensor<1x512x1xf32>
    %346 = stablehlo.add %344, %345 : tensor<1x512x1xf32>
    %347 = stablehlo.rsqrt %346 : tensor<1x512x1xf32>
    %348 = stablehlo.broadcast_in_dim %347, dims = [0, 1, 2] : (tensor<1x512x1xf32>) -> tensor<1x512x5120xf32>
    %349 = stablehlo.multiply %339, %348 : tensor<1x512x5120xf32>
    %350 = stablehlo.convert %349 : (tensor<1x512x5120xf32>) -> tensor<1x512x5120xbf16>
    %351 = stablehlo.broadcast_in_dim %arg4, dims = [2] : (tensor<5120xbf16>) -> tensor<1x1x5120xbf16>
    %352 = stablehlo.broadcast_in_dim %351, dims = [0, 1, 2] : (tensor<1x1x5120xbf16>) -> tensor<1x512x5120xbf16>
    %353 = stablehlo.multiply %350, %352 : tensor<1x512x5120xbf16>
    %354 = stablehlo.dot_general %61, %arg11, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<1x512x5120xbf16>, tensor<5120x5120xbf16>) -> tensor<1x512x5120xbf16>
    %355 = stablehlo.broadcast_in_dim %arg10, dims = [2] : (tensor<5120xbf16>) -> tensor<1x1x5120xbf16>
    %356 = stablehlo.broadcast_in_dim %355, dims = [0, 1, 2] : (tensor<1x1x5120xbf16>) -> tensor<1x512x5120xbf16>
    %357 = stablehlo.add %354, %356 : tensor<1x512x5120xbf16>
    %358 = stablehlo.reshape %334 : (tensor<1x75600x5120xbf16>) -> tensor<1x75600x40x128xbf16>
    %359 = sdy.sharding_constraint %358 <@mesh, [{}, {"ulysses"}, {}, {}]> : tensor<1x75600x40x128xbf16>
    %360 = stablehlo.reshape %353 : (tensor<1x512x5120xbf16>) -> tensor<1x512x40x128xbf16>
    %361 = sdy.sharding_constraint %360 <@mesh, [{}, {}, {}, {}]> : tensor<1x512x40x128xbf16>
    %362 = stablehlo.reshape %357 : (tensor<1x512x5120xbf16>) -> tensor<1x512x40x128xbf16>
    %363 = sdy.sharding_constraint %362 <@mesh, [{}, {}, {}, {}]> : tensor<1x512x40x128xbf16>
    %364 = stablehlo.dot_general %359, %361, batching_dims = [0, 2] x [0, 2], contracting_dims = [3] x [3], precision = [DEFAULT, DEFAULT] : (tensor<1x75600x40x128xbf16>, tensor<1x512x40x128xbf16>) -> tensor<1x40x75600x512xf32>
    %cst_46 = stablehlo.constant dense<0.0883883461> : tensor<f32>
    %365 = stablehlo.broadcast_in_dim %cst_46, dims = [] : (tensor<f32>) -> tensor<1x40x75600x512xf32>
    %366 = stablehlo.multiply %364, %365 : tensor<1x40x75600x512xf32>
    %cst_47 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %367 = stablehlo.reduce(%366 init: %cst_47) applies stablehlo.maximum across dimensions = [3] : (tensor<1x40x75600x512xf32>, tensor<f32>) -> tensor<1x40x75600xf32>
    %cst_48 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %368 = stablehlo.broadcast_in_dim %cst_48, dims = [] : (tensor<f32>) -> tensor<1x40x75600xf32>
    %369 = stablehlo.maximum %368, %367 : tensor<1x40x75600xf32>
    %370 = stablehlo.broadcast_in_dim %369, dims = [0, 1, 2] : (tensor<1x40x75600xf32>) -> tensor<1x40x75600x1xf32>
    %371 = stablehlo.broadcast_in_dim %370, dims = [0, 1, 2, 3] : (tensor<1x40x75600x1xf32>) -> tensor<1x40x75600x512xf32>
    %372 = stablehlo.subtract %366, %371 : tensor<1x40x75600x512xf32>
    %373 = stablehlo.exponential %372 : tensor<1x40x75600x512xf32>
    %cst_49 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %374 = stablehlo.reduce(%373 init: %cst_49) applies stablehlo.add across dimensions = [3] : (tensor<1x40x75600x512xf32>, tensor<f32>) -> tensor<1x40x75600xf32>
    %375 = stablehlo.broadcast_in_dim %374, dims = [0, 1, 2] : (tensor<1x40x75600xf32>) -> tensor<1x40x75600x1xf32>
    %376 = stablehlo.broadcast_in_dim %375, dims = [0, 1, 2, 3] : (tensor<1x40x75600x1xf32>) -> tensor<1x40x75600x512xf32>
    %377 = stablehlo.divide %373, %376 : tensor<1x40x75600x512xf32>
    %378 = stablehlo.convert %377 : (tensor<1x40x75600x512xf32>) -> tensor<1x40x75600x512xbf16>
    %379 = stablehlo.dot_general %363, %378, batching_dims = [0, 2] x [0, 1], contracting_dims = [1] x [3], precision = [DEFAULT, DEFAULT] : (tensor<1x512x40x128xbf16>, tensor<1x40x75600x512xbf16>) -> tensor<1x40x128x75600xbf16>
    %380 = stablehlo.transpose %379, dims = [0, 3, 1, 2] : (tensor<1x40x128x75600xbf16>) -> tensor<1x75600x40x128xbf16>
    %381 = sdy.sharding_constraint %380 <@mesh, [{}, {"ulysses"}, {}, {}]> : tensor<1x75600x40x128xbf16>
    %382 = stablehlo.reshape %381 : (tensor<1x75600x40x128xbf16>) -> tensor<1x75600x5120xbf16>
    %383 = stablehlo.dot_general %382, %arg7, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<1x75600x5120xbf16>, tensor<5120x5120xbf16>) -> tensor<1x75600x5120xbf16>
    %384 = stablehlo.broadcast_in_dim %arg6, dims = [2] : (tensor<5120xbf16>) -> tensor<1x1x5120xbf16>
    %385 = stablehlo.broadcast_in_dim %384, dims = [0, 1, 2] : (tensor<1x1x5120xbf16>) -> tensor<1x75600x5120xbf16>
    %386 = stablehlo.add %383, %385 : tensor<1x75600x5120xbf16>
    %387 = sdy.sharding_constraint %386 <@mesh, [{}, {"ulysses"}, {}]> : tensor<1x75600x5120xbf16>
    %388 = stablehlo.convert %387 : (tensor<1x75600x5120xbf16>) -> tensor<1x75600x5120xf32>
    %389 = stablehlo.add %287, %388 : tensor<1x75600x5120xf32>
    %390 = sdy.sharding_constraint %389 <@mesh, [{}, {"ulysses"}, {}]> : tensor<1x75600x5120xf32>
    %cst_50 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %391 = stablehlo.reduce(%390 init: %cst_50) applies stablehlo.add across dimensions = [2] : (tensor<1x75600x5120xf32>, tensor<f32>) -> tensor<1x75600xf32>
    %392 = stablehlo.broadcast_in_dim %391, dims = [0, 1] : (tensor<1x75600xf32>) -> tensor<1x75600x1xf32>
    %cst_51 = stablehlo.constant dense<5.120000e+03> : tensor<f32>
    %393 = stablehlo.broadcast_in_dim %cst_51, dims = [] : (tensor<f32>) -> tensor<1x75600x1xf32>
    %394 = stablehlo.divide %392, %393 : tensor<1x75600x1xf32>
    %395 = stablehlo.broadcast_in_dim %394, dims = [0, 1, 2] : (tensor<1x75600x1xf32>) -> tensor<1x75600x5120xf32>
    %396 = stablehlo.subtract %390, %395 : tensor<1x75600x5120xf32>
    %397 = chlo.square %396 : tensor<1x75600x5120xf32> -> tensor<1x75600x5120xf32>
    %cst_52 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %398 = stablehlo.reduce(%397 init: %cst_52) applies stablehlo.add across dimensions = [2] : (tensor<1x75600x5120xf32>, tensor<f32>) -> tensor<1x75600xf32>
    %399 = stablehlo.broadcast_in_dim %398, dims = [0, 1] : (tensor<1x75600xf32>) -> tensor<1x75600x1xf32>
    %cst_53 = stablehlo.constant dense<5.120000e+03> : tensor<f32>
    %400 = stablehlo.broadcast_in_dim %cst_53, dims = [] : (tensor<f32>) -> tensor<1x75600x1xf32>
    %401 = stablehlo.divide %399, %400 : tensor<1x75600x1xf32>
    %402 = stablehlo.broadcast_in_dim %394, dims = [0, 1, 2] : (tensor<1x75600x1xf32>) -> tensor<1x75600x5120xf32>
    %403 = stablehlo.subtract %390, %402 : tensor<1x75600x5120xf32>
    %cst_54 = stablehlo.constant dense<9.99999997E-7> : tensor<f32>
    %404 = stablehlo.broadcast_in_dim %cst_54, dims = [] : (tensor<f32>) -> tensor<1x75600x1xf32>
    %405 = stablehlo.add %401, %404 : tensor<1x75600x1xf32>
    %406 = stablehlo.rsqrt %405 : tensor<1x75600x1xf32>
    %407 = stablehlo.broadcast_in_dim %406, dims = [0, 1, 2] : (tensor<1x75600x1xf32>) -> tensor<1x75600x5120xf32>
    %408 = stablehlo.multiply %403, %407 : tensor<1x75600x5120xf32>
    %409 = stablehlo.broadcast_in_dim %128, dims = [0, 1, 2] : (tensor<1x1x5120xf32>) -> tensor<1x75600x5120xf32>
    %410 = stablehlo.multiply %408, %409 : tensor<1x75600x5120xf32>
    %411 = stablehlo.add %408, %410 : tensor<1x75600x5120xf32>
    %412 = stablehlo.broadcast_in_dim %127, dims = [0, 1, 2] : (tensor<1x1x5120xf32>) -> tensor<1x75600x5120xf32>
    %413 = stablehlo.add %411, %412 : tensor<1x75600x5120xf32>
    %414 = stablehlo.convert %413 : (tensor<1x75600x5120xf32>) -> tensor<1x75600x5120xbf16>
    %415 = stablehlo.dot_general %414, %arg13, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<1x75600x5120xbf16>, tensor<5120x13824xbf16>) -> tensor<1x75600x13824xbf16>
    %416 = stablehlo.broadcast_in_dim %arg12, dims = [2] : (tensor<13824xbf16>) -> tensor<1x1x13824xbf16>
    %417 = stablehlo.broadcast_in_dim %416, dims = [0, 1, 2] : (tensor<1x1x13824xbf16>) -> tensor<1x75600x13824xbf16>
    %418 = stablehlo.add %415, %417 : tensor<1x75600x13824xbf16>
    %419 = sdy.sharding_constraint %418 <@mesh, [{}, {"ulysses"}, {}]> : tensor<1x75600x13824xbf16>
    %420 = stablehlo.multiply %419, %419 : tensor<1x75600x13824xbf16>
    %421 = stablehlo.multiply %420, %419 : tensor<1x75600x13824xbf16>
    %cst_55 = stablehlo.constant dense<4.467770e-02> : tensor<bf16>
    %422 = stablehlo.broadcast_in_dim %cst_55, dims = [] : (tensor<bf16>) -> tensor<1x75600x13824xbf16>
    %423 = stablehlo.multiply %422, %421 : tensor<1x75600x13824xbf16>
    %424 = stablehlo.add %419, %423 : tensor<1x75600x13824xbf16>
    %cst_56 = stablehlo.constant dense<7.968750e-01> : tensor<bf16>
    %425 = stablehlo.broadcast_in_dim %cst_56, dims = [] : (tensor<bf16>) -> tensor<1x75600x13824xbf16>
    %426 = stablehlo.multiply %425, %424 : tensor<1x75600x13824xbf16>
    %427 = stablehlo.tanh %426 : tensor<1x75600x13824xbf16>
    %cst_57 = stablehlo.constant dense<1.000000e+00> : tensor<bf16>
    %428 = stablehlo.broadcast_in_dim %cst_57, dims = [] : (tensor<bf16>) -> tensor<1x75600x13824xbf16>
    %429 = stablehlo.add %428, %427 : tensor<1x75600x13824xbf16>
    %cst_58 = stablehlo.constant dense<5.000000e-01> : tensor<bf16>
    %430 = stablehlo.broadcast_in_dim %cst_58, dims = [] : (tensor<bf16>) -> tensor<1x75600x13824xbf16>
    %431 = stablehlo.multiply %430, %429 : tensor<1x75600x13824xbf16>
    %432 = stablehlo.multiply %419, %431 : tensor<1x75600x13824xbf16>
    %433 = stablehlo.dot_general %432, %arg15, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<1x75600x13824xbf16>, tensor<13824x5120xbf16>) -> tensor<1x75600x5120xbf16>
    %434 = stablehlo.broadcast_in_dim %arg14, dims = [2] : (tensor<5120xbf16>) -> tensor<1x1x5120xbf16>
    %435 = stablehlo.broadcast_in_dim %434, dims = [0, 1, 2] : (tensor<1x1x5120xbf16>) -> tensor<1x75600x5120xbf16>
    %436 = stablehlo.add %433, %435 : tensor<1x75600x5120xbf16>
    %437 = sdy.sharding_constraint %436 <@mesh, [{}, {"ulysses"}, {}]> : tensor<1x75600x5120xbf16>
    %438 = stablehlo.convert %437 : (tensor<1x75600x5120xbf16>) -> tensor<1x75600x5120xf32>
    %439 = stablehlo.broadcast_in_dim %129, dims = [0, 1, 2] : (tensor<1x1x5120xf32>) -> tensor<1x75600x5120xf32>
    %440 = stablehlo.multiply %438, %439 : tensor<1x75600x5120xf32>
    %441 = stablehlo.add %390, %440 : tensor<1x75600x5120xf32>
    %442 = sdy.sharding_constraint %441 <@mesh, [{}, {"ulysses"}, {}]> : tensor<1x75600x5120xf32>
    %443 = stablehlo.broadcast_in_dim %32, dims = [0, 2] : (tensor<1x5120xf32>) -> tensor<1x1x5120xf32>
    %444 = stablehlo.convert %arg29 : (tensor<1x2x5120xbf16>) -> tensor<1x2x5120xf32>
    %445 = stablehlo.broadcast_in_dim %443, dims = [0, 1, 2] : (tensor<1x1x5120xf32>) -> tensor<1x2x5120xf32>
    %446 = stablehlo.add %444, %445 : tensor<1x2x5120xf32>
    %447 = stablehlo.slice %446 [0:1, 0:1, 0:5120] : (tensor<1x2x5120xf32>) -> tensor<1x1x5120xf32>
    %448 = stablehlo.slice %446 [0:1, 1:2, 0:5120] : (tensor<1x2x5120xf32>) -> tensor<1x1x5120xf32>
    %cst_59 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %449 = stablehlo.reduce(%442 init: %cst_59) applies stablehlo.add across dimensions = [2] : (tensor<1x75600x5120xf32>, tensor<f32>) -> tensor<1x75600xf32>
    %450 = stablehlo.broadcast_in_dim %449, dims = [0, 1] : (tensor<1x75600xf32>) -> tensor<1x75600x1xf32>
    %cst_60 = stablehlo.constant dense<5.120000e+03> : tensor<f32>
    %451 = stablehlo.broadcast_in_dim %cst_60, dims = [] : (tensor<f32>) -> tensor<1x75600x1xf32>
    %452 = stablehlo.divide %450, %451 : tensor<1x75600x1xf32>
    %453 = stablehlo.broadcast_in_dim %452, dims = [0, 1, 2] : (tensor<1x75600x1xf32>) -> tensor<1x75600x5120xf32>
    %454 = stablehlo.subtract %442, %453 : tensor<1x75600x5120xf32>
    %455 = chlo.square %454 : tensor<1x75600x5120xf32> -> tensor<1x75600x5120xf32>
    %cst_61 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %456 = stablehlo.reduce(%455 init: %cst_61) applies stablehlo.add across dimensions = [2] : (tensor<1x75600x5120xf32>, tensor<f32>) -> tensor<1x75600xf32>
    %457 = stablehlo.broadcast_in_dim %456, dims = [0, 1] : (tensor<1x75600xf32>) -> tensor<1x75600x1xf32>
    %cst_62 = stablehlo.constant dense<5.120000e+03> : tensor<f32>
    %458 = stablehlo.broadcast_in_dim %cst_62, dims = [] : (tensor<f32>) -> tensor<1x75600x1xf32>
    %459 = stablehlo.divide %457, %458 : tensor<1x75600x1xf32>
    %460 = stablehlo.broadcast_in_dim %452, dims = [0, 1, 2] : (tensor<1x75600x1xf32>) -> tensor<1x75600x5120xf32>
    %461 = stablehlo.subtract %442, %460 : tensor<1x75600x5120xf32>
    %cst_63 = stablehlo.constant dense<9.99999997E-7> : tensor<f32>
    %462 = stablehlo.broadcast_in_dim %cst_63, dims = [] : (tensor<f32>) -> tensor<1x75600x1xf32>
    %463 = stablehlo.add %459, %462 : tensor<1x75600x1xf32>
    %464 = stablehlo.rsqrt %463 : tensor<1x75600x1xf32>
    %465 = stablehlo.broadcast_in_dim %464, dims = [0, 1, 2] : (tensor<1x75600x1xf32>) -> tensor<1x75600x5120xf32>
    %466 = stablehlo.multiply %461, %465 : tensor<1x75600x5120xf32>
    %467 = stablehlo.broadcast_in_dim %448, dims = [0, 1, 2] : (tensor<1x1x5120xf32>) -> tensor<1x75600x5120xf32>
    %468 = stablehlo.multiply %466, %467 : tensor<1x75600x5120xf32>
    %469 = stablehlo.add %466, %468 : tensor<1x75600x5120xf32>
    %470 = stablehlo.broadcast_in_dim %447, dims = [0, 1, 2] : (tensor<1x1x5120xf32>) -> tensor<1x75600x5120xf32>
    %471 = stablehlo.add %469, %470 : tensor<1x75600x5120xf32>
    %472 = stablehlo.convert %471 : (tensor<1x75600x5120xf32>) -> tensor<1x75600x5120xbf16>
    %473 = stablehlo.dot_general %472, %arg28, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<1x75600x5120xbf16>, tensor<5120x64xbf16>) -> tensor<1x75600x64xbf16>
    %474 = stablehlo.broadcast_in_dim %arg27, dims = [2] : (tensor<64xbf16>) -> tensor<1x1x64xbf16>
    %475 = stablehlo.broadcast_in_dim %474, dims = [0, 1, 2] : (tensor<1x1x64xbf16>) -> tensor<1x75600x64xbf16>
    %476 = stablehlo.add %473, %475 : tensor<1x75600x64xbf16>
    %477 = sdy.sharding_constraint %476 <@mesh, [{}, {"ulysses"}, {}]> : tensor<1x75600x64xbf16>
    %478 = stablehlo.reshape %477 : (tensor<1x75600x64xbf16>) -> tensor<1x21x45x80x1x2x2x16xbf16>
    %479 = stablehlo.transpose %478, dims = [0, 7, 1, 4, 2, 5, 3, 6] : (tensor<1x21x45x80x1x2x2x16xbf16>) -> tensor<1x16x21x1x45x2x80x2xbf16>
    %480 = stablehlo.reshape %479 : (tensor<1x16x21x1x45x2x80x2xbf16>) -> tensor<1x16x21x90x160xbf16>
    %481 = stablehlo.convert %480 : (tensor<1x16x21x90x160xbf16>) -> tensor<1x16x21x90x160xf32>
    return %481 : tensor<1x16x21x90x160xf32>
  }
  func.func private @silu(%arg0: tensor<1x5120xf32>) -> tensor<1x5120xf32> {
    %0 = stablehlo.negate %arg0 : tensor<1x5120xf32>
    %1 = stablehlo.exponential %0 : tensor<1x5120xf32>
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<1x5120xf32>
    %3 = stablehlo.add %2, %1 : tensor<1x5120xf32>
    %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %4 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<1x5120xf32>
    %5 = stablehlo.divide %4, %3 : tensor<1x5120xf32>
    %6 = stablehlo.multiply %arg0, %5 : tensor<1x5120xf32>
    return %6 : tensor<1x5120xf32>
  }
}
