// expected-error@4:8: unknown op kind 'matmull'
graph "g" {
  input %0 "x" : f32[4]
  %1 = matmull "m" (%0, %0) : f32[4]
  return %1
}
