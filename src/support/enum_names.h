// An enum's spellings written once, as a table of (value, name) rows: the name
// of a value, the value of a name, and the error that lists every name when a
// user types another. Used for the names flags, plans and IR text spell
// (CFG modes, rematerialization policies, collective kinds).
//
//   constexpr EnumName<Color> kColorNames[] = {{Color::kRed, "red"}, {Color::kBlue, "blue"}};
//   NameOf(kColorNames, Color::kBlue)          -> "blue"
//   ParseName(kColorNames, "green", "color")   -> "unknown color 'green' (expected red or blue)"
//
// Invariant: every value of the enum has one row; a value without one is a bug
// (an AZ_CHECK), never a user error.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "support/status.h"

namespace az {

template <typename Enum>
struct EnumName {
  Enum value;
  std::string_view name;
};

template <typename Enum, size_t N>
std::string_view NameOf(const EnumName<Enum> (&table)[N], Enum value) {
  for (const EnumName<Enum>& row : table) {
    if (row.value == value) return row.name;
  }
  AZ_CHECK_MSG(false, "an enum value without a name");
  return {};
}

// `what` names the enum in the error: "unknown <what> '<name>' (expected a, b or c)".
template <typename Enum, size_t N>
StatusOr<Enum> ParseName(const EnumName<Enum> (&table)[N], std::string_view name, std::string_view what) {
  for (const EnumName<Enum>& row : table) {
    if (row.name == name) return row.value;
  }
  std::string expected;
  for (size_t i = 0; i < N; ++i) {
    if (i > 0) expected += i + 1 == N ? " or " : ", ";
    expected += table[i].name;
  }
  return InvalidArgument("unknown " + std::string(what) + " '" + std::string(name) + "' (expected " + expected + ")");
}

}  // namespace az
