// CPython API helpers the bindings share.
#pragma once

#include <pybind11/pybind11.h>

namespace dotcov_py {

// A new reference as an object; a null one raises the Python error that made it.
inline pybind11::object Steal(PyObject* p) {
  if (p == nullptr) throw pybind11::error_already_set();
  return pybind11::reinterpret_steal<pybind11::object>(p);
}

// seq[i] of a list or tuple (borrowed; i in range).
inline PyObject* Item(PyObject* seq, Py_ssize_t i) {
  return PyList_Check(seq) ? PyList_GET_ITEM(seq, i) : PyTuple_GET_ITEM(seq, i);
}

// An exact int within 64 bits (else false, with no error set).
inline bool SmallInt(PyObject* value, long long* out) {
  if (!PyLong_CheckExact(value)) return false;
  int overflow = 0;
  *out = PyLong_AsLongLongAndOverflow(value, &overflow);
  if (*out == -1 && PyErr_Occurred()) throw pybind11::error_already_set();
  return overflow == 0;
}

}  // namespace dotcov_py
