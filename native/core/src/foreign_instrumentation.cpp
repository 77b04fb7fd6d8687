#include "dotcov/foreign_instrumentation.h"

#include "dotcov/metadata.h"
#include "dotcov/pe_image.h"

namespace dotcov {

std::string ForeignInstrumentation(Bytes image) {
  std::string error;
  auto pe = PeImage::Parse(image, &error);
  if (!pe || !pe->is_managed()) return "";
  auto md = MetadataReader::Parse(pe->metadata(), &error);
  if (!md) return "";
  // coverlet's Instrumenter adds "Coverlet.Core.Instrumentation.Tracker.<module>_<guid>" to the module.
  for (const auto& t : md->TypeDefs()) {
    if (t.name_space.rfind("Coverlet.Core.Instrumentation", 0) == 0)
      return "coverlet (the assembly holds its tracker type " + t.name_space + "." + t.name + ")";
  }
  return "";
}

}  // namespace dotcov
