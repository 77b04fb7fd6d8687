// Python bindings of the report writers' bulk formatting (Cobertura's <lines> blocks).
#pragma once

#include <pybind11/pybind11.h>

void RegisterXml(pybind11::module_& m);
