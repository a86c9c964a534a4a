// expected-error@3:22: bad number: unexpected 'x' in a number
graph "g" {
  input %0 "x" : f32[4x4]
  return %0
}
