// UTF-16 (the CLR's WCHAR) <-> UTF-8. wchar_t is 32-bit on Linux, so the
// profiling API's strings are char16_t throughout.
#pragma once

#include <string>
#include <string_view>

namespace dotcov {

std::string Utf16ToUtf8(std::u16string_view s);
std::u16string Utf8ToUtf16(std::string_view s);

}  // namespace dotcov
