// expected-error@3:18: tensor size exceeds the limit of 2^62 bytes
graph "g" {
  input %0 "x" : f64[1073741824,1073741824]
  return %0
}
