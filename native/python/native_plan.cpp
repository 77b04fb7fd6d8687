#include "native_plan.h"

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace py = pybind11;

namespace {

// A (method token, IL offset) pair as one key; both are 32-bit unsigned in the data file.
uint64_t Key(PyObject* token, PyObject* offset) {
  long long t = PyLong_AsLongLong(token);
  long long o = PyLong_AsLongLong(offset);
  if ((t == -1 || o == -1) && PyErr_Occurred()) throw py::error_already_set();
  if (t < 0 || o < 0 || t > UINT32_MAX || o > UINT32_MAX) throw py::value_error("token or offset out of range");
  return static_cast<uint64_t>(t) << 32 | static_cast<uint64_t>(o);
}

PyObject* Item(PyObject* seq, Py_ssize_t i) {
  return PyList_Check(seq) ? PyList_GET_ITEM(seq, i) : PyTuple_GET_ITEM(seq, i);
}

void CheckSequence(const py::handle& seq, const char* what) {
  if (!PyList_Check(seq.ptr()) && !PyTuple_Check(seq.ptr())) throw py::type_error(std::string(what) + ": list or tuple");
}

// For each point (tokens[i], offsets[i]): the index in `sites` of the last (token, offset, 0) site, else -1;
// as int32 bytes (array("i").tobytes()). What `dict(zip(sites, range(n))).get((token, offset, 0), -1)` gives.
py::bytes PointSites(const py::handle& sites, const py::handle& tokens, const py::handle& offsets) {
  CheckSequence(sites, "sites");
  CheckSequence(tokens, "tokens");
  CheckSequence(offsets, "offsets");
  Py_ssize_t n_sites = PySequence_Fast_GET_SIZE(sites.ptr());
  Py_ssize_t n = PySequence_Fast_GET_SIZE(tokens.ptr());
  if (PySequence_Fast_GET_SIZE(offsets.ptr()) != n) throw py::value_error("tokens and offsets differ in length");
  if (n_sites > INT32_MAX) throw py::value_error("too many sites");
  std::unordered_map<uint64_t, int32_t> index;
  index.reserve(static_cast<size_t>(n));
  for (Py_ssize_t i = 0; i < n_sites; ++i) {
    PyObject* site = Item(sites.ptr(), i);
    if (!PyTuple_Check(site) || PyTuple_GET_SIZE(site) != 3) throw py::type_error("a site is a 3-tuple");
    long long kind = PyLong_AsLongLong(PyTuple_GET_ITEM(site, 2));
    if (kind == -1 && PyErr_Occurred()) throw py::error_already_set();
    if (kind != 0) continue;
    index[Key(PyTuple_GET_ITEM(site, 0), PyTuple_GET_ITEM(site, 1))] = static_cast<int32_t>(i);
  }
  std::vector<int32_t> out(static_cast<size_t>(n));
  for (Py_ssize_t i = 0; i < n; ++i) {
    auto it = index.find(Key(Item(tokens.ptr(), i), Item(offsets.ptr(), i)));
    out[static_cast<size_t>(i)] = it == index.end() ? -1 : it->second;
  }
  return py::bytes(reinterpret_cast<const char*>(out.data()), out.size() * sizeof(int32_t));
}

}  // namespace

void RegisterPlan(py::module_& m) {
  m.def("point_sites", &PointSites, py::arg("sites"), py::arg("tokens"), py::arg("offsets"),
        "For each point (tokens[i], offsets[i]): the index of the last (token, offset, 0) of `sites`, else -1, "
        "as int32 bytes. Raises ValueError for a token or offset outside 0..2**32-1.");
}
