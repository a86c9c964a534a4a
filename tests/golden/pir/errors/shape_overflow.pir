// expected-error@3:33: tensor shape exceeds the limit of 2^62 elements
graph "g" {
  input %0 "x" : f32[4294967296,4294967296]
  return %0
}
