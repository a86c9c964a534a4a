// expected-error@4:36: duplicate attribute key 'axis'
graph "g" {
  input %0 "x" : f32[4,4]
  %1 = softmax "s" (%0) {axis = 1, axis = 0} : f32[4,4]
  return %1
}
