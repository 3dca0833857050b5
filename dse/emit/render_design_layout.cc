// design_layout.h of a build (render_design_layout, dse/emit/render.h).

#include <fmt/format.h>

#include "dse/emit/render.h"
#include "hls/host/layout_fields.h"

namespace ttsim::dse {

std::string render_design_layout(const BuildDesign& d) {
  std::string h =
      "#pragma once\n"
      "// design_layout.h — the arena layout of this design as compile-time constants: every\n"
      "// buffer's word offset and every arena's size, make_layout (hls/kernels/model_step.cc) of\n"
      "// design_config_dims() computed by `ttsim emit`. The top reads its offsets from this\n"
      "// constant (a ROM where an index is a runtime value, e.g. the encoder) instead of laying\n"
      "// the arenas out at run time. Rendered with design_config.h; do not edit by hand.\n\n"
      "#include \"hls/kernels/model_step.h\"\n\n"
      "namespace ttsim_hls {\n\n"
      "/// The layout make_layout(design_config_dims()) gives (fields not set here are 0).\n"
      "constexpr Layout design_layout() {\n"
      "  Layout L{};\n";
  for_each_layout_field(d.hls.layout, [&](const std::string& path, const int& v) {
    if (v != 0) h += fmt::format("  L.{} = {};\n", path, v);
  });
  h += "  return L;\n}\n\n}  // namespace ttsim_hls\n";
  return h;
}

}  // namespace ttsim::dse
