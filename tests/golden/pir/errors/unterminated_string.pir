// expected-error@3:12: unterminated string
graph "g" {
  input %0 "x : f32[4]
  return %0
}
