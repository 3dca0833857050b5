// `ttsim explore` on the shipped sweep (configs/sweeps/atis_u50.json, as shipped) writes a
// report.html that renders in a real browser: headless Chromium (with every host name
// unresolvable) loads it with a probe script that records script errors, draws every image
// onto a canvas and counts its coloured pixels inside the plot area, counts the rows of every
// table that are shown (laid out, not hidden by a filter), sorts every sortable table by each
// column (the rows must follow the sort keys, and the numbers shown must run the same way)
// and lists every resource the page loaded or its script requested (each must be embedded or
// a local file). The shown rows must equal results.csv / pareto.csv, every image must show
// drawn data, no error may reach the console. Skipped, saying why, when Chromium is not
// installed. Without a browser: one image per SVG of the out folder, no SVG draws a marker
// through `use` references, the page links nothing outside its folder, and every plot's
// gnuplot script re-plots on its own (`gnuplot <name>.gp` in a copy of the folder).
#include <cstdlib>
#include <filesystem>
#include <set>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/json_view.h"
#include "dse/run/result_rows.h"

namespace {

namespace fs = std::filesystem;

std::string read_text(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Records of a CSV file after its header (newlines inside quoted cells do not count).
int csv_rows(const fs::path& file) {
  const std::string text = read_text(file);
  int records = 0;
  bool quoted = false;
  for (char c : text) {
    if (c == '"') quoted = !quoted;
    if (c == '\n' && !quoted) ++records;
  }
  return records - 1;
}

std::string find_chromium() {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "/usr/bin:/bin");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    for (const char* name : {"chromium", "chromium-browser", "google-chrome"}) {
      const fs::path p = fs::path(dir) / name;
      if (fs::exists(p)) return p.string();
    }
  }
  return "";
}

// The SVG files of `dir`, by name.
std::set<std::string> svg_files(const fs::path& dir) {
  std::set<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().extension() == ".svg") names.insert(e.path().filename().string());
  }
  return names;
}

