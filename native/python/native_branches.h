// Python bindings of the branch analysis' per-method loop (src/dotcov/analysis/branches/analyse.py).
#pragma once

#include <pybind11/pybind11.h>

void RegisterBranches(pybind11::module_& m);
