// Test helpers for the chip catalog and topologies (header-only; tests only).
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "hw/chip.h"
#include "hw/topology.h"

namespace az::hw_test {

// A catalog chip by name; a name the catalog lacks is a broken test.
inline const hw::ChipSpec& Chip(const char* name) {
  auto chip = hw::FindChip(name);
  AZ_CHECK(chip.ok());
  return **chip;
}

// The topology a spec names ("v5p:2x2x4", "h100:2x8"); a spec that fails is a
// test failure, and an empty topology.
inline hw::Topology Topo(const std::string& spec) {
  auto topology = hw::MakeTopology(spec);
  EXPECT_TRUE(topology.ok()) << spec << ": " << topology.status().ToString();
  return topology.ok() ? std::move(topology).value() : hw::Topology();
}

}  // namespace az::hw_test
