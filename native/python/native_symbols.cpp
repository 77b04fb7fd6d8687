#include "native_symbols.h"

void RegisterSymbols(pybind11::module_& m) {}
