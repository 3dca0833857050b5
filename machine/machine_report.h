#pragma once
// The machine description (machine/machine.h) as people and programs read it: the text
// tables `ttsim simulate` and `ttsim memplan` print (kernel instances, on-chip arrays,
// the buffers each array holds, the fit on the device), their JSON, and the Markdown
// tables of the emitted build's README.md. Every function only formats: nothing here
// computes a figure the Machine does not hold, and none throws (beyond std::bad_alloc).
// Counts are printed with thousands separators (core/number_text.h); words are array
// words of the array's width, blocks are BRAM36 tiles and URAM288 blocks.

#include <string>
#include <vector>

#include "core/json_view.h"
#include "machine/machine.h"
#include "models/task_graph.h"
#include "hw/device_spec.h"

namespace ttsim::machine {

/// `simulate`'s table of kernel instances: a title line, a header and one row per module
/// that has calls (module, count, lanes, lane starts — "aligned" for
/// KernelInstance::lane_aligned, else "any" — DSP per instance, calls per step, call sites
/// of the top). Each line
/// ends with "\n".
std::string instances_table(const Machine& m);

/// `simulate`'s table of on-chip memories: a title line (what banks and peak live mean),
/// a header and one row per array (array, holds, storage, words, banks, BRAM36, URAM288,
/// graph buffers held, peak live words: peak_live_words of `graph`, the graph `m` was
/// described for).
std::string memories_table(const Machine& m, const TaskGraph& graph);

/// `memplan`'s table of on-chip arrays: a title line, a header and one row per array
/// (array, storage, words, banks, BRAM36, URAM288, graph buffers held, peak live words,
/// use = peak live / words in %; `graph` as for memories_table).
std::string arrays_table(const Machine& m, const TaskGraph& graph);

/// `memplan --buffers`: per array, a blank line, "<array> (<holds>)" and one line per
/// task-graph buffer it holds (name, class, words, first..last task). `graph` is the step
/// the machine was described for (Memory::graph_buffers index its buffers).
std::string buffers_listing(const Machine& m, const TaskGraph& graph);

/// `simulate`'s one-line build summary of a design that fits: BRAM36, URAM288 and DSP
/// used / available on `device` (DSP also in %), `luts` (the LUT estimate) / the device's
/// LUTs, `ffs` (the FF estimate) / the device's FFs, the card power at `clock_mhz` (machine::card_watts, W) / the card's limit when the
/// device file states a card, the clock / the device's achievable clock (MHz), the bytes of
/// the on-chip arrays in MiB, "fits: yes (<headroom> % headroom)".
std::string built_line(const Machine& m, double luts, double ffs, double clock_mhz, const DeviceSpec& device,
                       double headroom_pct = kDefaultResourceHeadroomPct);

/// `memplan`'s fit: "total: BRAM36 .. of .., URAM288 .. of .., LUT .. (estimate) of .., FF ..
/// (estimate) of ..,
/// card power .. of .. W, clock .. of .. MHz achievable, on-chip arrays .. MiB; fits: yes|NO
/// (<headroom> % headroom)" and one "  over the device: <limit>" line per entry of `over`
/// (machine::over_device of `m` with `luts` at `clock_mhz` on `device`; empty: it fits).
std::string fit_summary(const Machine& m, double luts, double ffs, double clock_mhz, const DeviceSpec& device,
                        const std::vector<std::string>& over, double headroom_pct = kDefaultResourceHeadroomPct);

/// The "machine" object of `simulate --json`: instances [{module, op, count, lanes,
/// lane_aligned, dsp_per_instance, calls, call_sites}], memories [{array, holds, storage, words, width_bits,
/// partition, partition_type, bram36, uram288, slots (count), graph_buffers (count),
/// peak_live_words}], schedule {tasks, overlap_groups: []}, onchip_bytes; `graph` as for
/// memories_table.
Json machine_json(const Machine& m, const TaskGraph& graph);

/// `memplan --json`'s description of the arrays: memories [{array, holds, storage, words,
/// width_bits, partition, partition_type, bram36, uram288, peak_live_words, slots
/// [{slot, offset, words}], buffers [{name, class, words, first_task, last_task}]}],
/// bram36, uram288, onchip_bytes, fits (`over` empty), over_device (`over`). `graph` and
/// `over` as for buffers_listing and fit_summary.
Json arrays_json(const Machine& m, const TaskGraph& graph, const std::vector<std::string>& over);

/// README.md's "Kernel instances" table (Markdown): one row per module (module,
/// instances, lanes, lane starts, DSP per instance, DSP, calls, call sites) and a total row (DSP of `device`,
/// tasks of the schedule); ends with a blank line.
std::string instances_markdown(const Machine& m, const DeviceSpec& device);

/// README.md's "Memories" table (Markdown): one row per array (array, holds, storage,
/// words, width, partition, words per bank, BRAM36, URAM288) and a total row (blocks of
/// `device`); ends with a blank line.
std::string memories_markdown(const Machine& m, const DeviceSpec& device);

}  // namespace ttsim::machine
