// expected-error@4:34: expected a mesh reference such as @m, found identifier 'm'
graph "g" {
  mesh @m = ["x"=2]
  input %0 "x" : f32[4] sharding<m, [{"x"}]>
  return %0
}
