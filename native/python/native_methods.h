// Python bindings of plan.make_plan's per-method and per-record loops.
#pragma once

#include <pybind11/pybind11.h>

void RegisterMethods(pybind11::module_& m);
