graph "attribute \"forms\"\n" attributes {"cfg-mode" = "two-pass", denoise_steps = 50, eps = 1e-06, flags = [], guidance = 5.0, huge = 1e+300, offset = -3, perm = [0, 2, 1], shift = -0.25, tiny = 5e-324, use_cfg = false} {
  input %0 "tab\there" : f32[]
  %1 = custom "all.kinds" (%0) {big = 9223372036854775807, escapes = "quote \" backslash \\ newline \n tab \t bell \x07", inf = inf, nan = nan, neg_inf = -inf, neg_zero = -0.0, small = -9223372036854775808, target = "kitchen-sink", zero = 0} : f32[]
  return %1
}
