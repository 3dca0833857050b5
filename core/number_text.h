#pragma once
// Numbers as every text table of ttsim prints them: counts with thousands separators,
// byte sizes in MiB.

#include <cstdint>
#include <string>

namespace ttsim {

/// `v` with a comma between groups of three digits: 2162297 → "2,162,297",
/// -1234 → "-1,234", 12 → "12".
std::string grouped(std::int64_t v);

/// `bytes` in MiB (2^20 bytes) with three decimals: 8667136 → "8.266 MiB".
std::string mib(std::int64_t bytes);

}  // namespace ttsim
