// Python binding: Python's small-object arenas on transparent huge pages (native_arena.cpp).
#pragma once

#include <pybind11/pybind11.h>

void RegisterArena(pybind11::module_& m);
