// Python binding: a packed module plan (src/dotcov/analysis/plans/packed.py) applied to hit counts, at C speed.
#pragma once

#include <pybind11/pybind11.h>

void RegisterApply(pybind11::module_& m);
