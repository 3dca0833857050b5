#pragma once
// The sortable tables of report.html: one row per design point with its axis values,
// verdict and figures (the rows of results.csv / pareto.csv, with units in the header).

#include <optional>
#include <string>
#include <vector>

#include "dse/run/result_rows.h"

namespace ttsim::dse {

/// The metrics the report's tables show, in column order.
const std::vector<Metric>& report_metrics();

/// Every metric, in results.csv column order (the all-points table's columns).
const std::vector<Metric>& all_metrics();

/// A value of `m` as a table shows it under a header that names the unit: bytes in MiB,
/// fractions in %, a fixed number of decimals per metric and the integer part grouped by
/// thousands ("11,181.0" s, "7.883" MiB, "84.20" %); "" for NaN.
std::string table_number(Metric m, double v);

/// `name` escaped for HTML with a line-break opportunity (<wbr>) after every underscore,
/// so a narrow column header can wrap "epoch_energy_joules" between its words.
std::string wrappable_name(const std::string& name);

/// The unit of `m` as the report shows it ("s", "MiB", "%", "slices", ...).
std::string metric_unit(Metric m);

/// A numeric header cell for `m`: its name, its unit below, its axis label as tooltip.
std::string metric_header_html(Metric m);

/// A numeric cell for value `v` of `m`: table_number() as text, the exact value in data-v
/// (data-v="" for NaN, sorted last).
std::string metric_cell_html(Metric m, double v);

/// A sortable <table> (class "sortable", id `table_id`) of `rows` in the given order:
/// id, reference, every axis, fidelity, feasible, (with `all_columns`) the infeasibility
/// reason, Pareto front, then report_metrics() or (with `all_columns`) all_metrics() and
/// accuracy_source, as results.csv has them. Numeric cells carry their exact value in
/// data-v; rows carry data-feasible and are marked for the chosen design and references.
/// The same as points_table_head_html, points_table_row_html per row, then
/// points_table_tail_html.
std::string points_table_html(const std::string& table_id, const SweepEvaluator& eval,
                              const std::vector<ResultRow>& rows, std::optional<PointId> chosen,
                              bool all_columns);

/// The opening of a points table: <table> and its header row, up to <tbody>.
std::string points_table_head_html(const std::string& table_id, const SweepEvaluator& eval,
                                   bool all_columns);
/// One <tr> of a points table (for a table written row by row).
std::string points_table_row_html(const ResultRow& row, std::optional<PointId> chosen, bool all_columns);
/// The close of a points table.
std::string points_table_tail_html();

}  // namespace ttsim::dse
