module @jit_forward attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<5120xbf16>, %arg1: tensor<5120x5120xbf16>, %arg2: tensor<5120xbf16>, %arg3: tensor<5120xbf16>, %arg4: tensor<5120xbf16>, %arg5: tensor<5120xbf16>, %arg6: tensor<5120xbf16>, %arg7: tensor<5120x5120xbf16>, %arg8: tensor<5120xbf16>, %arg9: tensor<5120x5120xbf16>, %arg10: tensor<5120xbf16>, %arg11: tensor<5120x5120xbf16>, %arg12: tensor<13824xbf16>, %arg13: tensor<5120x13824xbf16>, %arg14: tensor<5120xbf16>, %arg15: tensor<13824x5120xbf16>, %arg16: tensor<1x6x5120xbf16>, %arg17: tensor<5120xbf16>, %arg18: tensor<5120x5120xbf16>, %arg19: tensor<5120xbf16>, %arg20: tensor<5120xbf16>, %arg21: tensor<5120xbf16>, %arg22: tensor<5120x5120xbf16>, %arg23: tensor<5120xbf16>, %arg24: tensor<5120x5120xbf16>, %arg25: tensor<5120xbf16>, %arg26: tensor<5120x5120xbf16>, %arg27: tensor<64xbf16>, %arg28: tensor<5120x64xbf16>, %arg29: tensor<1x2x5120xbf16>, %arg30: tensor<5120xbf16>, %arg31: tensor<5120x16x1x2x2xbf16>, %arg32: tensor<5120xbf16>, %arg33: tensor<4096x5120xbf16>, %arg34: tensor<5120xbf16>, %arg35: tensor<5120x5120xbf16>, %arg36: tensor<5120xbf16>, %arg37: tensor<256x5120xbf16>, %arg38: tensor<5120xbf16>, %arg39: tensor<5120x5120xbf16>, %arg40: tensor<30720xbf16>, %arg41: tensor<5120x30720xbf16>, %arg42: tensor<1x16x21x90x160xf32>, %arg43: tensor<1xf32>, %arg44: tensor<1x512x4096xbf16>) -> (tensor<1x16x21x90x160xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.convert %arg42 : (tensor<1x16x21x90x160xf32>) -> tensor<1x16x21x90x160xbf16>
    %1 = stablehlo.convolution(%0, %arg31) dim_numbers = [b, f, 0, 1, 2]x[o, i, 0, 1, 2]->[b, f, 0, 1, 2], window = {stride = [1, 2, 2], pad = [[0, 0], [0, 0], [0, 0]], lhs_dilate = [1, 1, 1], rhs_dilate = [1, 1, 1], reverse = [false, false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<1x16x21x90x160xbf16>, tensor<5120x16x1x2x2xbf16>) -> tensor<1x5120x21x45x80xbf16>
    %2 = stablehlo.broadcast_in_dim %arg30, dims = [1] : (tensor<5120xbf16>) -> tensor<1x5120x1x1x1xbf16>
    %3 = stablehlo.broadcast_in_dim %2, dims = [0, 1, 2, 3, 4] : (tensor<1x5120x1x1x1xbf16>) -> tensor<1x5120x21x45x80xbf16>
    %4 = stablehlo.add %1, %3 : tensor<1x5120x21x45x80xbf16>
    %5 = stablehlo.reshape %4 : (tensor<1x5120x21x45x80xbf16>) -> tensor<1x5120x75600xbf16>
    %6 = stablehlo.transpose %5, dims = [0, 2, 1] : (tensor<1x5120x75600xbf16>) -> tensor<1x75600x5120xbf16>
    %7 = stablehlo.convert %6 : (tensor<1x75600x5120xbf16>) -> tensor<1x75600x5120xf32>
    %8 = stablehlo.iota dim = 0 : tensor<128xf32>
    %9 = stablehlo.negate %8 : tensor<128xf32>
    %cst = stablehlo.constant dense<1.280000e+02> : tensor<f32>
    %10 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<128xf32>
    %11 = stablehlo.divide %9, %10 : tensor<128xf32>
    %cst_0 = stablehlo.constant dense<1.000000e+04> : tensor<f32>
    %12 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<128xf32>
    %13 = stablehlo.power %12, %11 : tensor<128xf32>
    %14 = stablehlo.broadcast_in_dim %arg43, dims = [0] : (tensor<1xf32>) -> tensor<1x1xf32>
    %15 = stablehlo.broadcast_in_dim %13, dims = [1] : (tensor<128xf32>) -> tensor<1x128xf32>
    %16 = stablehlo.broadcast_in_dim %14, dims = [0, 1] : (tensor<1x1xf32>) -> tensor<1x128xf32>
    %17 = stablehlo.multiply %16, %15 : tensor<1x128xf32>
    %18 = stablehlo.cosine %17 : tensor<1x128xf32>
    %19 = stablehlo.sine %17 : tensor<1x128xf32>
    %20 = stablehlo.concatenate %18, %19, dim = 1 : (tensor<1x128xf32>, tensor<1x128xf32>) -> tensor<1x256xf32>
    %21 = stablehlo.convert %arg37 : (tensor<256x5120xbf16>) -> tensor<256x5120xf32>
    %22 = stablehlo.dot_general %20, %21, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<1x256xf32>, tensor<256x5120xf32>) -> tensor<1x5120xf32>
    %23 = stablehlo.convert %arg36 : (tensor<5120xbf16>) -> tensor<5120xf32>
    %24 = stablehlo.broadcast_in_dim %23, dims = [1] : (tensor<5120xf32>) -> tensor<1x5120xf32>
    %25 = stablehlo.add %22, %24 : tensor<1x5120xf32>
    %26 = call @silu(%25) : (tensor<1x5120xf32>) -> tensor<1x5120xf32>
    %27 = stablehlo.convert %arg39 : (tensor<5120x5120xbf16>) -> tensor<5120x5120xf32>
    %28 = stablehlo.dot_general %26, %27, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<1x5120xf32>, tensor<5120x5120xf32>) -> tensor<1x5120xf32>
    %29 = stablehlo.convert %arg38 : (tensor<5120xbf16>) -> tensor<5120xf32>
    %30 = stablehlo.broadcast_in_dim %29, dims = [1] : (tensor<5120xf32>) -> tensor<1x5120xf32>
    %31 = stablehlo.add %28, %30 : tensor<1x5120xf32>
    %32 = call @silu(%31) : (tensor<1x5120xf32>) -> tensor<1x5120xf32>
    %33 = stablehlo.convert %arg41 : (tensor<5120x30720xbf16>) -> tensor<5120x30720xf32>
    %34 = stablehlo.dot_general %32, %33, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<1x5120xf32>, tensor<5120x30720xf32>) -> tensor<1x30720xf32>
    %35 = stablehlo.convert %arg40 : (tensor<30720xbf16>) -> tensor<30720xf32>
    %36 = stablehlo.broadcast_in_dim %35, dims = [1] : (tensor<30720xf32>) -> tensor<1x30720xf32>
    %37 = stablehlo.add %34, %36 : tensor<1x30720xf32>
    %38 = stablehlo.reshape %37 : (tensor<1x30720xf32>) -> tensor<1x6x5120xf32>
    %39 = stablehlo.dot_general %arg44, %arg33, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<1x512x4096xbf16>, tensor<4096x5120xbf16>) -> tensor<1x512x5120xbf16>
    %40 = stablehlo.broadcast_in_dim %arg32, dims = [2] : (tensor<5120xbf16>) -> tensor<1x1x5120xbf16>
    %41 = stablehlo.broadcast_in_dim %40, dims = [0, 1, 2] : (tensor<1x1x5120xbf16>) -> tensor<1x512x5120xbf16>
    %42 = stablehlo.add %39, %41 : tensor<1x512x5120xbf16>
    %43 = stablehlo.multiply %42, %42 : tensor<1x512x5120xbf16>
    %44 = stablehlo.multiply %43, %42 : tensor<1x512x5120xbf16>
    %cst_1 = stablehlo.constant dense<4.467770e-02> : tensor<bf16>
    %45 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<bf16>) -> tensor<1x512x5120xbf16>
    %46 = stablehlo.multiply %45, %44 : tensor<1x512x5120xbf16>
    %47 = stablehlo.add %42, %46 : tensor<1x512x5120xbf16>
    %cst_2 = stablehlo.constant dense<7.968750e-01> : tensor<bf16>
    %48 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<bf16>) -> tensor<1x512x5120xbf16>
    %49 = stablehlo.multiply %48, %47 : tensor<1x512x5120xbf16>
    %50 = stablehlo.tanh %49 : tensor<1x512x5120xbf16>
    %cst_3 = stablehlo.constant dense<1.000000e+00> : tensor<bf16>
    %51 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<bf16>) -> tensor<1x512x5120xbf16>
    %52 = stablehlo.add %51, %50 : tensor<1x512x5120xbf16>
    %cst_4 = stablehlo.constant dense<5.000000e-01> : tensor<bf16>
    %53 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<bf16>) -> tensor<1x512x5120xbf16>
    %54 = stablehlo.multiply %53, %52 : tensor<1x512x5120xbf16>
    %55 = stablehlo.multiply %42, %54 : tensor<1x512x5120xbf16>
    %56 = stablehlo.dot_general %55, %arg35, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<1x512x5120xbf16>, tensor<5120x5120xbf16>) -> tensor<1x512x5120xbf16>
    %57 = stablehlo.broadcast_in_dim %arg34, dims = [2] : (tensor<5120xbf16>) -> tensor<1x1x5120xbf16>
    %58 = stablehlo.broadcast_in_dim %57, dims = [0, 1, 2] : (tensor<1x1x5120xbf16>) -> tensor<1x512x5120xbf16>
    %59 = stablehlo.add %56, %58 : tensor<1x512x5120xbf16>
    %60 = stablehlo.iota dim = 0 : tensor<21xf32>
    %61 = stablehlo.iota dim = 0 : tensor<22xf32>
    %cst_5 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %62 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<22xf32>
    %63 = stablehlo.multiply %62, %61 : tensor<22xf32>
    %cst_6 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %64 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<f32>) -> tensor<22xf32>
    %65 = stablehlo.add %64, %63 : tensor<22xf32>
    %cst_7 = stablehlo.constant dense<4.400000e+01> : tensor<f32>
    %66 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<22xf32>
    %67 = stablehlo.divide %65, %66 : tensor<22xf32>
    %cst_8 = stablehlo.constant dense<1.000000e+04> : tensor<f32>
    %68 = stablehlo.broadcast_in_dim %cst_8, dims = [] : (tensor<f32>) -> tensor<22xf32>
    %69 = stablehlo.power %68, %67 : tensor<22xf32>
    %cst_9 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %70 = stablehlo.broadcast_in_dim %cst_9, dims = [] : (tensor<f32>) -> tensor<22xf32>
    %71 = stablehlo.divide %70, %69 : tensor<22xf32>
    %72 = stablehlo.broadcast_in_dim %60, dims = [0] : (tensor<21xf32>) -> tensor<21x1xf32>
    %73 = stablehlo.broadcast_in_dim %71, dims = [1] : (tensor<22xf32>) -> tensor<1x22xf32>
    %74 = stablehlo.broadcast_in_dim %72, dims = [0, 1] : (tensor<21x1xf32>) -> tensor<21x22xf32>
    %75 = stablehlo.broadcast_in_dim %73, dims = [0, 1] : (tensor<1x22xf32>) -> tensor<21x22xf32>
    %76 = stablehlo.multiply %74, %75 : tensor<21x22xf32>
    %77 = stablehlo.iota dim = 0 : tensor<45xf32>
    %78 = stablehlo.iota dim = 0 : tensor<21xf32>
    %cst_10 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %79 = stablehlo.broadcast_in_dim %cst_10, dims = [] : (tensor<f32>) -> tensor<21xf32>
    %80 = stablehlo.multiply %79, %78 : tensor<21xf32>
    %cst_11 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %81 = stablehlo.broadcast_in_dim %cst_11, dims = [] : (tensor<f32>) -> tensor<21xf32>
    %82 = stablehlo.add %81, %80 : tensor<21xf32>
    %cst_12 = stablehlo.constant dense<4.200000e+01> : tensor<f32>
    %83 = stablehlo.broadcast_in_dim %cst_12, dims = [] : (tensor<f32>) -> tensor<21xf32>
    %84 = stablehlo.divide %82, %83 : tensor<21xf32>
    %cst_13 = stablehlo.constant dense<1.000000e+04> : tensor<f32>
    %85 = stablehlo.broadcast_in_dim %cst_13, dims = [] : (tensor<f32>) -> tensor<21xf32>
    %86 = stablehlo.power %85, %84 : tensor<21xf32>
    %cst_14 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %87 = stablehlo.broadcast_in_dim %cst_14, dims = [] : (tensor<f32>) -> tensor<21xf32>
    %88 = stablehlo.divide %87, %86 : tensor<21xf32>
    %89 = stablehlo.broadcast_in_dim %77, dims = [0] : (tensor<45xf32>) -> tensor<45x1xf32>
    %90 = stablehlo.broadcast_in_dim %88, dims = [1] : (tensor<21xf32>) -> tensor<1x21xf32>
    %91 = stablehlo.broadcast_in_dim %89, dims = [0, 1] : (tensor<45x1xf32>) -> tensor<45x21xf32>
    %92 = stablehlo.broadcast_in_dim %90, dims = [0, 1] : (tensor<1x21xf32>) -> tensor<45x21xf32>
    %93 = stablehlo.multiply %91, %92 : tensor<45x21xf32>
    %94 = stablehlo.iota dim = 0 : tensor<80xf32>
    %95 = stablehlo.iota dim = 0 : tensor<21xf32>
    %cst_15 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %96 = stablehlo.broadcast_in_dim %cst_15, dims = [] : (tensor<f32>) -> tensor<21xf32>
    %97 = stablehlo.multiply %96, %95 : tensor<21xf32>
    %cst_16 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %98 = stablehlo.broadcast_in_dim %cst_16, dims = [] : (tensor<f32>) -> tensor<21xf32>
    %99 = stablehlo.add %98, %97 : tensor<21xf32>
    %cst_17 = stablehlo.constant dense<4.200000e+01> : tensor<f32>
    %100 = stablehlo.broadcast_in_dim %cst_17, dims = [] : (tensor<f32>) -> tensor<21xf32>
    %101 = stablehlo.divide %99, %100 : tensor<21xf32>
    %cst_18 = stablehlo.constant dense<1.000000e+04> : tensor<f32>
    %102 = stablehlo.broadcast_in_dim %cst_18, dims = [] : (tensor<f32>) -> tensor<21xf32>
    %103 = stablehlo.power %102, %101 : tensor<21xf32>
    %cst_19 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %104 = stablehlo.broadcast_in_dim %cst_19, dims = [] : (tensor<f32>) -> tensor<21xf32>
    %105 = stablehlo.divide %104, %103 : tensor<21xf32>
    %106 = stablehlo.broadcast_in_dim %94, dims = [0] : (tensor<80xf32>) -> tensor<80x1xf32>
    %107 = stablehlo.broadcast_in_dim %105, dims = [1] : (tensor<21xf32>) -> tensor<1x21xf32>
    %108 = stablehlo.broadcast_in_dim %106, dims = [0, 1] : (tensor<80x1xf32>) -> tensor<80x21xf32>
    %109 = stablehlo.broadcast_in_dim %107, dims = [0, 1] : (tensor<1x21xf32>) -> tensor<80x21xf32>
    %110 = stablehlo.multiply %108, %109 : tensor<80x21xf32>
    %111 = stablehlo.broadcast_in_dim %76, dims = [0, 3] : (tensor<21x22xf32>) -> tensor<21x1x1x22xf32>
    %112 = stablehlo.broadcast_in_dim %111, dims = [0, 1, 2, 3] : (tensor<21x1x1x22xf32>) -> tensor<21x45x80x22xf32>
    %113 = stablehlo.broadcast_in_dim %93, dims = [1, 3] : (tensor<45x21xf32>) -> tensor<1x45x1x21xf32>
    %114 = stablehlo.broadcast_in_dim %113, dims = [0, 1, 2, 3] : (tensor<1x45x1x21xf32>) -> tensor<21x45x80x21xf32>
    %115 = stablehlo.broadcast_in_dim %110, dims = [2, 3] : (tensor<80x21xf32>) -> tensor<1x1x80x21xf32>
    %116 = stablehlo.broadcast_in_dim %115, dims = [0, 1, 2, 3] : (tensor<1x1x80x21xf32>) -> tensor<21x45x80x21xf32>
    %117 = stablehlo.concatenate %112, %114, %116, dim = 3 : (tensor<21x45x80x22xf32>, tensor<21x45x80x21xf32>, tensor<21x45x80x21xf32>) -> tensor<21x45x80x64xf32>
    %118 = stablehlo.reshape %117 : (tensor<21x45x80x64xf32>) -> tensor<75600x64xf32>
    %119 = stablehlo.convert %arg16 : (tensor<1x6x5120xbf16>) -> tensor<1x6x5120xf32>
    %120 = stablehlo.add %119, %38 : tensor<1x6x5120xf32>
    %121 = stablehlo.slice %120 [0:1, 0:1, 0:5120] : (tensor<1x6x5120xf32>) -> tensor<1x1x5120xf32>
    %122 = stablehlo.slice %120 [0:1, 1:2, 0:5120] : (tensor<1x6x5120xf32>) -> tensor<1x1x5120xf32>
    %123 = stablehlo.slice %120 [0:1, 2:3, 0:5120] : (tensor<1x6x5120xf32>) -> tensor<1x1x5120xf32>
    %124 = stablehlo.slice %120 [0:1, 3:4, 0:5120] : (tensor<1x6x5120xf32>) -> tensor<1x1x5120xf32>
    %125 = stablehlo.slice %120 [0:1, 4:5, 0:5120] : (tensor<1x6x5120xf32>) -> tensor<1x1x5120xf32>
    %126 = stablehlo.slice %120 [0:1, 5:6, 0:5120] : (tensor<1x6x5120xf32>) -> tensor<1x1x5120xf32>
    %cst_20 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %127 = stablehlo.reduce(%7 init: %cst_20) applies stablehlo.add across dimensions = [2] : (tensor<1x75600x5120xf32>, tensor<f32>) -> tensor<1x75600xf32>
    %128 = stablehlo.broadcast_in_dim %127, dims = [0, 1] : (tensor<1x75600xf32>) -> tensor<1x75600x1xf32>
    %cst_21 = stablehlo.constant dense<5.120000e+03> : tensor<f32>
    %129 = stablehlo.broadcast_in_dim %cst_21, dims = [] : (tensor<f32>) -> tensor<1x75600x1xf32>
    %130 = stablehlo.divide %128, %129 : tensor<1x75600x1xf32>
    %131 = stablehlo.broadcast_in_dim %130, dims = [0, 1, 2] : (tensor<1x75600x1xf32>) -> tensor<1x75600x5120xf32>
    %132 = stablehlo.subtract %7, %131 : tensor<1x75600x5120xf32>
    %133 = chlo.square %132 : tensor<1x75600x5120xf32> -> tensor<1x75600x5120xf32>
    %cst_22 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %134 = stablehlo.reduce(%133 init: %cst_22) applies stablehlo.add across dimensions = [2] : (tensor<1x75600x5120xf32>, tensor<f32>) -> tensor<1x75600xf32>
    %135 = stablehlo.broadcast_in_dim %134, dims = [0, 1] : (tensor<1x75600xf32>) -> tensor<1x75600x1xf32>
    %cst_23 = stablehlo.constant dense<5.120000e+03> : tensor<f32>
    %136 = stablehlo.broadcast_in_dim %cst_23, dims = [] : (tensor<f32>) -> tensor<1x75600x1xf32>
    %137 = stablehlo.divide %135, %136 : tensor<1x75600x1xf32>
    %138 = stablehlo.broadcast_in_dim %130, dims = [0, 1, 2] : (tensor<1x75600x1xf32>) -> tensor<1x75600x5120xf32>
    %139 = stablehlo.subtract %7, %138 : tensor<1x75600x5120xf32>
    %cst_24 = stablehlo.constant dense<9.99999997E-7> : tensor<f32>
    %140 = stablehlo.broadcast_in_dim %cst_24, dims = [] : (tensor<f32>) -> tensor<1x75600x1xf32>
    %141 = stablehlo.add %137, %140 : tensor<1x75600x1xf32>
    %142 = stablehlo.rsqrt %141 : tensor<1x75600x1xf32>
    %143 = stablehlo.broadcast_in_dim %142, dims = [0, 1, 2] : (tensor<1x75600x1xf32>) -> tensor<1x75600x5120xf32>
    %144 = stablehlo.multiply %139, %143 : tensor<1x75600x5120xf32>
    %145 = stablehlo.broadcast_in_dim %122, dims = [0, 1, 2] : (tensor<1x1x5120xf32>) -> tensor<1x75600x5120xf32>
    %146 = stablehlo.multiply %144, %145 : tensor<1x75600x5120xf32>
    %147 = stablehlo.add %144, %146 : tensor<1x75600x5120xf32>
    %148 = stablehlo.broadcast_in_dim %121, dims = [0, 1, 2] : (tensor<1x1x5120xf32>) -> tensor<1x75600x5120xf32>
    %149 = stablehlo.add %147, %148 : tensor<1x75600x5120xf32>
    %150 = stablehlo.convert %149 : (tensor<1x75600x5120xf32>) -> tensor<1x75600x5120xbf16>
    %151 = stablehlo.dot_general %150, %arg24, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<1x75600x5120xbf16>, tensor<5120x5120xbf16>) -> tensor<1x75600x5120xbf16>
    %152 = stablehlo.broadcast_in_dim %arg23, dims = [2] : (tensor<5120xbf16>) -> tensor<1x1x5120xbf16>
    %153 = stablehlo.broadcast_in_dim %152, dims = [0, 1, 2] : (tensor<1x1x5120xbf16>) -> tensor<1x75600x5120xbf16>
    %154 = stablehlo.add %151, %153 : tensor<1x75600x5120xbf16>
    %155 = stablehlo.convert %154 : (tensor<1x75600x5120xbf16>) -> tensor<1x75600x5120xf32>
    %156 = chlo.square %155 : tensor<1x75600x5120xf32> -> tensor<1x75600x5120xf32>
    %cst_25 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %157 = stablehlo.reduce(%156 init: %cst_25) applies stablehlo.add across dimensions = [2] : (tensor<1x75600x5120xf32>, tensor<f32>) -> tensor<1x75600xf32>
    %158 = stablehlo.broadcast_in_dim %157, dims = [0, 1] : (tensor<1x75600xf32>) -> tensor<1x75600x1xf32>
    %cst_26 = stablehlo.constant dense<5.120000e+03> : tensor<f32>
    %159 = stablehlo.broadcast_in_dim %cst_26, dims = [] : (tensor<f32>) -> tensor<1x75600x1xf32>
    %160 = stablehlo.divide %158, %159 : tensor<1x75600x1xf32>
    %cst_27 = stablehlo.constant dense<9.99999997E-7> : tensor<f32>
    %161 = stablehlo.broadcast_in_dim %cst_27, dims = [] : (tensor<f32>) -> tensor<1x75600x1xf32>
    %162 = stablehlo.add %160, %161 : tensor<1x75600x1xf32>
    %163 = stablehlo.rsqrt %162 : tensor<1x75600x1xf32>
    %164 = stablehlo.broadcast_in_dim %163, dims = [0, 1, 2] : (tensor<1x75600x1xf32>) -> tensor<1x75600x5120xf32>
    %165 = stablehlo.multiply %155, %164 : tensor<1x75600x5120xf32>
    %166 = stablehlo.convert %165 : (tensor<1x75600x5120xf32>) -> tensor<1x75600x5120xbf16>
    %167 = stablehlo.broadcast_in_dim %arg20, dims = [2] : (tensor<5120xbf16>) -> tensor<1x1x5120xbf16>
    %168 = stablehlo.broadcast_in_dim %167, dims = [0, 1, 2] : (tensor<1x1x5120xbf16>) -> tensor<1x75600x5120xbf16>
    %169 = stablehlo.multiply %166, %168 : tensor<1x75600x5120xbf16>
    %170 = stablehlo.dot_general %150, %arg18, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<1x75600x5120xbf16>, tensor<5120x5120xbf16>) -> tensor<1x75600x5120xbf16>
    %171 = stablehlo.broadcast_in_dim %arg17, dims = [2] : (tensor<5120xbf16>) -> tensor<1x1x5120xbf16>
    %172 = stablehlo.broadcast_in_dim %171, dims = [0, 1, 2] : (tensor<1x1x5120xbf16>) -> tensor<1x75600x5120xbf16>
    %173 = stablehlo.add %170, %172 : tensor<1x75600x5120xbf16>
    %174 = stablehlo.convert %173 : (tensor<1x75600x5120xbf16>) -> tensor<1x75600x5120xf32>
    %175 = chlo.square %174 : tensor<1x75600x5120xf32> -> tensor<1x75600x5120xf32>
    %cst_28 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %176 = stablehlo.reduce(%175 init: %cst_28) applies stablehlo.add across dimensions = [2] : (tensor<1x75600x5120xf32>, tensor<f32>) -> tensor<1x75600xf32>
    %177 = stablehlo.broadcast_in_dim %176, dims = [0, 1] : (tensor<1x75600xf32>) -> tensor<1x75600x1xf32>
    %cst_29 = stablehlo.constant dense<5.120000e+03> : tensor<f32>
    %178 = stablehlo.broadcast_in_dim %cst_29, dims = [] : (tensor<f32>) -> tensor<1x75600x1xf32>
    %179 = stablehlo.divide %177, %178 : tensor<1x75600x1xf32>
    %cst_30 = stablehlo.constant dense<9.99999997E-7> : tensor<f32>
    %180 = stablehlo.broadcast_in_dim %cst_30, dims = [] : (tensor<f32>) -> tensor<1x75600x1xf32>
    %181 = stablehlo.add %179, %180 : tensor<1x75600x1xf32>
    %182 = stablehlo.rsqrt %181 : tensor<1x75600x1xf32>
    %183 = stablehlo.broadcast_in_dim %182, dims = [0, 1, 2] : (tensor<1x75600x1xf32>) -> tensor<1x75600x5120xf32>
    %184 = stablehlo.multiply %174, %183 : tensor<1x75600x5120xf32>
    %185 = stablehlo.convert %184 : (tensor<1x75600x5120xf32>) -> tensor<1x75600x5120xbf16>
    %186 = stablehlo.broadcast_in_dim %arg19, dims = [2] : (tensor<5120xbf16>) -> tensor<1x1x5120xbf16>
    %187 = stablehlo.broadcast_in_dim %186, dims = [0, 1, 2] : (tensor<1x1x5120xbf16>) -> tensor<1x75600x5120xbf16>
    %188 = stablehlo.multiply %185, %187 : tensor<1x75600x5120xbf16>
    %189 = stablehlo.dot_general %150, %arg26, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<1x75600x5120xbf16>, tensor<5120x5120xbf16>) -> tensor<1x75600x5120xbf16>
    %190 = stablehlo.broadcast_in_dim %arg25, dims = [2] : (tensor<5120xbf16>) -> tensor<1x1x5120xbf16>
    %191 = stablehlo.broadcast_in_dim %190, dims = [0, 1, 2] : (tensor<1x1x5120xbf16>) -> tensor<1x75600x5120xbf16>
    %192 = stablehlo.add %189, %191 : tensor<1x75600x5120xbf16>
    %193 = stablehlo.reshape %169 : (tensor<1x75600x5120xbf16>) -> tensor<1x75600x40x128xbf16>
    %194 = stablehlo.convert %193 : (tensor<1x75600x40x128xbf16>) -> tensor<1x75600x40x128xf32>
    %195 = stablehlo.reshape %194 : (tensor<1x75600x40x128xf32>) -> tensor<1x75600x40x64x2xf32>
    %196 = stablehlo.cosine %118 : tensor<75600x64xf32>
    %197 = stablehlo.broadcast_in_dim %196, dims = [1, 3] : (tensor<75600x64xf32>) -> tensor<1x75600x1x64xf32>
    %198 = stablehlo.sine %118 : tensor<75600x64xf32>
    %199 = stablehlo.broadcast_in_dim %198, dims = [1, 3] : (tensor<75600x64xf32>) -> tensor<1x75600x1x64xf32>
    %200 = stablehlo.slice %195 [0:1, 0:75600, 0:40, 0:64, 0:1] : (tensor<1x75600x40x64x2xf32>) -> tensor<1x75600x40x64x1xf32>
    %201 = stablehlo.reshape %200 : (tensor<1x75600x40x64x1xf32>) -> tensor<1x75600x40x64xf32>
    %202 = stablehlo.slice %195 [0:1, 0:75600, 0:40, 0:64, 1:2] : (tensor<1x75600x40x64x2xf32>) -> tensor<1x75600x40x64x1xf32>
    %203 = stablehlo.reshape %202 : (tensor<1x75600x40x64x1xf32>) -> tensor<1x75600x40x64xf32>
    %204 = stablehlo.broadcast_in_dim %197, dims = [0, 1, 2, 3] : (tensor<1x75600x1x64xf32>) -> tensor<1x75600x40x64xf32>
    %205 = stablehlo.multiply %201, %204 : tensor<1x75600x40x64xf32>
    %206 = stablehlo.broadcast_in_dim %199, dims = [0, 1, 2, 3] : (tensor<1x75600x1x64xf32>) -> tensor<1x75600x40x64xf32>
    %207 = stablehlo.multiply %203, %206 : tensor<1x75600x40x64xf32>
    %208 = stablehlo.subtract %205, %207 : tensor<1x75600x40x64xf32>
    %209 = stablehlo.broadcast_in_dim %199, dims = [0, 1, 2, 3] : (tensor<1x75600x1x64xf32>) -> tensor<1x75600x40x64xf32>
    %210 = stablehlo.multiply %201, %209 : tensor<1x75600x40x64xf32>
    %211 = stablehlo.broadcast_in_dim %197, dims = [0, 1, 2, 3] : (tensor<1x75600x1x64xf32>) -> tensor<1x75600x40x64xf32>
    %212 = stablehlo.multiply %203, %211 : tensor<1x75600x40x64xf32>
    %213 = stablehlo.add %210, %212 : tensor<1x75600x40x64xf32>
    %214 = stablehlo.broadcast_in_dim %208, dims = [0, 1, 2, 3] : (tensor<1x75600x40x64xf32>) -> tensor<1x75600x40x64x1xf32>
    %215 = stablehlo.broadcast_in_dim %213, dims = [0, 1, 2, 3] : (tensor<1x75600x40x64xf32>) -> tensor<1x75600x40x64x1xf32>
    %216 = stablehlo.concatenate %214, %215, dim = 4 : (tensor<1x75600x40x64x1xf32>, tensor<1x75600x40x64x1xf32>) -> tensor<1x75600x40x64x2xf32>
    %217 = stablehlo.reshape %216 : (tensor<1x75600x40x64x2xf32>) -> tensor<1x75600x40x128xf32>
    %218 = stablehlo.convert %217 : (tensor<1x75600x40x128xf32>) -> tensor<1x75600x40x128xbf16>
    %219 = stablehlo.reshape %188 : (tensor<1x75600x5120xbf16>) -> tensor<1x75600x40x128xbf16>
    %220 = stablehlo.convert %219 : (tensor<1x75600x40x128xbf16>) -> tensor<1x75600x40x128xf32>
    %221 = stablehlo.reshape %220 : (tensor<1x75600x40x128xf32>) -> tensor<1x75600x40x64x2xf32>
    %222 = stablehlo.cosine %118 : tensor<75600x64xf32>
    %223 = stablehlo.broadcast_in_dim %222, dims = [1, 3] : (tensor<75600x64xf32>) -> tensor<1x75600x1x64xf32>
    %224 = stablehlo.sine %118 : tensor<75600x64xf32>
    %225 = stablehlo.broadcast_in_dim %224, dims = [1, 3] : (tensor<75600x64xf32>) -> tensor<1x75600x1x64xf32>
    %226 = stablehlo.slice %221 [0:1, 0:75600, 0:40, 0:64, 0:1] : (tensor<1x75600x40x64x2xf32>) -> tensor<1x75600x40x64x1xf32>
    %227 = stablehlo.reshape %226 : (tensor<1x75600x40x64x1xf32>) -> tensor<1x75600x40x64xf32>
    %228 = stablehlo.slice %221 [0:1, 0:75600, 0:40, 0:64, 1:2] : (tensor<1x75600x40x64x2xf32>) -> tensor<1x75600x40x64x1xf32>
    %229 = stablehlo.reshape %228 : (tensor<1x75600x40x64x1xf32>) -> tensor<1x75600x40x64xf32>
    %230 = stablehlo.broadcast_in_dim %223, dims = [0, 1, 2, 3] : (tensor<1x75600x1x64xf32>) -> tensor<1x75600x40x64xf32>
    %231 = stablehlo.multiply %227, %230 : tensor<1x75600x40x64xf32>
    %232 = stablehlo.broadcast_in_dim %225, dims = [0, 1, 2, 3] : (tensor<1x75600x1x64xf32>) -> tensor<1x75600x40x64xf32>
    %233 = stablehlo.multiply %229, %232 : tensor<1x75600x40x64xf32>
    %234 = stablehlo.subtract %231, %233 : tensor<1x75600x40x64xf32>
    %235 = stablehlo.broadcast_in_dim %225, dims = [0, 1, 2, 3] : (tensor<1x75600x1x64xf32>) -> tensor<1x75600x40x64xf32>
    %236 = stablehlo.multiply %227, %235 : tensor<1x75600x40x64xf32>
    %237 = stablehlo.broadcast_in_dim %223, dims = [0, 1, 2, 3] : (tensor<1x75600x1x64xf32>) -> tensor<1x75600x40x64xf32>
    %238 = stablehlo.multiply %229, %237 : tensor<1x75600x40x64xf32>
    %239 = stablehlo.add %236, %238 : tensor<1x75600x40x64xf32>
    %240 = stablehlo.broadcast_in_dim %234, dims = [0, 1, 2, 3] : (tensor<1x75600x40x64xf32>) -> tensor<1x75600x40x64x1xf32>
    %241 = stablehlo.broadcast_in_dim %239, dims = [0, 1, 2, 3] : (tensor<1x75600x40x64xf32>) -> tensor<1x75600x40x64x1xf32>
    %242 = stablehlo.concatenate %240, %241, dim = 4 : (tensor<1x75600x40x64x1xf32>, tensor<1x75600x40x64x1xf32>) -> tensor<1x75600x40x64x2xf32>
    %243 = stablehlo.reshape %242 : (tensor<1x75600x40x64x2xf32>) -> tensor<1x75600x40x128xf32>
    %244 = stablehlo.convert %243 : (tensor<1x75600x40x128xf32>) -> tensor<1x75600x40x128xbf16>
    %245 = stablehlo.reshape %192 : (tensor<1x75600x5120xbf16>) -> tensor<1x75600x40x128xbf16>
    %246 = stablehlo.dot_general %218, %244, batching_dims = [0, 2] x [0, 2], contracting_dims = [3] x [3], precision = [DEFAULT, DEFAULT] : (tensor<1x75600x40x128xbf16>, tensor<1x75600x40x128xbf16>) -> tensor<1x40x75600x75600xf32>
    %cst_31 = stablehlo.constant dense<0.0883883461> : tensor<f32>
    %247 = stablehlo.broadcast_in_dim %cst_31, dims = [] : (tensor<f32>) -> tensor<1x40x75600x75600xf32>
    %248 = stablehlo.multiply %246, %247 : tensor<1x40x75600x75600xf32>
    %cst_32 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %249 = stablehlo.reduce(%248 init: %cst_32) applies stablehlo.maximum across dimensions = [3] : (tensor<1x40x75600x75600xf32>, tensor<f32>) -> tensor<1x40x75600xf32>
    %cst_33 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %250 = stablehlo.broadcast_in_dim %cst_33, dims = [] : (tensor<f32>) -> tensor<1x40x75600xf32>
    %251 = stablehlo.maximum %250, %249 : tensor<1x40x75600xf32>
    %252 = stablehlo.broadcast_in_dim %251, dims = [0, 1, 2] : (tensor<1x40x75600xf32>) -> tensor<1x40x75600x1xf32>
    %253 = stablehlo.broadcast_in_dim %252, dims = [0, 1, 2, 3] : (tensor<1x40x75600x1xf32>) -> tensor<1x40x75600x75600xf32>
    %254 = stablehlo.subtract %248, %253 : tensor<1x40x75600x75600xf32>
    %255 = stablehlo.exponential %254 : tensor<1x40x75600x75600xf32>
    %cst_34 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %256 = stablehlo.reduce(%255 init: %cst_34) applies stablehlo.add across dimensions = [3] : (tensor<1x40x75600x75600xf32>, tensor<f32>) -> tensor<1x40x75600xf32>
    %257 = stablehlo.broadcast_in_dim %256, dims = [0, 1, 2] : (tensor<1x40x75600xf32>) -> tensor<1x40x75600x1xf32>
    %258 = stablehlo.broadcast_in_dim %257, dims = [0, 1, 2, 3] : (tensor<1x40x75600x1xf32>) -> tensor<1x40x75600x75600xf32>
    %259 = stablehlo.divide %255, %258 : tensor<1x40x75600x75600xf32>
    %260 = stablehlo.convert %259 : (tensor<1x40x75600x75600xf32>) -> tensor<1x40x75600x75600xbf16>
    %261 = stablehlo.dot_general %245, %260, batching_dims = [0, 2] x [0, 1], contracting_dims = [1] x [3], precision = [DEFAULT, DEFAULT] : (tensor<1x75600x40x128xbf16>, tensor<1x40x75600x75600xbf16>) -> tensor<1x40x128x75600xbf16>
    %262 = stablehlo.transpose %261, dims = [0, 3, 1, 2] : (tensor<1x40x128x75600xbf16>) -> tensor<1x75600x40x128xbf16>
    %263 = stablehlo.reshape %262 : (tensor<1x75600x40x128xbf16>) -> tensor<1x75600x5120xbf16>
    %264 = stablehlo.dot_general %263, %arg22, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<1x75600x5120xbf16>, tensor<5120x5120xbf16>) -> tensor<1x75600x5120xbf16>
    %265 = stablehlo.broadcast_in_dim %arg21, dims = [2] : (tensor<5120xbf16>) -> tensor<1x1x5120xbf16>
    %266 = stablehlo.broadcast_in_dim %265, dims = [0, 1, 2] : (tensor<1x1x5120xbf16>) -> tensor<1x75600x5120xbf16>
    %267 = stablehlo.add %264, %266 : tensor<1x75600x5120xbf16>
    %268 = stablehlo.convert %267 : (tensor<1x75600x5120xbf16>) -> tensor<1x75600x5120xf32>
    %269 = stablehlo.broadcast_in_dim %123, dims = [0, 1, 2] : (tensor<1x1x5120xf32>) -> tensor<1x75600x5120xf32>
    %270 = stablehlo.multiply %268, %269 : tensor<1x75600x5120xf32>
    %271 = stablehlo.add %7, %270 : tensor<1x75600x5120xf32>
    %cst_35 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %272 = stablehlo.reduce(%271 init: %cst_35) applies stablehlo.add across dimensions = [2] : (tensor<1x75600x5120xf32>, tensor<f32>) -> tensor<1x75600xf32>
    %273 = stablehlo.broadcast_in_dim %272, dims = [0, 1] : (tensor<1x75600xf32>) -> tensor<1x75600x1xf32>
    %cst_36 = stablehlo.constant dense<5.120000e+03> : tensor<f32>
    %274 = stablehlo.broadcast_in_dim %cst_36, dims = [] : (tensor<f32>) -> tensor<1x75600x1xf32>
    %275 = stablehlo.divide %273, %274 : tensor<1x75600x1xf32>
    %276 = stablehlo.broadcast_in_dim %275, dims = [0, 1, 2] : (tensor<1x75600x1xf32>) -> tensor<1x75600x5120xf32>
    %277 = stablehlo.subtract %271, %276 : tensor<1x75600x5120xf32>
    %278 = chlo.square %277 : tensor<1x75600x5120xf32> -> tensor<1x75600x5120xf32>
    %cst_37 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %279 = stablehlo.reduce(%278 init: %cst_37) applies stablehlo.add across dimensions = [2] : (tensor<1x75600x5120xf32>, tensor<f32>) -> tensor<1x75600xf32>
    %280 = stablehlo.broadcast_in_dim %279, dims = [0, 1] : (tensor<1x75600xf32>) -> tensor<1x75600x1xf32>
    %cst_38 = stablehlo.constant dense<5.120000e+03> : tensor<f32>
    %281 = stablehlo.broadcast_in_dim %cst_38, dims = [] : (tensor<f32>) -> tensor<1x75600x1xf32>
    %282 = stablehlo.divide %280, %281 : tensor<1x75600x1xf32>
    %283 = stablehlo.broadcast_in_dim %275, dims = [0, 1, 2] : (tensor<1x75600x1xf32>) -> tensor<1x75600x5120xf32>
    %284 = stablehlo.subtract %271, %283 : tensor<1x75600x5120xf32>
    %cst_39 = stablehlo.constant dense<9.99999997E-7> : tensor<f32>
    %285 = stablehlo.broadcast_in_dim %cst_39, dims = [] : (tensor<f32>) -> tensor<1x75600x1xf32>
    %286 = stablehlo.add %282, %285 : tensor<1x75600x1xf32>
    %287 = stablehlo.rsqrt %286 : tensor<1x75600x1xf32>
    %288 = stablehlo.broadcast_in_dim %287, dims = [0, 1, 2] : (tensor<1x75600x1xf32>) -> tensor<1x75600x5120xf32>
    %289 = stablehlo.multiply %284, %288 : tensor<1x75600x5120xf32>
    %290 = stablehlo.convert %arg3 : (tensor<5120xbf16>) -> tensor<5120xf32>
    %291 = stablehlo.broadcast_in_dim %290, dims = [2] : (tensor<5120xf32>) -> tensor<1x1x5120xf32>
    %292 = stablehlo.broadcast_in_dim %291, dims = [0, 1, 2] : (tensor<1x1x5120xf32>) -> tensor<1x75600x5120xf32>
    %293 = stablehlo.multiply %289, %292 : tensor<1x75600x5120xf32>
    %294 = stablehlo.convert %arg2 : (tensor<5120xbf16>) -> tensor<5120xf32>
    %295 = stablehlo.broadcast_in_dim %294, dims = [2] : (tensor<5120xf32>) -> tensor<1x1x5120xf32>
    %296 = stablehlo.broadcast_in_dim %295, dims = [0, 1, 2] : (tensor<1x1x5120xf32>) -> tensor<1x75600x5120xf32>
    %297 = stablehlo.add %293, %296 : tensor<1x75600x5120xf32>
    %298 = stablehlo.convert %297 : (tensor<1x75600x5120xf32>) -> tensor<1x75600x5120xbf16>
    %299 = stablehlo.dot_general %298, %arg9, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<1x75600x5120xbf16>, tensor<5120x5120xbf16>) -> tensor<1x75600x5120xbf16>
    %300 = stablehlo.broadcast_in_dim %arg8, dims = [2] : (tensor<5120xbf16>) -> tensor<1x1x5120xbf16>
    %301 = stablehlo.broadcast_in_dim %300, dims = [0, 1, 2] : (tensor<1x1x5120xbf16>) -> tensor<1x75600x5120xbf16>
    %302 = stablehlo.add %299, %301 : tensor<1x75600x5120xbf16>
    %303 = stablehlo.convert %302 : (tensor<1x75600x5120xbf16>) -> tensor<1x75600x5120xf32>
    %304 = chlo.square %303 : tensor<1x75600x5120xf32> -> tensor<1x75600x5120xf32>
    %cst_40 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %305 = stablehlo.reduce(%304 init: %cst_40) applies stablehlo.add across dimensions = [2] : (tensor<1x75600x5120xf32>, tensor<f32>) -> tensor<1x75600xf32>
    %306 = stablehlo.broadcast_in_dim %305, dims = [0, 1] : (tensor<1x75600xf32>) -> tensor<1x75600x1xf32>
    %cst_41 = stablehlo.constant dense<5.120000e+03> : tensor<f32>
    %307 = stablehlo.broadcast_in_dim %cst_41, dims = [] : (tensor<f32>) -> tensor<1x75600x1xf32>
    %308 = stablehlo.divide %306, %307 : tensor<1x75600x1xf32>
    %cst_42 = stablehlo.constant dense<9.99999997E-7> : tensor<f32>
    %309 = stablehlo.broadcast_in_dim %cst_42, dims = [] : (tensor<f32>) -> tensor<1x75600x1xf32>
    %310 = stablehlo.add %308, %309 : tensor<1x75600x1xf32>
    %311 = stablehlo.rsqrt %310 : tensor<1x75600x1xf32>
    %312 = stablehlo.broadcast_in_dim %311, dims = [0, 1, 2] : (tensor<1x75600x1xf32>) -> tensor<1x75600x5120xf32>
    %313 = stablehlo.multiply %303, %312 : tensor<1x75600x5120xf32>
    %314 = stablehlo.convert %313 : (tensor<1x75600x5120xf32>) -> tensor<1x75600x5120xbf16>
    %315 = stablehlo.broadcast_in_dim %arg5, dims = [2] : (tensor<5120xbf16>) -> tensor<1x1x5120xbf16>
    %316 = stablehlo.broadcast_in_dim %315, dims = [0, 1, 2] : (tensor<1x1x5120xbf16>) -> tensor<1x75600x5120xbf16>
    %317 = stablehlo.multiply %314, %316 : tensor<1x75600x5120xbf16>
    %318 = stablehlo.dot_general %59, %arg1, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<1x512x5120xbf16>, tensor<5120x5120xbf16>) -> tensor<1x512x5120xbf16>
    %319 = stablehlo.broadcast_in_dim %arg0, dims = [2] : (tensor<5120xbf16>) -> tensor<1x1x5120xbf16>
    %320 = stablehlo.broadcast_in_dim %319, dims = [0, 1, 2] : (tensor<1x1x5120xbf16>) -> tensor<1x512x5120xbf16>
    %321 = stablehlo.add %318, %320 : tensor<1x512x5120xbf16>
    %322 = stablehlo.convert %321 : (tensor<1x512x5120xbf16>) -> tensor<1x512x5120xf32>
    %323 = chlo.square %322 : tensor<1x512x5120xf32> -> tensor<1x512x5120xf32>
    %cst_43 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %324 = stablehlo.reduce(%323 init: %cst_43) applies stablehlo.add across dimensions = [2] : (tensor<1x512x5120xf32>, tensor<f32>) -> tensor<1x512xf32>
    %325 = stablehlo.broadcast_in_dim %324, dims = [0, 1] : (tensor<1x512xf32>) -> tensor<1x512x1xf32>
    %cst_44 = stablehlo.constant dense<5.120000e+03> : tensor<f32>
    %326 = stablehlo.broadcast_in_dim %cst_44, dims = [] : (tensor<f32>) -> tensor<1x512x1xf32>
    %327 = stablehlo.divide %325, %326 : tensor<1x512x1xf32>
    %cst_45 = stablehlo.constant dense<9.99999997E-7> : tensor<f32>
    %328 = stablehlo.broadcast_in_dim %cst_45, dims = [] : (tensor<f32>) -> tensor<1x512x1xf32>
    %329 = stablehlo.add %327, %328 : tensor<1x512x1xf32>
    %330 = stablehlo.rsqrt %329 : tensor<1x512x1xf32>
    %331 = stablehlo.broadcast_in_dim %330, dims = [0, 1, 2] : (tensor<1x512x1xf32>) -> tensor<1x512x5120xf32>
    %332 = stablehlo.multiply %322, %331 : tensor<1x512x5120xf32>
    %333 = stablehlo.convert %332 : (tensor<1x512x5120xf32>) -> tensor<1x512x5120xbf16>
    %334 = stablehlo.broadcast_in_dim %arg4, dims = [2] : (tensor<5120xbf16>) -> tensor<1x1x5120xbf16>
    %335 = stablehlo.broadcast_in_dim %334, dims = [0, 1, 2] : (tensor<1x1x5120xbf16>) -> tensor<1x512x5120xbf16>
    %336 = stablehlo.multiply %333, %335 : tensor<1x512x5120xbf16>
    %337 = stablehlo.dot_general %59, %arg11, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<1x512x5120xbf16>, tensor<5120x5120xbf16>) -> tensor<1x512x5120xbf16>
    %338 = stablehlo.broadcast_in_dim %arg10, dims = [2] : (tensor<5120xbf16>) -> tensor<1x1x5120xbf16>
    %339 = stablehlo.broadcast_in_dim %338, dims = [0, 1, 2] : (tensor<1x1x5120xbf16>) -> tensor<1x512x5120xbf16>
    %340 = stablehlo.add %337, %339 : tensor<1x512x5120xbf16>
    %341 = stablehlo.reshape %317 : (tensor<1x75600x5120xbf16>) -> tensor<1x75600x40x128xbf16>
    %342 = stablehlo.reshape %336 : (tensor<1x512x5120xbf16>) -> tensor<1x512x40x128xbf16>
    %343 = stablehlo.reshape %340 : (tensor<1x512x5120xbf16>) -> tensor<1x512x40x128xbf16>
    %344 = stablehlo.dot_general %341, %342, batching_dims = [0, 2] x [0, 2], contracting_dims = [3] x [3], precision = [DEFAULT, DEFAULT] : (tensor<1x75600x40x128xbf16>, tensor<1x512x40x128xbf16>) -> tensor<1x40x75600x512xf32>
    %cst_46 = stablehlo.constant dense<0.0883883461> : tensor<f32>
    %345 = stablehlo.broadcast_in_dim %cst_46, dims = [] : (tensor<f32>) -> tensor<1x40x75600x512xf32>
    %346 = stablehlo.multiply %344, %345 : tensor<1x40x75600x512xf32>
    %cst_47 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %347 = stablehlo.reduce(%346 init: %cst_47) applies stablehlo.maximum across dimensions = [3] : (tensor<1x40x75600x512xf32>, tensor<f32>) -> tensor<1x40x75600xf32>
    %cst_48 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %348 = stablehlo.broadcast_in_dim %cst_48, dims = [] : (tensor<f32>) -> tensor<1x40x75600xf32>
    %349 = stablehlo.maximum %348, %347 : tensor<1x40x75600xf32>
    %350 = stablehlo.broadcast_in_dim %349, dims = [0, 1, 2] : (tensor<1x40x75600xf32>) -> tensor<1x40x75600x1xf32>
    %351 = stablehlo.broadcast_in_dim %350, dims = [0, 1, 2, 3] : (tensor<1x40x75600x1xf32>) -> tensor<1x40x75600x512xf32>
    %352 = stablehlo.subtract %346, %351 : tensor<1x40x75600x512xf32>
    %353 = stablehlo.exponential %352 : tensor<1x40x75600x512xf32>
    %cst_49 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %354 = stablehlo.reduce(%353 init: %cst_49) applies stablehlo.add across dimensions = [3] : (tensor<1x40x75600x512xf32>, tensor<f32>) -> tensor<1x40x75600xf32>
    %355 = stablehlo.broadcast_in_dim %354, dims = [0, 1, 2] : (tensor<1x40x75600xf32>) -> tensor<1x40x75600x1xf32>
    %356 = stablehlo.broadcast_in_dim %355, dims = [0, 1, 2, 3] : (tensor<1x40x75600x1xf32>) -> tensor<1x40x75600x512xf32>
    %357 = stablehlo.divide %353, %356 : tensor<1x40x75600x512xf32>
    %358 = stablehlo.convert %357 : (tensor<1x40x75600x512xf32>) -> tensor<1x40x75600x512xbf16>
    %359 = stablehlo.dot_general %343, %358, batching_dims = [0, 2] x [0, 1], contracting_dims = [1] x [3], precision = [DEFAULT, DEFAULT] : (tensor<1x512x40x128xbf16>, tensor<1x40x75600x512xbf16>) -> tensor<1x40x128x75600xbf16>
    %360 = stablehlo.transpose %359, dims = [0, 3, 1, 2] : (tensor<1x40x128x75600xbf16>) -> tensor<1x75600x40x128xbf16>
    %361 = stablehlo.reshape %360 : (tensor<1x75600x40x128xbf16>) -> tensor<1x75600x5120xbf16>
    %362 = stablehlo.dot_general %361, %arg7, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<1x75600x5120xbf16>, tensor<5120x5120xbf16>) -> tensor<1x75600x5120xbf16>
    %363 = stablehlo.broadcast_in_dim %arg6, dims = [2] : (tensor<5120xbf16>) -> tensor<1x1x5120xbf16>
    %364 = stablehlo.broadcast_in_dim %363, dims = [0, 1, 2] : (tensor<1x1x5120xbf16>) -> tensor<1x75600x5120xbf16>
    %365 = stablehlo.add %362, %364 : tensor<1x75600x5120xbf16>
    %366 = stablehlo.convert %365 : (tensor<1x75600x5120xbf16>) -> tensor<1x75600x5120xf32>
    %367 = stablehlo.add %271, %366 : tensor<1x75600x5120xf32>
    %cst_50 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %368 = stablehlo.reduce(%367 init: %cst_50) applies stablehlo.add across dimensions = [2] : (tensor<1x75600x5120xf32>, tensor<f32>) -> tensor<1x75600xf32>
    %369 = stablehlo.broadcast_in_dim %368, dims = [0, 1] : (tensor<1x75600xf32>) -> tensor<1x75600x1xf32>
    %cst_51 = stablehlo.constant dense<5.120000e+03> : tensor<f32>
    %370 = stablehlo.broadcast_in_dim %cst_51, dims = [] : (tensor<f32>) -> tensor<1x75600x1xf32>
    %371 = stablehlo.divide %369, %370 : tensor<1x75600x1xf32>
    %372 = stablehlo.broadcast_in_dim %371, dims = [0, 1, 2] : (tensor<1x75600x1xf32>) -> tensor<1x75600x5120xf32>
    %373 = stablehlo.subtract %367, %372 : tensor<1x75600x5120xf32>
    %374 = chlo.square %373 : tensor<1x75600x5120xf32> -> tensor<1x75600x5120xf32>
    %cst_52 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %375 = stablehlo.reduce(%374 init: %cst_52) applies stablehlo.add across dimensions = [2] : (tensor<1x75600x5120xf32>, tensor<f32>) -> tensor<1x75600xf32>
    %376 = stablehlo.broadcast_in_dim %375, dims = [0, 1] : (tensor<1x75600xf32>) -> tensor<1x75600x1xf32>
    %cst_53 = stablehlo.constant dense<5.120000e+03> : tensor<f32>
    %377 = stablehlo.broadcast_in_dim %cst_53, dims = [] : (tensor<f32>) -> tensor<1x75600x1xf32>
    %378 = stablehlo.divide %376, %377 : tensor<1x75600x1xf32>
    %379 = stablehlo.broadcast_in_dim %371, dims = [0, 1, 2] : (tensor<1x75600x1xf32>) -> tensor<1x75600x5120xf32>
    %380 = stablehlo.subtract %367, %379 : tensor<1x75600x5120xf32>
    %cst_54 = stablehlo.constant dense<9.99999997E-7> : tensor<f32>
    %381 = stablehlo.broadcast_in_dim %cst_54, dims = [] : (tensor<f32>) -> tensor<1x75600x1xf32>
    %382 = stablehlo.add %378, %381 : tensor<1x75600x1xf32>
    %383 = stablehlo.rsqrt %382 : tensor<1x75600x1xf32>
    %384 = stablehlo.broadcast_in_dim %383, dims = [0, 1, 2] : (tensor<1x75600x1xf32>) -> tensor<1x75600x5120xf32>
    %385 = stablehlo.multiply %380, %384 : tensor<1x75600x5120xf32>
    %386 = stablehlo.broadcast_in_dim %125, dims = [0, 1, 2] : (tensor<1x1x5120xf32>) -> tensor<1x75600x5120xf32>
    %387 = stablehlo.multiply %385, %386 : tensor<1x75600x5120xf32>
    %388 = stablehlo.add %385, %387 : tensor<1x75600x5120xf32>
    %389 = stablehlo.broadcast_in_dim %124, dims = [0, 1, 2] : (tensor<1x1x5120xf32>) -> tensor<1x75600x5120xf32>
    %390 = stablehlo.add %388, %389 : tensor<1x75600x5120xf32>
    %391 = stablehlo.convert %390 : (tensor<1x75600x5120xf32>) -> tensor<1x75600x5120xbf16>
    %392 = stablehlo.dot_general %391, %arg13, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<1x75600x5120xbf16>, tensor<5120x13824xbf16>) -> tensor<1x75600x13824xbf16>
    %393 = stablehlo.broadcast_in_dim %arg12, dims = [2] : (tensor<13824xbf16>) -> tensor<1x1x13824xbf16>
    %394 = stablehlo.broadcast_in_dim %393, dims = [0, 1, 2] : (tensor<1x1x13824xbf16>) -> tensor<1x75600x13824xbf16>
    %395 = stablehlo.add %392, %394 : tensor<1x75600x13824xbf16>
    %396 = stablehlo.multiply %395, %395 : tensor<1x75600x13824xbf16>
    %397 = stablehlo.multiply %396, %395 : tensor<1x75600x13824xbf16>
    %cst_55 = stablehlo.constant dense<4.467770e-02> : tensor<bf16>
    %398 = stablehlo.broadcast_in_dim %cst_55, dims = [] : (tensor<bf16>) -> tensor<1x75600x13824xbf16>
    %399 = stablehlo.multiply %398, %397 : tensor<1x75600x13824xbf16>
    %400 = stablehlo.add %395, %399 : tensor<1x75600x13824xbf16>
    %cst_56 = stablehlo.constant dense<7.968750e-01> : tensor<bf16>
    %401 = stablehlo.broadcast_in_dim %cst_56, dims = [] : (tensor<bf16>) -> tensor<1x75600x13824xbf16>
    %402 = stablehlo.multiply %401, %400 : tensor<1x75600x13824xbf16>
    %403 = stablehlo.tanh %402 : tensor<1x75600x13824xbf16>
    %cst_57 = stablehlo.constant dense<1.000000e+00> : tensor<bf16>
    %404 = stablehlo.broadcast_in_dim %cst_57, dims = [] : (tensor<bf16>) -> tensor<1x75600x13824xbf16>
    %405 = stablehlo.add %404, %403 : tensor<1x75600x13824xbf16>
    %cst_58 = stablehlo.constant dense<5.000000e-01> : tensor<bf16>
    %406 = stablehlo.broadcast_in_dim %cst_58, dims = [] : (tensor<bf16>) -> tensor<1x75600x13824xbf16>
    %407 = stablehlo.multiply %406, %405 : tensor<1x75600x13824xbf16>
    %408 = stablehlo.multiply %395, %407 : tensor<1x75600x13824xbf16>
    %409 = stablehlo.dot_general %408, %arg15, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<1x75600x13824xbf16>, tensor<13824x5120xbf16>) -> tensor<1x75600x5120xbf16>
    %410 = stablehlo.broadcast_in_dim %arg14, dims = [2] : (tensor<5120xbf16>) -> tensor<1x1x5120xbf16>
    %411 = stablehlo.broadcast_in_dim %410, dims = [0, 1, 2] : (tensor<1x1x5120xbf16>) -> tensor<1x75600x5120xbf16>
    %412 = stablehlo.add %409, %411 : tensor<1x75600x5120xbf16>
    %413 = stablehlo.convert %412 : (tensor<1x75600x5120xbf16>) -> tensor<1x75600x5120xf32>
    %414 = stablehlo.broadcast_in_dim %126, dims = [0, 1, 2] : (tensor<1x1x5120xf32>) -> tensor<1x75600x5120xf32>
    %415 = stablehlo.multiply %413, %414 : tensor<1x75600x5120xf32>
    %416 = stablehlo.add %367, %415 : tensor<1x75600x5120xf32>
    %417 = stablehlo.broadcast_in_dim %31, dims = [0, 2] : (tensor<1x5120xf32>) -> tensor<1x1x5120xf32>
    %418 = stablehlo.convert %arg29 : (tensor<1x2x5120xbf16>) -> tensor<1x2x5120xf32>
    %419 = stablehlo.broadcast_in_dim %417, dims = [0, 1, 2] : (tensor<1x1x5120xf32>) -> tensor<1x2x5120xf32>
    %420 = stablehlo.add %418, %419 : tensor<1x2x5120xf32>
    %421 = stablehlo.slice %420 [0:1, 0:1, 0:5120] : (tensor<1x2x5120xf32>) -> tensor<1x1x5120xf32>
    %422 = stablehlo.slice %420 [0:1, 1:2, 0:5120] : (tensor<1x2x5120xf32>) -> tensor<1x1x5120xf32>
    %cst_59 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %423 = stablehlo.reduce(%416 init: %cst_59) applies stablehlo.add across dimensions = [2] : (tensor<1x75600x5120xf32>, tensor<f32>) -> tensor<1x75600xf32>
    %424 = stablehlo.broadcast_in_dim %423, dims = [0, 1] : (tensor<1x75600xf32>) -> tensor<1x75600x1xf32>
    %cst_60 = stablehlo.constant dense<5.120000e+03> : tensor<f32>
    %425 = stablehlo.broadcast_in_dim %cst_60, dims = [] : (tensor<f32>) -> tensor<1x75600x1xf32>
    %426 = stablehlo.divide %424, %425 : tensor<1x75600x1xf32>
    %427 = stablehlo.broadcast_in_dim %426, dims = [0, 1, 2] : (tensor<1x75600x1xf32>) -> tensor<1x75600x5120xf32>
    %428 = stablehlo.subtract %416, %427 : tensor<1x75600x5120xf32>
    %429 = chlo.square %428 : tensor<1x75600x5120xf32> -> tensor<1x75600x5120xf32>
    %cst_61 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %430 = stablehlo.reduce(%429 init: %cst_61) applies stablehlo.add across dimensions = [2] : (tensor<1x75600x5120xf32>, tensor<f32>) -> tensor<1x75600xf32>
    %431 = stablehlo.broadcast_in_dim %430, dims = [0, 1] : (tensor<1x75600xf32>) -> tensor<1x75600x1xf32>
    %cst_62 = stablehlo.constant dense<5.120000e+03> : tensor<f32>
    %432 = stablehlo.broadcast_in_dim %cst_62, dims = [] : (tensor<f32>) -> tensor<1x75600x1xf32>
    %433 = stablehlo.divide %431, %432 : tensor<1x75600x1xf32>
    %434 = stablehlo.broadcast_in_dim %426, dims = [0, 1, 2] : (tensor<1x75600x1xf32>) -> tensor<1x75600x5120xf32>
    %435 = stablehlo.subtract %416, %434 : tensor<1x75600x5120xf32>
    %cst_63 = stablehlo.constant dense<9.99999997E-7> : tensor<f32>
    %436 = stablehlo.broadcast_in_dim %cst_63, dims = [] : (tensor<f32>) -> tensor<1x75600x1xf32>
    %437 = stablehlo.add %433, %436 : tensor<1x75600x1xf32>
    %438 = stablehlo.rsqrt %437 : tensor<1x75600x1xf32>
    %439 = stablehlo.broadcast_in_dim %438, dims = [0, 1, 2] : (tensor<1x75600x1xf32>) -> tensor<1x75600x5120xf32>
    %440 = stablehlo.multiply %435, %439 : tensor<1x75600x5120xf32>
    %441 = stablehlo.broadcast_in_dim %422, dims = [0, 1, 2] : (tensor<1x1x5120xf32>) -> tensor<1x75600x5120xf32>
    %442 = stablehlo.multiply %440, %441 : tensor<1x75600x5120xf32>
    %443 = stablehlo.add %440, %442 : tensor<1x75600x5120xf32>
    %444 = stablehlo.broadcast_in_dim %421, dims = [0, 1, 2] : (tensor<1x1x5120xf32>) -> tensor<1x75600x5120xf32>
    %445 = stablehlo.add %443, %444 : tensor<1x75600x5120xf32>
    %446 = stablehlo.convert %445 : (tensor<1x75600x5120xf32>) -> tensor<1x75600x5120xbf16>
    %447 = stablehlo.dot_general %446, %arg28, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<1x75600x5120xbf16>, tensor<5120x64xbf16>) -> tensor<1x75600x64xbf16>
    %448 = stablehlo.broadcast_in_dim %arg27, dims = [2] : (tensor<64xbf16>) -> tensor<1x1x64xbf16>
    %449 = stablehlo.broadcast_in_dim %448, dims = [0, 1, 2] : (tensor<1x1x64xbf16>) -> tensor<1x75600x64xbf16>
    %450 = stablehlo.add %447, %449 : tensor<1x75600x64xbf16>
    %451 = stablehlo.reshape %450 : (tensor<1x75600x64xbf16>) -> tensor<1x21x45x80x1x2x2x16xbf16>
    %452 = stablehlo.transpose %451, dims = [0, 7, 1, 4, 2, 5, 3, 6] : (tensor<1x21x45x80x1x2x2x16xbf16>) -> tensor<1x16x21x1x45x2x80x2xbf16>
    %453 = stablehlo.reshape %452 : (tensor<1x16x21x1x45x2x80x2xbf16>) -> tensor<1x16x21x90x160xbf16>
    %454 = stablehlo.convert %453 : (tensor<1x16x21x90x160xbf16>) -> tensor<1x16x21x90x160xf32>
    return %454 : tensor<1x16x21x90x160xf32>
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
