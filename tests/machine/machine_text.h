#pragma once
// Every field of a machine description as text, for tests that compare two descriptions:
// they are the same machine when their texts are.

#include <sstream>
#include <string>

#include "machine/machine.h"

namespace ttsim::testing {

inline std::string machine_text(const machine::Machine& m) {
  std::ostringstream o;
  o << "partition " << m.partition << " param_words " << m.param_words << "\n";
  o << "lane_granule";
  for (int g : m.lane_granule) o << " " << g;
  o << "\n";
  for (const auto& k : m.instances) {
    o << k.module << " " << static_cast<int>(k.op) << " " << static_cast<int>(k.unit) << " " << k.variant << " "
      << k.count << " " << k.lanes << " " << k.lane_aligned << " " << k.dsp << " " << k.calls << " " << k.call_sites << ":";
    for (const auto& l : k.loops) o << " " << l.loop << "/" << l.min << "/" << l.max << "/" << l.ii;
    o << "\n";
  }
  for (const auto& mem : m.memories) {
    o << mem.array << " " << mem.holds << " " << static_cast<int>(mem.storage) << " " << mem.words << " "
      << mem.width_bits << " " << static_cast<int>(mem.partition_type) << " " << mem.partition << " "
      << mem.bram36 << " " << mem.uram288 << " "
      << (mem.buffer_class ? static_cast<int>(*mem.buffer_class) : -1) << ":";
    for (const auto& b : mem.buffers) o << " " << b.name << "@" << b.offset << "+" << b.words;
    o << " |";
    for (int b : mem.graph_buffers) o << " " << b;
    o << "\n";
  }
  o << "order";
  for (int i : m.schedule.order) o << " " << i;
  o << "\ninstance";
  for (int i : m.schedule.instance) o << " " << i;
  o << "\noverlap " << m.schedule.overlap_groups.size() << "\nmemory_of_buffer";
  for (int i : m.memory_of_buffer) o << " " << i;
  return o.str() + "\n";
}

}  // namespace ttsim::testing
