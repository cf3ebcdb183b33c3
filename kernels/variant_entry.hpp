// A variant's text (the name --variants takes, its family, its line in `arbench list`, its traffic) written
// once, and the registry entries built from it: the host registration (register_host.cpp) adds
// an entry with the twin's factory, the GPU one (register_cuda.cu) an entry with the kernel's,
// and Registry::add merges the two halves by name. A family with several algorithms keeps its
// texts as one table indexed by its algorithm enum (kSymmText, kFusedText, kIslandText).
#pragma once

#include <cstddef>
#include <utility>

#include "arbench/traffic.hpp"
#include "arbench/variant.hpp"

namespace arbench {

struct VariantText {
  const char* name;
  Family family;
  const char* summary;
  TrafficFn traffic = nullptr;  // what its schedule moves (arbench/traffic.hpp): every variant has one
};

// The row of algorithm `a` in its family's table (the enum's values count its rows from 0).
template <class Algo, std::size_t N>
const VariantText& text_of(const VariantText (&table)[N], Algo a) {
  return table[static_cast<std::size_t>(a)];
}

inline VariantEntry entry_of(const VariantText& t) {
  VariantEntry e;
  e.name = t.name;
  e.family = t.family;
  e.summary = t.summary;
  e.traffic = t.traffic;
  return e;
}
inline VariantEntry host_entry(const VariantText& t, VariantFactory host) {
  VariantEntry e = entry_of(t);
  e.host = std::move(host);
  return e;
}
inline VariantEntry gpu_entry(const VariantText& t, VariantFactory gpu) {
  VariantEntry e = entry_of(t);
  e.gpu = std::move(gpu);
  return e;
}

}  // namespace arbench
