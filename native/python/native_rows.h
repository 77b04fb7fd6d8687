// Python bindings of the HTML report's file-page rows (html/report.py) and its escaping rule.
#pragma once

#include <pybind11/pybind11.h>

void RegisterRows(pybind11::module_& m);
