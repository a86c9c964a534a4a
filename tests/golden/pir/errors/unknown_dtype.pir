// expected-error@3:18: unknown dtype 'fp32'
graph "g" {
  input %0 "x" : fp32[4]
  return %0
}
