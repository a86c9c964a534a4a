// expected-error@3:14: unknown escape sequence '\q'
graph "g" {
  input %0 "a\qb" : f32[4]
  return %0
}
