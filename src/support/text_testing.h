// Seeded random edits of a text, for the tests that check a parser's fuzz
// property in every test run (a cheap stand-in for libFuzzer): deletions,
// insertions of syntax-relevant characters, random bytes, duplicated spans.
#pragma once

#include <random>
#include <string>
#include <string_view>

namespace az {

inline std::string MutateText(std::string text, std::mt19937& rng, std::string_view alphabet) {
  int edits = 1 + static_cast<int>(rng() % 4);
  for (int e = 0; e < edits && !text.empty(); ++e) {
    size_t at = rng() % text.size();
    switch (rng() % 4) {
      case 0: text.erase(at, 1 + rng() % 8); break;
      case 1: text.insert(at, 1, alphabet[rng() % alphabet.size()]); break;
      case 2: text[at] = static_cast<char>(rng() % 256); break;
      default: text.insert(at, text.substr(rng() % text.size(), rng() % 16)); break;
    }
  }
  return text;
}

}  // namespace az
