// Python bindings of the assembly and portable-PDB readers.
#pragma once

#include <pybind11/pybind11.h>

void RegisterSymbols(pybind11::module_& m);
