graph "masked-attention" {
  input %0 "q" : bf16[1,16,8,16]
  input %1 "k" : bf16[1,16,2,16]
  input %2 "v" : bf16[1,16,2,16]
  input %3 "bias" : f32[1,1,16,16]
  %4 = attention "causal_gqa" (%0, %1, %2) {mask = "causal", mode = "self"} : bf16[1,16,8,16]
  %5 = attention "window_gqa" (%0, %1, %2) {mask = "window", mode = "self", window = 4} : bf16[1,16,8,16]
  %6 = attention "biased_gqa" (%0, %1, %2, %3) {mask = "tensor", mask_operand = "add", mode = "self"} : bf16[1,16,8,16]
  %7 = add "sum" (%4, %5) : bf16[1,16,8,16]
  %8 = add "out" (%7, %6) : bf16[1,16,8,16]
  return %8
}