// Occurrences of `needle` in `text`.
int count_of(const std::string& text, const std::string& needle) {
  int n = 0;
  for (auto at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

// The probe runs before the report's own script: it collects errors, and on load writes
// its findings as JSON into <pre id="probe-result">.
const char* kProbe = R"(<script>
window.__probeErrors = [];
window.addEventListener('error', function (e) {
  var t = e.target || {};
  window.__probeErrors.push(e.message ? 'script error: ' + e.message : 'failed to load: ' + String(t.src || t.href || t.tagName).slice(0, 120));
}, true);
// Requests made from script (a failed fetch leaves no resource timing entry): every URL
// that is not embedded (data:) or local (file:).
window.__probeRemote = [];
(function () {
  function note(u) {
    try { u = String(new URL(String(u && u.url ? u.url : u), document.baseURI)); } catch (e) { u = String(u); }
    if (u.indexOf('data:') !== 0 && u.indexOf('file:') !== 0) window.__probeRemote.push(u);
  }
  var fetch0 = window.fetch;
  window.fetch = function (input) { note(input); return fetch0.apply(this, arguments); };
  var open0 = XMLHttpRequest.prototype.open;
  XMLHttpRequest.prototype.open = function (method, url) { note(url); return open0.apply(this, arguments); };
  ['WebSocket', 'EventSource', 'Worker', 'SharedWorker'].forEach(function (name) {
    var C = window[name];
    if (!C) return;
    window[name] = function (url, options) { note(url); return new C(url, options); };
  });
  if (navigator.sendBeacon) {
    var beacon0 = navigator.sendBeacon.bind(navigator);
    navigator.sendBeacon = function (url, data) { note(url); return beacon0(url, data); };
  }
})();
(function () {
  var original = console.error;
  console.error = function () {
    window.__probeErrors.push('console.error: ' + Array.prototype.join.call(arguments, ' '));
    original.apply(console, arguments);
  };
})();
window.addEventListener('load', function () {
  var r = {images: document.images.length, images_rendered: 0, image_ink: [], tables: {}, sorted_tables: 0,
           sort_failures: []};
  // Every image drawn onto a canvas: the coloured pixels (not white, not grey: the data, not
  // the frame, grid or text) inside the plot area, below the title and above the key.
  Array.prototype.forEach.call(document.images, function (img) {
    var ink = {alt: img.alt, decoded: img.complete && img.naturalWidth > 0 && img.naturalHeight > 0, coloured: 0};
    if (ink.decoded) {
      try {
        var c = document.createElement('canvas');
        c.width = img.naturalWidth;
        c.height = img.naturalHeight;
        var g = c.getContext('2d');
        g.fillStyle = '#fff';
        g.fillRect(0, 0, c.width, c.height);
        g.drawImage(img, 0, 0);
        var x0 = Math.floor(c.width * 0.1), y0 = Math.floor(c.height * 0.08);
        // Rows 8 % to 84 % of the height: gnuplot's plot area down to the x axis (a front
        // design on the lowest y values sits near the axis), above the tic labels and key.
        var d = g.getImageData(x0, y0, Math.floor(c.width * 0.87), Math.floor(c.height * 0.76)).data;
        for (var i = 0; i < d.length; i += 4) {
          var hi = Math.max(d[i], d[i + 1], d[i + 2]), lo = Math.min(d[i], d[i + 1], d[i + 2]);
          if (hi - lo > 40) ink.coloured++;
        }
      } catch (e) {
        ink.error = String(e);
      }
    }
    if (ink.decoded && ink.coloured > 0) r.images_rendered++;
    r.image_ink.push(ink);
  });
  // Rows shown: laid out (a row a filter hides has no client rects), not merely in the DOM.
  Array.prototype.forEach.call(document.querySelectorAll('table'), function (t) {
    var rows = t.tBodies[0] ? t.tBodies[0].rows : [];
    r.tables[t.id] = {rows: Array.prototype.filter.call(rows, function (row) { return row.getClientRects().length > 0; }).length,
                      dom_rows: rows.length,
                      visible: t.offsetWidth > 0 && t.offsetHeight > 0};
  });
  // Every sortable table, every column, both directions: the rows follow the sort keys
  // (data-v, else the text) and the numbers shown (units and grouping commas stripped) run
  // the same way, in any column whose cells all show a number.
  function shown(td) {
    var m = td.textContent.replace(/,/g, '').match(/^\s*(-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?)/);
    return m ? parseFloat(m[1]) : NaN;
  }
  function outOfOrder(a, b, dir) {  // numbers, NaN (empty) last in both directions
    return isNaN(a) ? !isNaN(b) : (!isNaN(b) && dir * (b - a) < 0);
  }
  Array.prototype.forEach.call(document.querySelectorAll('table.sortable'), function (table) {
    var heads = table.tHead.rows[0].cells, body = table.tBodies[0];
    r.sorted_tables++;
    for (var col = 0; col < heads.length; col++) {
      var numeric = heads[col].getAttribute('data-type') === 'num';
      var showsNumbers = Array.prototype.every.call(body.rows, function (row) {
        return row.cells[col].textContent.trim() === '' || !isNaN(shown(row.cells[col]));
      });
      [1, -1].forEach(function (dir) {
        heads[col].click();
        var where = table.id + ': ' + heads[col].textContent + (dir > 0 ? ' ascending' : ' descending');
        var keys = Array.prototype.map.call(body.rows, function (row) {
          var td = row.cells[col], v = td.getAttribute('data-v');
          if (v === null) v = td.textContent;
          return numeric ? (v === '' ? NaN : parseFloat(v)) : v.toLowerCase();
        });
        var nums = Array.prototype.map.call(body.rows, function (row) { return shown(row.cells[col]); });
        for (var i = 1; i < keys.length; i++) {
          var a = keys[i - 1], b = keys[i];
          if (numeric ? outOfOrder(a, b, dir) : (dir > 0 ? b < a : b > a)) {
            r.sort_failures.push(where + ': sort keys out of order at row ' + i);
            break;
          }
        }
        for (var j = 1; showsNumbers && j < nums.length; j++) {
          if (outOfOrder(nums[j - 1], nums[j], dir)) {
            r.sort_failures.push(where + ': shown numbers out of order at row ' + j + ' (' +
                                 body.rows[j - 1].cells[col].textContent + ', ' + body.rows[j].cells[col].textContent + ')');
            break;
          }
        }
      });
    }
  });
  // Nothing may come from the network: every resource loaded or requested is embedded or local.
  r.remote_resources = performance.getEntriesByType('resource').map(function (e) { return e.name; })
      .filter(function (n) { return n.indexOf('data:') !== 0 && n.indexOf('file:') !== 0; })
      .concat(window.__probeRemote);
  r.errors = window.__probeErrors;
  var pre = document.createElement('pre');
  pre.id = 'probe-result';
  pre.textContent = JSON.stringify(r);
  document.body.appendChild(pre);
});
</script>
)";

class ReportBrowserTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    const char* srcdir = std::getenv("TEST_SRCDIR");
    const char* tmp = std::getenv("TEST_TMPDIR");
    root_ = fs::path(srcdir ? srcdir : ".") / "ttsim";
    out_ = fs::path(tmp ? tmp : "/tmp") / "atis_u50";
    fs::remove_all(out_);
    // The shipped sweep as it is: the checks below follow the number of plots and rows the
    // run wrote, whatever its accuracy table holds.
    const std::string cmd = "cd '" + root_.string() + "' && cli/ttsim explore configs/sweeps/atis_u50.json --out '" +
                            out_.string() + "' --no-progress > '" + out_.string() + ".log' 2>&1";
    explore_rc_ = std::system(cmd.c_str());
  }
  void SetUp() override {
    ASSERT_EQ(explore_rc_, 0) << "explore failed:\n" << read_text(out_.string() + ".log");
    ASSERT_TRUE(fs::exists(out_ / "report.html"));
  }
  // A src or href of the page: embedded image, or a file of the out folder, or an anchor.
  static void check_reference(const std::string& kind, const std::string& target, int& images);
  static fs::path root_, out_;
  static int explore_rc_;
};
fs::path ReportBrowserTest::root_, ReportBrowserTest::out_;
int ReportBrowserTest::explore_rc_ = -1;

