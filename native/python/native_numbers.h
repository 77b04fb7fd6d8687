// Python bindings of the analysis' line and branch counts (analysis/numbers.py's line_numbers and complexity).
#pragma once

#include <pybind11/pybind11.h>

void RegisterNumbers(pybind11::module_& m);
