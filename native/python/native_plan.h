// Python bindings of plan.make_plan's loops over every sequence point that are too slow in Python at a million.
#pragma once

#include <pybind11/pybind11.h>

void RegisterPlan(pybind11::module_& m);
