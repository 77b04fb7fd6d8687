// Python bindings of the IL method-body model, the probe inserter, the
// structural verifier and the rewriter self-check (for tests and `dotcov debug`).
#pragma once

#include <pybind11/pybind11.h>

void RegisterIl(pybind11::module_& m);
