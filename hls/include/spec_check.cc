#include "hls/include/spec_check.h"

#include <sstream>

namespace ttsim_hls {

namespace {
using ttsim_spec::ceil_div;
using ttsim_spec::kBankPorts;
using ttsim_spec::str_eq;

const ttsim_spec::ArrayAccess* find_access(const ttsim_spec::LoopSpec& l, const std::string& a) {
  for (int i = 0; i < l.n_access; ++i) {
    if (str_eq(l.access[i].array, a.c_str())) return &l.access[i];
  }
  return nullptr;
}
}  // namespace

std::vector<std::string> check_loop(const ttsim_spec::LoopSpec& spec, const MeasuredLoop& m,
                                    int variant, const SpecShape& s, int lanes, int banks) {
  std::vector<std::string> v;
  auto add = [&](const std::string& what) { v.push_back(std::string(spec.name) + ": " + what); };

  const long long trip = ttsim_spec::loop_trip(spec.trip, spec.variant, variant, s.batch,
                                               s.rows, s.inner, s.cols, lanes, banks);
  if (m.iterations != trip) {
    std::ostringstream o;
    o << "iterations " << m.iterations << " != spec trip " << trip;
    add(o.str());
  }

  for (const auto& kv : m.max_bank_accesses) {
    const ttsim_spec::ArrayAccess* a = find_access(spec, kv.first);
    if (!a) {
      std::ostringstream o;
      o << "array " << kv.first << " accessed (" << kv.second
        << " per bank per iteration) but not declared";
      add(o.str());
      continue;
    }
    const int per_site = ttsim_spec::site_accesses(a->kind, lanes, banks);
    const int declared = (a->reads + a->writes) * per_site;
    if (kv.second > declared) {
      std::ostringstream o;
      o << "array " << kv.first << ": " << kv.second
        << " accesses to one bank in one iteration > declared " << declared << " (reads "
        << a->reads << " + writes " << a->writes << ")";
      add(o.str());
    }
    const long long rm = ceil_div(kv.second, kBankPorts), rd = ceil_div(declared, kBankPorts);
    if (rm > rd) {
      std::ostringstream o;
      o << "array " << kv.first << ": ResMII ceil(" << kv.second << "/" << kBankPorts
        << ") = " << rm << " > spec ceil(" << declared << "/" << kBankPorts << ") = " << rd;
      add(o.str());
    }
  }

  for (const auto& kv : m.min_distance) {
    const int declared = ttsim_spec::declared_distance(spec, kv.first.c_str());
    if (declared > 0) {
      if (kv.second < declared) {
        std::ostringstream o;
        o << "recurrence through " << kv.first << " at distance " << kv.second
          << " < declared distance " << declared;
        add(o.str());
      }
      continue;
    }
    const auto raw = m.min_raw_distance.find(kv.first);
    if (raw != m.min_raw_distance.end()) {
      std::ostringstream o;
      o << "undeclared recurrence through " << kv.first << " at distance " << raw->second
        << " (write, read of the same element " << raw->second << " iterations later)";
      add(o.str());
    }
  }
  return v;
}

std::vector<std::string> check_loop(const char* task_op, const std::string& loop,
                                    const MeasuredLoop& m, int variant, const SpecShape& s,
                                    int lanes, int banks) {
  const ttsim_spec::LoopSpec* spec = ttsim_spec::find_loop(task_op, loop.c_str());
  if (!spec) return {loop + ": no loop of that name in the specification of " + task_op};
  return check_loop(*spec, m, variant, s, lanes, banks);
}

std::vector<std::string> check_kernel(const char* task_op,
                                      const std::map<std::string, MeasuredLoop>& loops,
                                      int variant, const SpecShape& s, int lanes, int banks) {
  std::vector<std::string> v;
  const int k = ttsim_spec::kernel_index(task_op);
  if (k < 0) return {std::string("no kernel specification for task op ") + task_op};
  for (const auto& kv : loops) {
    for (const std::string& e : check_loop(task_op, kv.first, kv.second, variant, s, lanes, banks)) {
      v.push_back(e);
    }
  }
  const ttsim_spec::KernelSpec& ks = ttsim_spec::kKernelSpecs[k];
  for (int i = 0; i < ks.n_loops; ++i) {
    const ttsim_spec::LoopSpec& l = ks.loops[i];
    const long long trip =
        ttsim_spec::loop_trip(l.trip, l.variant, variant, s.batch, s.rows, s.inner, s.cols, lanes, banks);
    if (trip > 0 && loops.find(l.name) == loops.end()) {
      std::ostringstream o;
      o << l.name << ": specified (trip " << trip << ") but never run";
      v.push_back(o.str());
    }
  }
  return v;
}

}  // namespace ttsim_hls
