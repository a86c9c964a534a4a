graph "" {
  return
}
