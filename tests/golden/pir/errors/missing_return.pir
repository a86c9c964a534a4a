// expected-error@4:1: expected a statement (mesh, input, param, const, opt_state, an op or return), found '}'
graph "g" {
  input %0 "x" : f32[4]
}
