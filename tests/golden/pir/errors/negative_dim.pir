// expected-error@3:24: a dimension must be non-negative, got -1
graph "g" {
  input %0 "x" : f32[4,-1]
  return %0
}
