graph "mlp" attributes {hidden = 64, model = "toy-mlp"} {
  input %0 "x" : bf16[2,8,32]
  param %1 "fc1.weight" : bf16[32,64]
  param %2 "fc1.bias" : bf16[64]
  param %3 "fc2.weight" : bf16[64,32]
  param %4 "fc2.bias" : bf16[32]
  %5 = einsum "fc1" (%0, %1, %2) {eq = "abz,zy->aby"} : bf16[2,8,64]
  %6 = gelu_tanh "act" (%5) : bf16[2,8,64]
  %7 = einsum "fc2" (%6, %3, %4) {eq = "abz,zy->aby"} : bf16[2,8,32]
  return %7
}
