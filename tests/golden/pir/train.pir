graph "train-kernels" attributes {graph = "train_step"} {
  input %0 "x" : f32[2,4,2,4]
  param %1 "norm.weight" : bf16[4]
  const %2 "rope.table" : f32[4,4]
  opt_state %3 "norm.weight.exp_avg" : f32[4]
  %4, %5 = attention "attn" (%0, %0, %0) {lse = true, mode = "self"} : f32[2,4,2,4], f32[2,4,2]
  %6 = full "attn.grad.seed" () {dtype = "f32", shape = [2, 4, 2, 4], value = 1.0} : f32[2,4,2,4]
  %7, %8, %9 = attention_grad "attn.grad.attention" (%0, %0, %0, %4, %6, %5) {mode = "self"} : f32[2,4,2,4], f32[2,4,2,4], f32[2,4,2,4]
  %10 = rope "rope.grad.x" (%7, %2) {inverse = true, sections = [4]} : f32[2,4,2,4]
  %11 = rms_norm_grad "norm.grad.x" (%10, %8, %1) {eps = 1e-06} : f32[2,4,2,4]
  %12 = layer_norm_grad "ln.grad.x" (%11, %9) {eps = 1e-06} : f32[2,4,2,4]
  %13 = full "optimizer.beta1" () {dtype = "f32", shape = [], value = 0.9} : f32[]
  %14 = mul "optimizer.exp_avg.decayed" (%3, %13) : f32[4]
  return %12, %14
}
