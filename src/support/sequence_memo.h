// An exact memo from integer sequences to values, for hot loops.
//
// The pricing hot path looks up the time of a collective by its physical
// groups (a short sequence of chip ids) millions of times per search. A
// std::unordered_map<std::vector<int64_t>, double> allocates a node and a
// vector per entry and chases pointers on every probe; this table keeps the
// keys in one arena and the slots in one array (open addressing, linear
// probing, load at most 1/2), so a hit is one hash, one probe run and one
// memcmp. Exact: a hit compares the whole key, never just its hash.
#pragma once

#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

namespace az {

template <typename Value>
class BasicSequenceMemo {
 public:
  BasicSequenceMemo() { Reset(16); }

  static uint64_t Hash(std::span<const int64_t> key) {
    uint64_t h = 0x9e3779b97f4a7c15ULL ^ key.size();
    for (int64_t v : key) {
      h ^= static_cast<uint64_t>(v) + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
      h *= 0xbf58476d1ce4e5b9ULL;
    }
    h ^= h >> 31;
    return h;
  }

  // The stored value, or nullptr.
  const Value* Find(std::span<const int64_t> key) const {
    uint64_t h = Hash(key);
    for (size_t i = h & mask_;; i = (i + 1) & mask_) {
      const Slot& s = slots_[i];
      if (s.length < 0) return nullptr;
      if (s.hash == h && static_cast<size_t>(s.length) == key.size() &&
          std::memcmp(arena_.data() + s.offset, key.data(), key.size() * sizeof(int64_t)) == 0) {
        return &s.value;
      }
    }
  }

  // Inserts (the key must not be present).
  void Insert(std::span<const int64_t> key, Value value) {
    if (2 * (size_ + 1) > slots_.size()) Grow();
    uint64_t h = Hash(key);
    size_t i = h & mask_;
    while (slots_[i].length >= 0) i = (i + 1) & mask_;
    slots_[i] = {h, arena_.size(), static_cast<int64_t>(key.size()), value};
    arena_.insert(arena_.end(), key.begin(), key.end());
    ++size_;
  }

  size_t size() const { return size_; }
  // The keys' total length (int64 values held).
  size_t key_values() const { return arena_.size(); }
  void Clear() { Reset(16); }

 private:
  struct Slot {
    uint64_t hash = 0;
    size_t offset = 0;
    int64_t length = -1;  // -1: empty
    Value value{};
  };

  void Reset(size_t capacity) {
    slots_.assign(capacity, Slot());
    mask_ = capacity - 1;
    arena_.clear();
    size_ = 0;
  }

  void Grow() {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(old.size() * 2, Slot());
    mask_ = slots_.size() - 1;
    for (const Slot& s : old) {
      if (s.length < 0) continue;
      size_t i = s.hash & mask_;
      while (slots_[i].length >= 0) i = (i + 1) & mask_;
      slots_[i] = s;
    }
  }

  std::vector<Slot> slots_;
  std::vector<int64_t> arena_;
  size_t mask_ = 0;
  size_t size_ = 0;
};

// Collective times by physical groups (net/model.h).
using SequenceMemo = BasicSequenceMemo<double>;

}  // namespace az
