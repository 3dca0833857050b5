#include "hls/reports/vivado_rpt.h"

#include <cmath>

#include <fmt/format.h>

#include "core/errors.h"
#include "hls/reports/text_table.h"
#include "hls/reports/values.h"
#include "hls/reports/xml_util.h"

namespace ttsim::hls {

namespace {

// The number in a cell, or std::nullopt when the cell is not a number or is one of the
// unknown forms ("?", "undef", the unbounded sentinel family of values.h).
std::optional<double> known_number(const std::string& cell) {
  if (is_unknown_text(cell)) return std::nullopt;
  return parse_double_text(cell);
}

// Lists `cell` in `unknowns` when it is one of the unknown forms (field "line N: <what>").
void note_unknown(std::vector<UnknownValue>* unknowns, const std::string& design, std::size_t line,
                  const std::string& what, const std::string& cell) {
  if (unknowns && is_unknown_text(cell)) {
    unknowns->push_back({design, "line " + std::to_string(line + 1) + ": " + what, cell});
  }
}

// Finds the first table row whose first cell is `site` under a header row with "Used"
// and "Available" columns. An unknown Used count gives std::nullopt unless `required`;
// unknown optional cells are listed in `r->unknowns`.
std::optional<SiteUse> find_site(const std::vector<std::string>& ls, const std::string& site,
                                 const std::string& source, bool required, UtilizationReport* r = nullptr) {
  std::vector<UnknownValue>* unknowns = r ? &r->unknowns : nullptr;
  const std::string design = r ? r->design : "";
  int used_col = -1, avail_col = -1;
  for (std::size_t i = 0; i < ls.size(); ++i) {
    auto cells = rpt::row_cells(ls[i]);
    if (!cells || cells->empty()) continue;
    if ((*cells)[0] == "Site Type") {
      used_col = avail_col = -1;
      for (std::size_t c = 0; c < cells->size(); ++c) {
        if ((*cells)[c] == "Used") used_col = static_cast<int>(c);
        if ((*cells)[c] == "Available") avail_col = static_cast<int>(c);
      }
      continue;
    }
    if ((*cells)[0] != site || used_col < 0) continue;
    if (static_cast<int>(cells->size()) <= used_col) break;
    auto used = known_number((*cells)[used_col]);
    if (!used && !required && is_unknown_text((*cells)[used_col])) {
      note_unknown(unknowns, design, i, "row \"" + site + "\" column Used", (*cells)[used_col]);
      return std::nullopt;
    }
    if (!used) {
      throw InputError(source + ": line " + std::to_string(i + 1) + ": row \"" + site +
                       "\": expected a number in column Used, found \"" + (*cells)[used_col] + "\"" +
                       (is_unknown_text((*cells)[used_col]) ? " (unknown)" : ""));
    }
    SiteUse u;
    u.used = *used;
    if (avail_col >= 0 && avail_col < static_cast<int>(cells->size())) {
      u.available = known_number((*cells)[avail_col]);
      note_unknown(unknowns, design, i, "row \"" + site + "\" column Available", (*cells)[avail_col]);
    }
    if (u.used < 0 || (u.available && *u.available < 0)) {
      throw InputError(source + ": line " + std::to_string(i + 1) + ": row \"" + site +
                       "\": expected non-negative Used and Available counts, found " +
                       (u.used < 0 ? "Used \"" + (*cells)[used_col] : "Available \"" + (*cells)[avail_col]) + "\"");
    }
    // Sites are whole cells; a Block RAM Tile count may end in .5 (a RAMB18 is half a tile).
    const double granule = site == "Block RAM Tile" ? 0.5 : 1.0;
    auto whole = [granule](double v) { return std::floor(v / granule) * granule == v; };
    if (!whole(u.used) || (u.available && !whole(*u.available))) {
      const bool bad_used = !whole(u.used);
      throw InputError(source + ": line " + std::to_string(i + 1) + ": row \"" + site + "\": expected " +
                       (granule < 1 ? "a count in half tiles" : "a whole count") + " in column " +
                       (bad_used ? "Used" : "Available") + ", found \"" +
                       (bad_used ? (*cells)[used_col] : (*cells)[avail_col]) + "\"");
    }
    return u;
  }
  return std::nullopt;
}

SiteUse require_site(const std::vector<std::string>& ls, const std::string& site,
                     const std::string& source, UtilizationReport& r) {
  auto s = find_site(ls, site, source, true, &r);
  if (!s) throw InputError(source + ": utilization table row \"" + site + "\": missing");
  return *s;
}

std::string require_header(const std::vector<std::string>& ls, const std::string& key,
                           const std::string& source) {
  auto v = rpt::header_value(ls, key);
  if (!v || v->empty()) throw InputError(source + ": header line \"" + key + " :\": missing");
  return *v;
}

// Two-cell rows "| key | value |" of the power summary.
// The second cell of the first row whose first cell is `key`, with its line index.
std::optional<std::pair<std::string, std::size_t>> kv_row_at(const std::vector<std::string>& ls,
                                                             const std::string& key) {
  for (std::size_t i = 0; i < ls.size(); ++i) {
    auto cells = rpt::row_cells(ls[i]);
    if (cells && cells->size() >= 2 && (*cells)[0] == key) return std::make_pair((*cells)[1], i);
  }
  return std::nullopt;
}

std::optional<std::string> kv_row(const std::vector<std::string>& ls, const std::string& key) {
  auto v = kv_row_at(ls, key);
  if (!v) return std::nullopt;
  return v->first;
}

// Watts must be >= 0: a negative power is an input error naming the file and line.
double check_watts(double w, const std::string& what, std::size_t line, const std::string& source) {
  if (w < 0) {
    throw InputError(source + ": line " + std::to_string(line + 1) + ": " + what +
                     ": expected a non-negative power in W, found " + std::to_string(w));
  }
  return w;
}

double require_watts(const std::vector<std::string>& ls, const std::string& key,
                     const std::string& source) {
  auto v = kv_row_at(ls, key);
  if (!v) throw InputError(source + ": summary row \"" + key + "\": missing");
  auto d = known_number(v->first);
  if (!d) {
    throw InputError(source + ": line " + std::to_string(v->second + 1) + ": summary row \"" + key +
                     "\": expected a number, found \"" + v->first + "\"" +
                     (is_unknown_text(v->first) ? " (unknown)" : ""));
  }
  return check_watts(*d, "summary row \"" + key + "\"", v->second, source);
}

std::optional<double> optional_watts(const std::vector<std::string>& ls, const std::string& key,
                                     const std::string& source, PowerReport& r) {
  auto v = kv_row_at(ls, key);
  if (!v) return std::nullopt;
  note_unknown(&r.unknowns, r.design, v->second, "row \"" + key + "\"", v->first);
  auto d = known_number(v->first);
  if (d) check_watts(*d, "summary row \"" + key + "\"", v->second, source);
  return d;
}

std::optional<double> optional_number(const std::vector<std::string>& ls, const std::string& key) {
  auto v = kv_row(ls, key);
  if (!v) return std::nullopt;
  return known_number(*v);
}

}  // namespace

UtilizationReport parse_utilization_rpt(const std::string& text, const std::string& source) {
  auto ls = rpt::lines(text);
  UtilizationReport r;
  r.source = source;
  r.device = require_header(ls, "Device", source);
  r.tool_version = rpt::header_value(ls, "Tool Version").value_or("");
  r.design = rpt::header_value(ls, "Design").value_or("");
  r.design_state = rpt::header_value(ls, "Design State").value_or("");
  r.clb_luts = require_site(ls, "CLB LUTs", source, r);
  r.clb_registers = require_site(ls, "CLB Registers", source, r);
  r.block_ram_tile = require_site(ls, "Block RAM Tile", source, r);
  r.dsp = require_site(ls, "DSPs", source, r);
  r.ramb36 = find_site(ls, "RAMB36/FIFO*", source, false, &r);
  r.ramb18 = find_site(ls, "RAMB18", source, false, &r);
  r.uram = find_site(ls, "URAM", source, false, &r);
  // A Block RAM Tile holds one RAMB36 or two RAMB18: the tile count is their sum in tiles.
  if (r.ramb36 && r.ramb18 && r.block_ram_tile.used != r.ramb36->used + r.ramb18->used / 2) {
    throw InputError(fmt::format("{}: utilization table row \"Block RAM Tile\": expected RAMB36/FIFO* + RAMB18 / 2 "
                                 "= {} + {} / 2 = {} tiles, found {}",
                                 source, r.ramb36->used, r.ramb18->used, r.ramb36->used + r.ramb18->used / 2,
                                 r.block_ram_tile.used));
  }
  return r;
}

UtilizationReport read_utilization_rpt(const std::string& path) {
  return parse_utilization_rpt(xml::read_file(path), path);
}

PowerReport parse_power_rpt(const std::string& text, const std::string& source) {
  auto ls = rpt::lines(text);
  PowerReport r;
  r.source = source;
  r.tool_version = rpt::header_value(ls, "Tool Version").value_or("");
  r.design = rpt::header_value(ls, "Design").value_or("");
  r.device = rpt::header_value(ls, "Device").value_or("");
  r.design_state = rpt::header_value(ls, "Design State").value_or("");
  r.total_on_chip_w = require_watts(ls, "Total On-Chip Power (W)", source);
  r.dynamic_w = require_watts(ls, "Dynamic (W)", source);
  r.device_static_w = require_watts(ls, "Device Static (W)", source);
  // Vivado's total is the sum of the two, each printed to 3 decimals (rounded by at most
  // 0.5 mW each).
  if (std::abs(r.total_on_chip_w - (r.dynamic_w + r.device_static_w)) > 0.0015 + 1e-9) {
    throw InputError(source + ": line " + std::to_string(kv_row_at(ls, "Total On-Chip Power (W)")->second + 1) +
                     ": summary row \"Total On-Chip Power (W)\": expected the sum of \"Dynamic (W)\" and "
                     "\"Device Static (W)\" (" + fmt::format("{:.3f} + {:.3f} = {:.3f}", r.dynamic_w,
                     r.device_static_w, r.dynamic_w + r.device_static_w) + " W), found " +
                     fmt::format("{:.3f}", r.total_on_chip_w) + " W");
  }
  r.fpga_w = optional_watts(ls, "FPGA Power (W)", source, r);
  r.hbm_w = optional_watts(ls, "HBM Power (W)", source, r);
  r.junction_temperature_c = optional_number(ls, "Junction Temperature (C)");
  r.confidence_level = kv_row(ls, "Confidence Level").value_or("");
  // "1.1 On-Chip Components": rows after the header "On-Chip | Power (W) | …" until a blank line.
  bool in_table = false;
  for (std::size_t i = 0; i < ls.size(); ++i) {
    const std::string& l = ls[i];
    auto cells = rpt::row_cells(l);
    if (!cells) {
      if (in_table && trim(l).empty()) break;
      continue;
    }
    if (!cells->empty() && (*cells)[0] == "On-Chip") {
      in_table = true;
      continue;
    }
    if (in_table && cells->size() >= 2) {
      const std::string& cell = (*cells)[1];
      if (auto w = known_number(cell)) {
        r.components.emplace_back((*cells)[0], check_watts(*w, "component \"" + (*cells)[0] + "\"", i, source));
      } else if (auto bound = cell.size() > 1 && cell[0] == '<' ? known_number(cell.substr(1)) : std::nullopt) {
        // Vivado prints a component below its last digit as "<0.001": read as half the bound
        // (the middle of [0, bound)).
        r.components.emplace_back((*cells)[0],
                                  check_watts(*bound / 2, "component \"" + (*cells)[0] + "\"", i, source));
      } else {
        note_unknown(&r.unknowns, r.design, i, "component \"" + (*cells)[0] + "\" column Power (W)", (*cells)[1]);
      }
    }
  }
  // "2.2 Clock Constraints": rows after the header "Clock | Domain | Constraint (ns)".
  bool in_clocks = false;
  for (const auto& l : ls) {
    auto cells = rpt::row_cells(l);
    if (!cells) {
      if (in_clocks && trim(l).empty()) break;
      continue;
    }
    if (cells->size() >= 3 && (*cells)[0] == "Clock" && (*cells)[2].rfind("Constraint", 0) == 0) {
      in_clocks = true;
      continue;
    }
    if (in_clocks && cells->size() >= 3) {
      if (auto ns = known_number((*cells)[2])) r.clocks.emplace_back((*cells)[0], *ns);
    }
  }
  return r;
}

PowerReport read_power_rpt(const std::string& path) {
  return parse_power_rpt(xml::read_file(path), path);
}

}  // namespace ttsim::hls
