// expected-error@4:12: expected '}' to end the graph after 'return', found end of input
graph "g" {
  input %0 "x" : f32[4]
  return %0
