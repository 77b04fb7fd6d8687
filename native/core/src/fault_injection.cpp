#include "dotcov/fault_injection.h"

#include <string>

#include "dotcov/metadata.h"
#include "dotcov/pe_image.h"

namespace dotcov {

std::vector<uint32_t> MethodTokensNamed(Bytes image, std::string_view name) {
  std::vector<uint32_t> out;
  std::string error;
  auto pe = PeImage::Parse(image, &error);
  if (!pe || !pe->is_managed()) return out;
  auto md = MetadataReader::Parse(pe->metadata(), &error);
  if (!md) return out;
  for (const auto& m : md->MethodDefs()) {
    bool match = m.name == name;
    if (!match && m.declaring_type) match = md->TypeDefFullName(m.declaring_type) + "." + m.name == name;
    if (match) out.push_back(0x06000000 | m.rid);
  }
  return out;
}

}  // namespace dotcov
