#pragma once
// The style sheet and script inlined into report.html (no external files or libraries).

namespace ttsim::dse {

/// CSS of the report: layout, tables (sticky header, sort indicators), figures.
extern const char* const kReportCss;

/// JavaScript of the report (plain ES5, no library): tables of class "sortable" sort by
/// the clicked (or Enter-pressed) header cell, numerically on a cell's data-v attribute
/// when the header has data-type="num" (empty values last), else by text; a text box with
/// data-filter="<table id>" and a check box with data-feasible-only="<table id>" filter
/// that table's rows and update the element with data-count="<table id>".
extern const char* const kReportScript;

}  // namespace ttsim::dse
