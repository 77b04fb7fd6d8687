// Python binding of the HTML report's C# colouring (dotcov.html.csharp).
#pragma once

#include <pybind11/pybind11.h>

void RegisterCsharp(pybind11::module_& m);