TEST_F(ReportBrowserTest, PlotsDrawMarkersAsPathsWithUnitsAndCsv) {
  std::size_t svgs = 0;
  for (const auto& e : fs::directory_iterator(out_)) {
    if (e.path().extension() != ".svg") continue;
    ++svgs;
    const std::string svg = read_text(e.path());
    const auto defs_end = svg.find("</defs>");
    const std::string body = defs_end == std::string::npos ? svg : svg.substr(defs_end);
    EXPECT_EQ(body.find("<use"), std::string::npos) << e.path() << " draws through <use> elements";
    const std::string gp = read_text(fs::path(e.path()).replace_extension(".gp"));
    for (const char* axis : {"set xlabel '", "set ylabel '"}) {
      const auto at = gp.find(axis);
      if (at == std::string::npos) continue;  // the breakdown bars have layer names on y
      const std::string label = gp.substr(at, gp.find('\n', at) - at);
      EXPECT_NE(label.find(" ("), std::string::npos) << e.path() << ": axis without a unit: " << label;
    }
    const std::string name = e.path().stem().string();
    const fs::path csv = out_ / (name == "breakdown" ? "breakdown_layers.csv" : name + ".csv");
    EXPECT_TRUE(fs::exists(csv)) << csv << " missing beside " << e.path();
    if (fs::exists(csv)) {
      EXPECT_GT(csv_rows(csv), 0) << csv;
    }
  }
  // At least one front view, rank/compression and the breakdown; every SVG one image of the page.
  EXPECT_GE(svgs, 3u);
  EXPECT_EQ(svgs, svg_files(out_).size());
  EXPECT_EQ(count_of(read_text(out_ / "report.html"), "<img "), static_cast<int>(svgs));
}

