// Test helpers for the chip catalog (header-only; tests only).
#pragma once

#include "hw/chip.h"

namespace az::hw_test {

// A catalog chip by name; a name the catalog lacks is a broken test.
inline const hw::ChipSpec& Chip(const char* name) {
  auto chip = hw::FindChip(name);
  AZ_CHECK(chip.ok());
  return **chip;
}

}  // namespace az::hw_test
