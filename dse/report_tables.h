#pragma once
// The sortable tables of report.html: one row per design point with its axis values,
// verdict and figures (the rows of results.csv / pareto.csv, with units in the header).

#include <optional>
#include <string>
#include <vector>

#include "dse/result_rows.h"

namespace ttsim::dse {

/// The metrics the report's tables show, in column order.
const std::vector<Metric>& report_metrics();

/// A value of `m` as a table shows it under a header that names the unit: bytes in MiB,
/// fractions in %, counts with thousands separators; "" for NaN.
std::string table_number(Metric m, double v);

/// The unit of `m` as the report shows it ("s", "MiB", "%", "slices", ...).
std::string metric_unit(Metric m);

/// A sortable <table> (class "sortable", id `table_id`) of `rows` in the given order:
/// id, reference, every axis, fidelity, feasible, (with `with_reason`) the infeasibility
/// reason, Pareto front, report_metrics(). Numeric cells carry their exact value in
/// data-v; rows carry data-feasible and are marked for the chosen design and references.
std::string points_table_html(const std::string& table_id, const SweepEvaluation& eval,
                              const std::vector<const ResultRow*>& rows,
                              std::optional<PointId> chosen, bool with_reason);

}  // namespace ttsim::dse