// Each plot's script draws its SVG when run on its own in its folder, as `gnuplot <name>.gp`.
TEST_F(ReportBrowserTest, GnuplotScriptsReplotStandalone) {
  if (std::system("gnuplot --version > /dev/null 2>&1") != 0) GTEST_SKIP() << "gnuplot is not installed";
  const fs::path copy = out_.string() + "_replot";
  fs::remove_all(copy);
  fs::create_directories(copy);
  std::set<std::string> scripts;
  for (const auto& e : fs::directory_iterator(out_)) {
    const auto ext = e.path().extension();
    if (ext == ".gp" || ext == ".csv") fs::copy_file(e.path(), copy / e.path().filename());
    if (ext == ".gp") scripts.insert(e.path().stem().string());
  }
  EXPECT_EQ(scripts.size(), svg_files(out_).size());
  for (const auto& name : scripts) {
    const std::string cmd = "cd '" + copy.string() + "' && gnuplot '" + name + ".gp' > '" + name + ".log' 2>&1";
    EXPECT_EQ(std::system(cmd.c_str()), 0) << name << ".gp:\n" << read_text(copy / (name + ".log"));
    EXPECT_NE(read_text(copy / (name + ".svg")).find("<svg"), std::string::npos) << name << ".svg not drawn";
  }
}

// The shipped sweep runs every sample at its own length with a dataset: its chosen design's
// step_cycles is the epoch's mean step, and the page says so for that design.
TEST_F(ReportBrowserTest, ChosenDesignSaysWhichStepItsStepCyclesIs) {
  const std::string html = read_text((out_ / "report.html").string());
  const auto at = html.find("<dt>its step_cycles</dt>");
  ASSERT_NE(at, std::string::npos);
  EXPECT_EQ(html.find("<dd>the mean training step over the epoch", at), html.find("<dd>", at))
      << html.substr(at, 300);
}

TEST_F(ReportBrowserTest, PageIsSelfContained) {
  const std::string html = read_text(out_ / "report.html");
  EXPECT_EQ(html.find("<script src"), std::string::npos);
  EXPECT_EQ(html.find("<link"), std::string::npos);
  int images = 0;
  for (const std::string kind : {"src", "href"}) {
    const std::string key = " " + kind + "=\"";
    for (auto at = html.find(key); at != std::string::npos; at = html.find(key, at + 1)) {
      const auto start = at + key.size();
      check_reference(kind, html.substr(start, html.find('"', start) - start), images);
    }
  }
  EXPECT_EQ(images, static_cast<int>(svg_files(out_).size()));
}

void ReportBrowserTest::check_reference(const std::string& kind, const std::string& target, int& images) {
  {
    EXPECT_EQ(target.find("://"), std::string::npos) << kind << "=\"" << target << "\" leaves the folder";
    if (kind == "src") {
      EXPECT_EQ(target.rfind("data:image/svg+xml;base64,", 0), 0u) << "image not embedded: " << target.substr(0, 80);
      ++images;
    } else if (target[0] != '#') {
      EXPECT_TRUE(fs::exists(out_ / target)) << "broken link: " << target;
    }
  }
}

