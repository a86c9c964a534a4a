// expected-error@3:25: unexpected character '$'
graph "g" {
  input %0 "x" : f32[4] $
  return %0
}