TEST_F(ReportBrowserTest, RendersInHeadlessChromium) {
  const std::string chromium = find_chromium();
  if (chromium.empty()) {
    GTEST_SKIP() << "chromium is not installed (Debian package `chromium`, see scripts/install_deps.sh); "
                    "report.html is not checked in a browser";
  }
  std::string html = read_text(out_ / "report.html");
  const auto head = html.find("<head>");
  ASSERT_NE(head, std::string::npos);
  html.insert(head + 6, kProbe);
  const fs::path probe = out_ / "report_probe.html";
  std::ofstream(probe) << html;
  const fs::path dom = out_.string() + ".dom.html", log = out_.string() + ".chromium.log";
  const std::string cmd = "timeout 120 '" + chromium +
                          "' --headless --disable-gpu --no-sandbox --no-first-run --disable-extensions "
                          "--host-resolver-rules='MAP * ~NOTFOUND' "
                          "--user-data-dir='" + out_.string() + ".profile' --virtual-time-budget=10000 "
                          "--enable-logging=stderr --v=0 --dump-dom 'file://" + probe.string() + "' > '" +
                          dom.string() + "' 2> '" + log.string() + "'";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << "chromium failed:\n" << read_text(log);
  const std::string text = read_text(dom);
  const auto open = text.find("<pre id=\"probe-result\">");
  ASSERT_NE(open, std::string::npos) << "the probe did not run; chromium log:\n" << read_text(log);
  const auto start = open + std::string("<pre id=\"probe-result\">").size();
  std::string json = text.substr(start, text.find("</pre>", start) - start);
  for (const auto& [entity, ch] : std::vector<std::pair<std::string, std::string>>{
           {"&lt;", "<"}, {"&gt;", ">"}, {"&quot;", "\""}, {"&amp;", "&"}}) {
    for (auto p = json.find(entity); p != std::string::npos; p = json.find(entity, p + 1)) json.replace(p, entity.size(), ch);
  }
  const ttsim::Json r = ttsim::Json::parse(json);
  SCOPED_TRACE("probe: " + json.substr(0, 2000));

  EXPECT_TRUE(r["errors"].empty()) << r["errors"].dump(1);
  EXPECT_EQ(r["images"].get<std::size_t>(), svg_files(out_).size());
  EXPECT_EQ(r["images_rendered"].get<int>(), r["images"].get<int>());
  for (const auto& ink : r["image_ink"]) {
    EXPECT_TRUE(ink["decoded"].get<bool>()) << ink.dump();
    EXPECT_FALSE(ink.contains("error")) << ink.dump();
    EXPECT_GE(ink["coloured"].get<int>(), 50) << "image shows no drawn data: " << ink.dump();
  }
  const auto& tables = r["tables"];
  ASSERT_TRUE(tables.contains("pareto") && tables.contains("points") && tables.contains("references-table"));
  EXPECT_EQ(tables["pareto"]["rows"].get<int>(), csv_rows(out_ / "pareto.csv"));
  // Every point, or the evenly spaced sample report.html shows of a run of more points.
  const std::size_t points = static_cast<std::size_t>(csv_rows(out_ / "results.csv"));
  const std::size_t stride = ttsim::dse::sample_stride(points, ttsim::dse::kShownPointsMax);
  EXPECT_EQ(tables["points"]["rows"].get<std::size_t>(), (points + stride - 1) / stride);
  EXPECT_EQ(tables["references-table"]["rows"].get<std::size_t>(),
            ttsim::load_json_file((out_ / "chosen.json").string())["references"].size());
  for (const auto& [id, t] : tables.items()) EXPECT_TRUE(t["visible"].get<bool>()) << "table " << id << " not shown";
  EXPECT_EQ(r["sorted_tables"].get<int>(), 3);
  EXPECT_TRUE(r["sort_failures"].empty()) << r["sort_failures"].dump(1);
  EXPECT_TRUE(r["remote_resources"].empty()) << r["remote_resources"].dump(1);

  // Console messages Chromium logged itself (e.g. a blocked resource).
  std::stringstream lines(read_text(log));
  for (std::string line; std::getline(lines, line);) {
    EXPECT_TRUE(line.find("CONSOLE") == std::string::npos && line.find("Uncaught") == std::string::npos)
        << line;
  }
}

}  // namespace
